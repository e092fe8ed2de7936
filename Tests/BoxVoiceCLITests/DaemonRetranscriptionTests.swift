import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceTestSupport
import Foundation
import Testing

/// `boxvoice daemon` answering the box's retranscription requests over the real event WebSocket, with boxsim
/// playing the agent (`bbx chat retranscribe`).
@Suite struct DaemonRetranscriptionTests {
    /// A user home paired with `box`, with the given clips dictated into it (one `dictate` run each). The home lives as
    /// long as the returned value.
    private func dictated(_ clips: [(clip: String, session: String?)], into box: BoxSimServer) throws -> (
        home: TemporaryDirectory, env: [String: String], ids: [String]
    ) {
        let home = TemporaryDirectory("daemon-answers")
        let env = try Run.pairedEnvironment(home, with: box)
        box.devices.map(\.token).forEach(Secrets.register)
        var ids: [String] = []
        for (clip, session) in clips {
            let result = try Run.process(
                Run.boxvoice,
                ["dictate", "--input", Checkout.sample(clip)] + (session.map { ["--session", $0] } ?? []),
                environment: env)
            #expect(result.status == 0, "\(result.stderr)")
            ids.append(try #require(box.messages.last?.messageId))
        }
        return (home, env, ids)
    }

    private func startDaemon(_ env: [String: String], box: BoxSimServer, connections: Int = 1) throws -> Spawned {
        let daemon = try Spawned(Run.boxvoice, ["daemon"], environment: env)
        let deadline = Date(timeIntervalSinceNow: 15)
        while box.eventConnections < connections, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(box.eventConnections == connections, "\(daemon.stderr)")
        return daemon
    }

    /// The files a message's recording is kept in, as `boxvoice recordings --json` lists them.
    private func retainedFiles(_ id: String, env: [String: String]) throws -> [String] {
        let listed = try Run.process(Run.boxvoice, ["recordings", "--json"], environment: env)
        let rows = listed.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return try #require(rows.first { $0["messageId"] as? String == id }?["segments"] as? [String])
    }

    @Test func eachMessageIsAnsweredWithItsOwnAudioSessionAndCappedText() throws {
        let long = String(repeating: "Buy milk and eggs. ", count: 100)  // 1900 characters
        let box = try SimulatedBox {
            $0.hq = .fixed(long); $0.defaultSession = "s1"; $0.extraSessions = ["s2"]
        }
        // The first follows the default; the second names its session (the default then moves there, contract §5).
        let (home, env, ids) = try dictated(
            [("send-buy-milk.wav", nil), ("send-kal-dinner.wav", "s2")], into: box.server)
        let daemon = try startDaemon(env, box: box.server)

        #expect(box.server.defaultSession == "s2")
        for (id, session) in zip(ids, ["s1", "s2"]) {
            let response = try #require(
                RetranscribeAgent(port: box.server.port, messageId: id, timeoutMs: 10_000).wait())
            #expect(response.status == 200)
            #expect(response.header("x-message-id") == id)
            #expect(response.header("x-session-id") == session, "the session it was dictated into")
            #expect(response.header("x-message-text")?.removingPercentEncoding?.count == 1_500)
            // Kept compressed once committed, it goes as it is kept: one Ogg Opus file.
            #expect(response.header("content-type") == "audio/ogg")
            let kept = try retainedFiles(id, env: env)
            #expect(kept.count == 1 && kept.first?.hasSuffix("/audio.ogg") == true, "\(kept)")
            #expect(
                Data(response.body) == (try Data(contentsOf: URL(fileURLWithPath: try #require(kept.first)))),
                "the retained file, byte for byte")
            let answered = home.file("answer-\(id).ogg")
            try Data(response.body).write(to: URL(fileURLWithPath: answered))
            #expect(try SoundFile.open(path: answered).container == .oggOpus)
        }

        let unknown = try #require(
            RetranscribeAgent(port: box.server.port, messageId: "NOT-A-KEPT-MESSAGE", timeoutMs: 3_000).wait())
        #expect(unknown.status == 404)
        #expect(String(decoding: unknown.body, as: UTF8.self).contains("no-audio"))

        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
        #expect(Secrets.leaked(in: daemon.stderr).isEmpty)
    }

    /// Acceptance: a dictated message can be retranscribed within the box's default 10 s window, 20 times in a row.
    @Test func twentyRetranscriptionsInARowAllSucceedWithinTheDefaultWindow() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let paired = try dictated([("send-buy-milk.wav", nil)], into: box.server)
        let (env, ids) = (paired.env, paired.ids)
        let daemon = try startDaemon(env, box: box.server)
        var slowest = 0.0
        for _ in 0..<20 {
            let started = Date()
            let response = RetranscribeAgent(port: box.server.port, messageId: ids[0], timeoutMs: 10_000).wait()
            slowest = max(slowest, Date().timeIntervalSince(started))
            #expect(response?.status == 200)
        }
        #expect(slowest < 10)
        daemon.signal(SIGTERM)
        daemon.wait()
        withExtendedLifetime(paired) {}
    }

    @Test func twoDaemonsForTwoBoxesAnswerOnlyTheirOwnBox() throws {
        let first = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let second = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let pairedA = try dictated([("send-buy-milk.wav", nil)], into: first.server)
        let pairedB = try dictated([("send-kal-dinner.wav", nil)], into: second.server)
        let (envA, idsA, envB, idsB) = (pairedA.env, pairedA.ids, pairedB.env, pairedB.ids)
        let daemonA = try startDaemon(envA, box: first.server)
        let daemonB = try startDaemon(envB, box: second.server)
        #expect(RetranscribeAgent(port: first.server.port, messageId: idsA[0], timeoutMs: 5_000).wait()?.status == 200)
        #expect(RetranscribeAgent(port: second.server.port, messageId: idsB[0], timeoutMs: 5_000).wait()?.status == 200)
        // Each box asks only its own daemon, which does not hold the other box's message.
        #expect(RetranscribeAgent(port: first.server.port, messageId: idsB[0], timeoutMs: 2_000).wait()?.status == 404)
        #expect(!daemonB.stderr.contains(idsA[0]))
        daemonA.signal(SIGTERM)
        daemonB.signal(SIGTERM)
        #expect(daemonA.wait() == 0 && daemonB.wait() == 0)
        withExtendedLifetime((pairedA, pairedB)) {}
    }

    @Test func afterTheBoxRestartsTheDaemonReconnectsAndAnswersTheNextRequest() throws {
        let data = TemporaryDirectory("daemon-restart")
        var configuration = BoxSimConfiguration(dataDirectory: data.path, hq: .describe)
        configuration.defaultSession = "s1"
        let box = try RestartableBox.start(configuration)
        let paired = try dictated([("send-buy-milk.wav", nil)], into: box)
        let (env, ids) = (paired.env, paired.ids)
        let daemon = try startDaemon(env, box: box)
        let port = box.port
        box.stop()
        let again = try RestartableBox.restart(configuration, port: port)
        defer { again.stopInTheBackground() }
        // Reconnect attempts made while the box was down back off 0, 2, 4, 8, 16, 30 s (contract §7.1); under a loaded
        // test run the box can come back just after the 8 s attempt, so the next one may be up to 16 s later.
        let deadline = Date(timeIntervalSinceNow: 35)
        while again.eventConnections == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(again.eventConnections == 1, "\(daemon.stderr)")
        #expect(RetranscribeAgent(port: port, messageId: ids[0], timeoutMs: 10_000).wait()?.status == 200)
        daemon.signal(SIGTERM)
        daemon.wait()
        withExtendedLifetime(paired) {}
    }

    /// Keep-alive: with the box PINGing a silent client sixty times (every quarter second, a second's grace for each
    /// pong), the daemon's one connection holds.
    @Test func theConnectionHoldsThroughSixtyPings() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"; $0.pingIntervalSeconds = 0.25; $0.pongGraceSeconds = 1
        }
        let paired = try dictated([("send-buy-milk.wav", nil)], into: box.server)
        let (env, ids) = (paired.env, paired.ids)
        let daemon = try startDaemon(env, box: box.server)
        Thread.sleep(forTimeInterval: 15)  // the time the pings take is what this test is about
        #expect(box.server.eventConnections == 1)
        #expect(daemon.stderr.components(separatedBy: ": connected").count - 1 == 1, "never dropped: \(daemon.stderr)")
        #expect(RetranscribeAgent(port: box.server.port, messageId: ids[0], timeoutMs: 5_000).wait()?.status == 200)
        daemon.signal(SIGTERM)
        daemon.wait()
        withExtendedLifetime(paired) {}
    }
}
