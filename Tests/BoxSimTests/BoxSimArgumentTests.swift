import BoxVoiceTestSupport
import Foundation
import Testing

/// boxsim's numbers are checked like boxvoice's: a usage error (exit 2) naming the range, not a box that pings
/// every −1 s or a retranscription with a timeout of "abc".
@Suite struct BoxSimArgumentTests {
    private var boxsim: String { (Run.boxvoice as NSString).deletingLastPathComponent + "/boxsim" }

    @Test(arguments: [
        (["serve", "--ping-interval", "-1"], "--ping-interval takes a number of seconds"),
        (["serve", "--pong-grace", "nan"], "--pong-grace takes a number of seconds"),
        (["serve", "--send-delay", "1e9"], "--send-delay takes a number of seconds"),
        (
            ["retranscribe", "--message", "X", "--timeout-ms", "abc"],
            "--timeout-ms takes a whole number of milliseconds"
        ),
        (["serve", "--hq", "slow:inf"], "--hq: unknown HQ mode 'slow:inf'"),
    ])
    func aBadNumberIsAUsageError(_ arguments: [String], _ message: String) throws {
        let dir = TemporaryDirectory("boxsim-args")
        let result = try Run.process(boxsim, arguments + ["--data", dir.path])
        #expect(result.status == 2, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    /// The client commands against a running boxsim: each reads only the options it declares.
    @Test func theListingCommandsAnswerFromARunningBox() throws {
        let dir = TemporaryDirectory("boxsim-client")
        let server = try Spawned(boxsim, ["serve", "--data", dir.path, "--hq", "describe"])
        #expect(server.waitFor("boxsim listening on"), "\(server.stderr)")
        for command in ["messages", "transcriptions"] {
            let result = try Run.process(boxsim, [command, "--data", dir.path])
            #expect(result.status == 0 && result.stdout == "[]\n", "\(command): \(result.stdout) \(result.stderr)")
        }
        let link = try Run.process(boxsim, ["pair-link", "--data", dir.path, "--label", "desk"])
        #expect(link.status == 0 && link.stdout.hasPrefix("beebox://pair?"), "\(link.stderr)")
        server.signal(SIGTERM)
        #expect(server.wait() == 0)
    }
}
