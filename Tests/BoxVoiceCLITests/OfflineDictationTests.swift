import BoxSim
import BoxVoiceTestSupport
import Foundation
import Testing

/// Listening never waits on the network: with the box down, `dictate` records and holds the message; when the box is
/// back, the message goes to the box's default session of that moment (never a new conversation because the box
/// was unreachable), and its recording knows that session.
@Suite struct OfflineDictationTests {
    @Test func withTheBoxDownDictateRecordsAndTheMessageReachesTheDefaultSessionLater() throws {
        let data = TemporaryDirectory("offline-box")
        let configuration = BoxSimConfiguration(dataDirectory: data.path, hq: .describe, defaultSession: "s7")
        let first = try RestartableBox.start(configuration)
        let home = TemporaryDirectory("offline")
        let env = try Run.pairedEnvironment(home, with: first)
        let port = first.port
        first.stop()

        let run = try Run.process(
            Run.boxvoice, ["dictate", "--once", "--no-keys", "--input", Checkout.sample("send-buy-milk.wav")],
            environment: env)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("Nothing was recorded"))
        #expect(
            run.stderr.contains("sends it when the box answers"),
            "the run says it holds the message and who sends it: \(run.stderr)")
        // The network error is told once; later lines say what it means for them.
        #expect(run.stderr.components(separatedBy: "Couldn't connect to server").count == 2, "\(run.stderr)")
        #expect(run.stderr.contains("the box is still unreachable"), "\(run.stderr)")
        let held = try Run.process(Run.boxvoice, ["outbox", "--json"], environment: env)
        #expect(held.stdout.contains("\"state\":\"pending\""), "\(held.stdout)")
        let boxes = try Run.process(Run.boxvoice, ["boxes"], environment: env)
        #expect(boxes.stdout.contains("unreachable since"), "\(boxes.stdout)")

        let second = try RestartableBox.restart(configuration, port: port)
        defer { second.stopInTheBackground() }
        let retry = try Run.process(Run.boxvoice, ["outbox", "retry"], environment: env)
        #expect(retry.status == 0, "\(retry.stderr)")
        let messages = second.messages
        try #require(messages.count == 1)
        #expect(messages[0].session == "s7", "sent into the box's default session, not a new one")
        #expect(try Run.process(Run.boxvoice, ["boxes"], environment: env).stdout.contains("— ok"))
        let recordings = try Run.process(Run.boxvoice, ["recordings", "--json"], environment: env)
        #expect(
            recordings.stdout.contains("\"session\":\"s7\""),
            "its retranscription answer will carry the session: \(recordings.stdout)")
    }
}
