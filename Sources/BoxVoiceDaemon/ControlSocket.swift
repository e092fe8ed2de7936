import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoicePresentation
import Foundation
import Synchronization

/// Why the control socket could not be set up or reached, in words for the user.
public struct ControlSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The control folder is not this user's private folder: neither end uses it.
        case unsafeFolder
        /// Nothing answers on the socket: no daemon is running.
        case noDaemon
        case other
    }

    public let code: Code
    public let description: String
    public init(_ description: String, code: Code = .other) {
        self.code = code
        self.description = description
    }
}

/// The daemon's end of `$XDG_RUNTIME_DIR/boxvoice/control.sock`: a Unix stream socket, mode 0600 in a 0700 folder,
/// one JSON request line per connection. Only one daemon may own it: an exclusive `flock` on `daemon.lock` beside
/// it is taken first, so a second daemon is refused even while the first is busy, and a socket file left by a
/// killed daemon is replaced.
public final class ControlServer: Sendable {
    public typealias Handler = @Sendable (ControlRequest) -> ControlReply

    public let path: String
    private let listener: Int32
    private let lockDescriptor: Int32
    private let handler: Handler
    private let clients = Mutex(Clients())

    /// The `status --follow` connections, and whether the server was stopped (no follower is added after).
    private struct Clients {
        var followers: [Int32] = []
        var stopped = false
    }

    public init(path: String, handler: @escaping Handler) throws {
        self.path = path
        self.handler = handler
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ControlSocketError("cannot create \(folder) for the control socket: \(error.localizedDescription)")
        }
        try Self.checkPrivate(folder: folder)
        let lockPath = folder + "/daemon.lock"
        lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockDescriptor >= 0 else {
            throw ControlSocketError("cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(lockDescriptor)
            throw ControlSocketError(
                "another boxvoice daemon is already running (it holds \(lockPath) and answers on \(path)); stop it "
                    + "first, e.g. `systemctl --user stop boxvoice`"
            )
        }
        unlink(path)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0, var address = Self.address(path) else {
            close(lockDescriptor)
            throw ControlSocketError("cannot create the control socket \(path) (path too long or no sockets)")
        }
        // Created owner-only from the start: no moment exists when another user could connect.
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        umask(previous)
        guard bound == 0, chmod(path, 0o600) == 0, listen(listener, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            close(lockDescriptor)
            throw ControlSocketError("cannot listen on \(path): \(reason)")
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "boxvoice control"
        thread.start()
    }

    /// Sends one JSON line to every `status --follow` client without ever waiting on one: a client that went away,
    /// or stopped reading until its socket buffer (a few hundred events) filled, is dropped. A paused terminal or a
    /// stuck status bar must never hold the dictation that calls this.
    public func broadcast(_ event: EventRecord) {
        let line = Array((event.line + "\n").utf8)
        clients.withLock { clients in
            clients.followers = clients.followers.filter { descriptor in
                if Self.writeWithoutWaiting(line, to: descriptor) { return true }
                close(descriptor)
                return false
            }
        }
    }

    /// How many `status --follow` clients are attached.
    public var followerCount: Int { clients.withLock { $0.followers.count } }

    /// True only when the whole line went out at once: half a line would corrupt the follower's stream.
    private static func writeWithoutWaiting(_ line: [UInt8], to descriptor: Int32) -> Bool {
        while true {
            let sent = line.withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if sent < 0 && errno == EINTR { continue }
            return sent == line.count
        }
    }

    /// Closes the socket (removing its file), every follower, and releases the lock.
    public func stop() {
        let wasStopped = clients.withLock { clients in
            defer { clients.stopped = true }
            return clients.stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
        clients.withLock { clients in
            clients.followers.forEach { close($0) }
            clients.followers.removeAll()
        }
        close(lockDescriptor)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            BlockingWork.start("boxvoice.control-client") { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let line = Self.readLine(client) else {
            close(client)
            return
        }
        let reply: ControlReply
        var follow = false
        do {
            let request = try ControlRequest.decode(line)
            reply = handler(request)
            follow = request.follow
        } catch {
            reply = ControlReply(ok: false, state: .unknown, message: "\(error)")
        }
        guard Self.write(jsonLine(reply) + "\n", to: client), follow else {
            close(client)
            return
        }
        let kept = clients.withLock { clients in
            guard !clients.stopped else { return false }
            clients.followers.append(client)
            return true
        }
        if !kept { close(client) }
    }

    /// The control folder must be this user's own, a real folder, and closed to others. Without XDG_RUNTIME_DIR it
    /// is `/tmp/boxvoice-<uid>`, a name anyone can create first: a folder made by another user would let that user
    /// answer (or read) every hotkey command, so both ends refuse it rather than use it.
    static func checkPrivate(folder: String) throws {
        var info = stat()
        guard lstat(folder, &info) == 0 else {
            throw ControlSocketError("cannot check the control folder \(folder): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw ControlSocketError(
                "\(folder) is not a folder (a link or a file is in its place), so the control socket is not used "
                    + "there; "
                    + "remove it, or set XDG_RUNTIME_DIR to a private folder", code: .unsafeFolder)
        }
        guard info.st_uid == getuid() else {
            throw ControlSocketError(
                "\(folder) belongs to another user (uid \(info.st_uid)), so the control socket is not used there; "
                    + "remove it, or set XDG_RUNTIME_DIR to a private folder", code: .unsafeFolder)
        }
        guard info.st_mode & 0o077 == 0 else {
            throw ControlSocketError(
                "\(folder) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))), so the control "
                    + "socket is not used there; `chmod 700 \(folder)`, or set XDG_RUNTIME_DIR to a private folder",
                code: .unsafeFolder)
        }
    }

    public static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    static func readLine(_ descriptor: Int32) -> String? {
        var data = [UInt8]()
        var byte: UInt8 = 0
        while data.count < 4_096 {
            let got = recv(descriptor, &byte, 1, 0)
            if got == 1 {
                if byte == 0x0A { break }
                data.append(byte)
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        return data.isEmpty ? nil : String(decoding: data, as: UTF8.self)
    }

    static func write(_ text: String, to descriptor: Int32) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            bytes = bytes.dropFirst(sent)
        }
        return true
    }
}

/// The command side: `boxvoice start|stop|toggle|cancel|send|status`.
public enum ControlClient {
    /// Sends `request` and hands each line of the answer to `onLine` (the reply, then events when following) until
    /// the daemon closes the connection or `onLine` returns false.
    public static func send(_ request: ControlRequest, path: String, onLine: (String) -> Bool) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0, var address = ControlServer.address(path) else {
            throw ControlSocketError("cannot reach the daemon: bad control socket path \(path)")
        }
        defer { close(descriptor) }
        // A folder that is not this user's own could hold another user's socket listening for our commands.
        if FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent) {
            try ControlServer.checkPrivate(folder: (path as NSString).deletingLastPathComponent)
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            throw ControlSocketError(
                "no boxvoice daemon is running (nothing answers on \(path)). Start one with `boxvoice daemon`, or "
                    + "`systemctl --user start boxvoice` with contrib/boxvoice.service installed.", code: .noDaemon
            )
        }
        guard ControlServer.write(request.encoded + "\n", to: descriptor) else {
            throw ControlSocketError("the daemon closed the control socket before the request was sent")
        }
        while let line = ControlServer.readLine(descriptor) {
            if !onLine(line) { return }
        }
    }
}
