import BoxSim
import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

/// The daemon follows the pairing while it runs (issue: sessions and boxes as the real box keeps them): a box paired
/// after it started is served, a re-paired box is reconnected with its new token, and a turn dictated while the box
/// is down never opens a new conversation.
@Suite struct DaemonPairingTests {
    /// Waits until `box` has `count` event connections (or the deadline passes).
    private func waitForConnections(_ box: BoxSimServer, _ count: Int, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while box.eventConnections != count, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        return box.eventConnections == count
    }

    /// `boxvoice pair` with a fresh link from `box`, its tokens registered for the leak scan.
    private func pair(_ box: BoxSimServer, _ env: [String: String]) throws {
        let paired = try Run.process(Run.boxvoice, ["pair", box.mintPairingLink()], environment: env)
        #expect(paired.status == 0, "\(paired.stderr)")
        box.devices.map(\.token).forEach(Secrets.register)
    }

    @Test func aDaemonStartedWithNoBoxAnswersForABoxPairedAfterItStarted() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("daemon-late-pair")
        let env = Run.isolatedEnvironment(home)
        let daemon = try Spawned(Run.boxvoice, ["daemon"], environment: env)
        #expect(daemon.waitFor("no box is paired; waiting"), "\(daemon.stderr)")
        let status = try Run.process(Run.boxvoice, ["status"], environment: env)
        #expect(status.stdout.contains("no box is paired"), "\(status.stdout)")

        try pair(box.server, env)
        #expect(waitForConnections(box.server, 1), "\(daemon.stderr)")
        let dictated = try Run.process(
            Run.boxvoice, ["dictate", "--input", Checkout.sample("send-buy-milk.wav")], environment: env)
        #expect(dictated.status == 0, "\(dictated.stderr)")
        let id = try #require(box.server.messages.last?.messageId)

        let answer = try #require(RetranscribeAgent(port: box.server.port, messageId: id, timeoutMs: 10_000).wait())
        #expect(answer.status == 200 && answer.header("x-message-id") == id, "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
        #expect(Secrets.leaked(in: daemon.stderr).isEmpty)
    }

    @Test func aRevokedDeviceShowsNeedsRePairAndRePairingReconnectsWithoutARestart() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("daemon-repair")
        let env = try Run.pairedEnvironment(home, with: box.server)
        try Run.revokeStoredToken(home)
        let daemon = try Spawned(Run.boxvoice, ["daemon"], environment: env)
        #expect(daemon.waitFor("needs re-pair"), "\(daemon.stderr)")
        let boxes = try Run.process(Run.boxvoice, ["boxes"], environment: env)
        #expect(boxes.stdout.contains("needs re-pair"), "\(boxes.stdout)")

        try pair(box.server, env)
        #expect(daemon.waitFor("pairing changed; reconnecting"), "\(daemon.stderr)")
        #expect(waitForConnections(box.server, 1), "\(daemon.stderr)")
        let after = try Run.process(Run.boxvoice, ["boxes"], environment: env)
        #expect(!after.stdout.contains("needs re-pair"), "\(after.stdout)")
        #expect(
            try Run.process(Run.boxvoice, ["boxes", "--json"], environment: env).stdout.components(
                separatedBy: "\"name\""
            ).count == 2,
            "re-pairing kept one box")

        let name = try #require(try Self.onlyBoxName(env))
        let unpaired = try Run.process(Run.boxvoice, ["boxes", "unpair", name], environment: env)
        #expect(unpaired.status == 0, "\(unpaired.stderr)")
        #expect(daemon.waitFor("unpaired; disconnected"), "\(daemon.stderr)")
        #expect(waitForConnections(box.server, 0))
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
        #expect(Secrets.leaked(in: daemon.stderr).isEmpty)
    }

    private static func onlyBoxName(_ env: [String: String]) throws -> String? {
        let listed = try Run.process(Run.boxvoice, ["boxes", "--json"], environment: env)
        let object = listed.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return object.first?["name"] as? String
    }

    @Test func aTurnDictatedWhileTheBoxIsDownGoesToItsDefaultWhenItIsBackNeverANewConversation() throws {
        let data = TemporaryDirectory("daemon-down")
        let configuration = BoxSimConfiguration(dataDirectory: data.file("box"), hq: .describe, defaultSession: "s1")
        let first = try RestartableBox.start(configuration)
        let home = TemporaryDirectory("daemon-down-home")
        let env = try Run.pairedEnvironment(home, with: first)
        first.devices.map(\.token).forEach(Secrets.register)
        let port = first.port
        first.stop()

        let running = try DaemonUnderTest(sample: "none-weather.wav", home: home, environment: env)
        let (daemon, follow) = (running.daemon, running.follow)
        #expect(try Run.process(Run.boxvoice, ["start"], environment: env).status == 0)
        #expect(follow.waitFor("\"event\":\"final\""), "\(daemon.stderr)")
        #expect(try Run.process(Run.boxvoice, ["stop"], environment: env).status == 0)
        #expect(follow.waitFor("\"event\":\"committed\""), "\(daemon.stderr)")
        #expect(follow.waitFor("\"event\":\"idle\""))

        let second = try RestartableBox.restart(configuration, port: port)
        defer { second.stop() }
        let deadline = Date(timeIntervalSinceNow: 40)
        while second.messages.isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(second.messages.map(\.session) == ["s1"], "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
        follow.signal(SIGTERM)
        follow.wait()
    }
}
