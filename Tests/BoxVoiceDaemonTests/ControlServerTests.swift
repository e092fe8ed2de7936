import BoxVoiceDictation
import BoxVoiceDaemon
import BoxVoicePresentation
import BoxVoiceTestSupport
import Foundation
import Glibc
import Testing

/// The daemon's control socket under a hostile or careless peer: a follower that stops reading, a control folder
/// another user made or left open.
@Suite struct ControlServerTests {
    private static func server(in folder: String) throws -> ControlServer {
        try ControlServer(path: folder + "/control.sock") { _ in ControlReply(ok: true, state: .idle, message: "idle") }
    }

    /// Connects as `status --follow` does and never reads again (a paused terminal, a stuck bar).
    private static func stalledFollower(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = try #require(ControlServer.address(path))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(connected == 0)
        let request = Array((ControlRequest(.status, follow: true).encoded + "\n").utf8)
        #expect(send(descriptor, request, request.count, 0) == request.count)
        return descriptor
    }

    @Test func aFollowerThatStopsReadingIsDroppedAndNeverHoldsTheBroadcast() throws {
        let folder = TemporaryDirectory("control-stall")
        let server = try Self.server(in: folder.path)
        defer { server.stop() }
        let stalled = try Self.stalledFollower(server.path)
        defer { close(stalled) }
        let deadline = Date().addingTimeInterval(5)
        while server.followerCount == 0, Date() < deadline { usleep(1_000) }
        #expect(server.followerCount == 1)
        // Far more than a socket buffer holds: before, the first write that found the buffer full waited forever.
        let text = String(repeating: "w", count: 4_000)
        let started = Date()
        for index in 0..<2_000 {
            var event = EventRecord(.partial)
            event.text = text + String(index)
            server.broadcast(event)
        }
        #expect(Date().timeIntervalSince(started) < 5, "the broadcasts never waited on the stalled follower")
        #expect(server.followerCount == 0, "the stalled follower was dropped")
    }

    @Test func aControlFolderOpenToOthersIsRefusedByBothEnds() throws {
        let folder = TemporaryDirectory("control-open")
        let open = folder.path + "/runtime"
        try FileManager.default.createDirectory(
            atPath: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        chmod(open, 0o777)
        #expect {
            _ = try Self.server(in: open)
        } throws: { error in
            (error as? ControlSocketError)?.code == .unsafeFolder && "\(error)".contains("open to other users")
        }
        #expect {
            try ControlClient.send(ControlRequest(.status), path: open + "/control.sock") { _ in false }
        } throws: { error in
            (error as? ControlSocketError)?.code == .unsafeFolder && "\(error)".contains("open to other users")
        }
    }

    /// Without XDG_RUNTIME_DIR the folder is `/tmp/boxvoice-<uid>`, which anyone can create first.
    @Test(.enabled(if: getuid() == 0, "making a folder another user owns needs root"))
    func aControlFolderAnotherUserOwnsIsRefusedByBothEnds() throws {
        let folder = TemporaryDirectory("control-owner")
        let theirs = folder.path + "/runtime"
        try FileManager.default.createDirectory(
            atPath: theirs, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        #expect(chown(theirs, 65_534, 65_534) == 0)
        #expect {
            _ = try Self.server(in: theirs)
        } throws: { error in
            (error as? ControlSocketError)?.code == .unsafeFolder && "\(error)".contains("belongs to another user")
        }
        #expect {
            try ControlClient.send(ControlRequest(.status), path: theirs + "/control.sock") { _ in false }
        } throws: { error in
            (error as? ControlSocketError)?.code == .unsafeFolder && "\(error)".contains("belongs to another user")
        }
    }

    @Test func aLinkInPlaceOfTheControlFolderIsRefused() throws {
        let folder = TemporaryDirectory("control-link")
        let target = folder.path + "/elsewhere"
        try FileManager.default.createDirectory(
            atPath: target, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let link = folder.path + "/runtime"
        #expect(symlink(target, link) == 0)
        #expect {
            _ = try Self.server(in: link)
        } throws: { error in
            (error as? ControlSocketError)?.code == .unsafeFolder
        }
    }
}
