import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct ContribUnitTests {
    private var unit: String { Checkout.root + "/contrib/boxvoice.service" }

    @Test func theUserUnitRunsTheDaemonAndRestartsItOnFailure() throws {
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("ExecStart=/usr/local/bin/boxvoice daemon"))
        #expect(lines.contains("Restart=on-failure"))
        #expect(lines.contains("Type=notify") && lines.contains("NotifyAccess=main"))
        #expect(lines.contains("WantedBy=default.target"))
    }

    /// systemd's own checker, with ExecStart pointed at the binary just built (it insists the command exists).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func systemdAnalyzeVerifyFindsNothingWrong() throws {
        let dir = TemporaryDirectory("unit")
        let text = try String(contentsOfFile: unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/boxvoice", with: Run.boxvoice)
        try text.write(toFile: dir.file("boxvoice.service"), atomically: true, encoding: .utf8)
        let result = try Run.process("/usr/bin/systemd-analyze", ["verify", "--man=no", dir.file("boxvoice.service")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty && result.stdout.isEmpty, "warnings: \(result.stderr)")
    }

    /// The unit is `Type=notify`: the daemon says READY=1 on `$NOTIFY_SOCKET` once its control socket takes
    /// commands, so a `boxvoice status` right after `systemctl --user enable --now boxvoice` finds it.
    @Test func theDaemonTellsTheServiceManagerWhenItTakesCommands() throws {
        let home = TemporaryDirectory("notify")
        let path = home.file("notify.sock")
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8.prefix(raw.count - 1)) + [0])
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        var wait = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var env = Run.isolatedEnvironment(home)
        env["NOTIFY_SOCKET"] = path
        let daemon = try Spawned(Run.boxvoice, ["daemon", "--device", "null"], environment: env)
        var buffer = [UInt8](repeating: 0, count: 256)
        let got = recv(fd, &buffer, buffer.count, 0)
        #expect(String(decoding: buffer.prefix(max(0, got)), as: UTF8.self).contains("READY=1"), "\(daemon.stderr)")
        let status = try Run.process(Run.boxvoice, ["status"], environment: env)
        #expect(status.status == 0 && status.stdout.contains("idle"), "\(status.stdout) \(status.stderr)")
    }
}
