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
}
