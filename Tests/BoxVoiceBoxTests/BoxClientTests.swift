import BoxSim
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceTestSupport
import Foundation
import Testing

/// The contract client against boxsim over real HTTP on loopback.
@Suite struct BoxClientTests {
    private func paired(_ box: SimulatedBox) throws -> (BoxClient, String) {
        let token = try BoxClient(baseURL: box.baseURL, token: nil).redeem(
            pairingToken: box.mintTicket(), deviceLabel: "test-host")
        Secrets.register(token)
        return (BoxClient(baseURL: box.baseURL, token: token), token)
    }

    // MARK: §6 pairing

    @Test func redeemGivesATokenOnceAndTheBoxKnowsTheLabel() throws {
        let box = try SimulatedBox()
        let ticket = box.mintTicket()
        let client = BoxClient(baseURL: box.baseURL, token: nil)
        let token = try client.redeem(pairingToken: ticket, deviceLabel: "desk-linux")
        #expect(!token.isEmpty)
        #expect(box.server.devices.map(\.label) == ["desk-linux"])
        #expect {
            _ = try client.redeem(pairingToken: ticket, deviceLabel: "desk-linux")
        } throws: { error in
            guard case BoxFailure.definitive(_, 401, let message, _) = error else { return false }
            return message.contains("Pairing code is invalid or expired.")
        }
    }

    @Test func expiredTicketIsRefused() throws {
        let box = try SimulatedBox { $0.pairingTicketSeconds = 0.05 }
        let ticket = box.mintTicket()
        Thread.sleep(forTimeInterval: 0.1)
        #expect(throws: BoxFailure.self) {
            try BoxClient(baseURL: box.baseURL, token: nil).redeem(pairingToken: ticket, deviceLabel: "x")
        }
    }

    @Test func ticketsDieWhenTheBoxRestarts() throws {
        let directory = TemporaryDirectory("restart")
        let configuration = BoxSimConfiguration(dataDirectory: directory.path)
        let first = try RestartableBox.start(configuration)
        let link = first.mintPairingLink()
        let ticket = try #require(try PairingLink.parse(link).pairingToken)
        let port = first.port
        first.stop()
        let second = try RestartableBox.restart(configuration, port: port)
        defer { second.stop() }
        #expect(throws: BoxFailure.self) {
            try BoxClient(baseURL: second.baseURL, token: nil).redeem(pairingToken: ticket, deviceLabel: "x")
        }
    }

    // MARK: §5 session

    @Test func defaultSessionIsNilOrTheBoxs() throws {
        let plain = try SimulatedBox()
        #expect(try paired(plain).0.defaultSession() == nil)
        let withSession = try SimulatedBox { $0.defaultSession = "s-42" }
        #expect(try paired(withSession).0.defaultSession() == "s-42")
    }

    // MARK: §2 send

    @Test func sendStartsATurnThenDeduplicatesTheSameId() throws {
        let box = try SimulatedBox { $0.defaultSession = "s1" }
        let (client, _) = try paired(box)
        let id = MessageID.new()
        guard case .started = try client.send(message: "<speech stt=\"live\">hi</speech>", messageId: id, session: "s1")
        else {
            Issue.record("expected a started turn")
            return
        }
        #expect(
            try client.send(message: "<speech stt=\"live\">hi</speech>", messageId: id, session: "s1") == .deduplicated)
        #expect(box.server.messages.count == 1)
        #expect(box.server.messages[0].messageId == id.rawValue)
    }

    @Test func dedupSurvivesABoxRestart() throws {
        let directory = TemporaryDirectory("dedup")
        var configuration = BoxSimConfiguration(dataDirectory: directory.path)
        configuration.defaultSession = "s1"
        let first = try RestartableBox.start(configuration)
        let ticket = try #require(try PairingLink.parse(first.mintPairingLink()).pairingToken)
        let token = try BoxClient(baseURL: first.baseURL, token: nil).redeem(pairingToken: ticket, deviceLabel: "d")
        Secrets.register(token)
        let id = MessageID.new()
        _ = try BoxClient(baseURL: first.baseURL, token: token).send(message: "once", messageId: id, session: "s1")
        let port = first.port
        first.stop()
        let second = try RestartableBox.restart(configuration, port: port)
        defer { second.stopInTheBackground() }
        // The device token and the message id both outlive the restart.
        #expect(
            try BoxClient(baseURL: second.baseURL, token: token).send(
                message: "once", messageId: id, session: "s1") == .deduplicated)
        #expect(second.messages.count == 1)
    }

    @Test(arguments: [301, 302, 307, 308])
    func redirectsAreNotFollowedSoTheTokenStaysWithTheBox(status: Int) throws {
        let elsewhere = try GarbageServer()
        defer { elsewhere.stop() }
        let location = "http://127.0.0.1:\(elsewhere.port)/steal"
        let redirecting = try GarbageServer(
            reply: "HTTP/1.1 \(status) Moved\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        defer { redirecting.stop() }
        let client = BoxClient(baseURL: redirecting.baseURL, token: "token-that-must-stay-home")
        #expect {
            _ = try client.defaultSession()
        } throws: { error in
            guard case BoxFailure.definitive(_, status, let message, _) = error else { return false }
            // The user is told where it pointed, and never the token.
            return message.contains(location) && !"\(error)".contains("token-that-must-stay-home")
        }
        #expect(elsewhere.requests.isEmpty)
        #expect(redirecting.requests.first?.contains("Authorization: Bearer token-that-must-stay-home") == true)
        #expect(redirecting.requests.first?.hasPrefix("GET /main/test1/api/chat/default ") == true)
    }

    /// A box that answers without end costs at most the call's cap in memory, and the call ends at once with a
    /// clear reason instead of growing until the timeout.
    @Test func anAnswerThatNeverEndsIsCutOffAtTheCap() throws {
        let server = try HostileServer(serve: HostileServer.endlessHTTPAnswer)
        defer { server.stop() }
        let client = BoxClient(baseURL: server.baseURL, token: "token-that-must-stay-home")
        let started = Date()
        #expect {
            _ = try client.defaultSession()
        } throws: { error in
            guard case BoxFailure.uncertain(_, let reason) = error else { return false }
            return reason.contains("larger than") && reason.contains("\(BoxClient.maxCallAnswerBytes)")
        }
        #expect(Date().timeIntervalSince(started) < 5, "stopped at the cap, long before the 30 s timeout")
    }

    @Test func aTransferCutAtItsCapSaysSoByKind() throws {
        let server = try HostileServer(serve: HostileServer.endlessHTTPAnswer)
        defer { server.stop() }
        #expect {
            _ = try HTTPTransfer.perform(HTTPRequest(method: .get, url: server.baseURL, maxResponseBytes: 100_000))
        } throws: { error in
            (error as? TransportError)?.kind == .tooLarge
        }
    }

    @Test func busySessionQueues() throws {
        let box = try SimulatedBox {
            $0.defaultSession = "s1"; $0.turnSeconds = 30
        }
        let (client, _) = try paired(box)
        _ = try client.send(message: "one", messageId: MessageID.new(), session: "s1")
        #expect(try client.send(message: "two", messageId: MessageID.new(), session: "s1") == .queued)
    }

    @Test func newSessionIsCreated() throws {
        let box = try SimulatedBox()
        let (client, _) = try paired(box)
        _ = try client.send(message: "hello", messageId: MessageID.new(), session: nil)
        #expect(box.server.messages.first?.session.hasPrefix("session-") == true)
    }

    @Test func unknownSessionIsDefinitive410Or404WithExactSession() throws {
        let box = try SimulatedBox()
        let (client, _) = try paired(box)
        #expect {
            _ = try client.send(message: "x", messageId: MessageID.new(), session: "gone")
        } throws: { error in
            guard case BoxFailure.definitive(_, 410, _, "CHAT_SESSION_UNAVAILABLE") = error else { return false }
            return true
        }
        #expect {
            _ = try client.send(message: "x", messageId: MessageID.new(), session: "gone", exactSession: true)
        } throws: { error in
            guard case BoxFailure.definitive(_, 404, _, _) = error else { return false }
            return true
        }
    }

    @Test func everyAuthenticatedCallIs401WithABadToken() throws {
        let box = try SimulatedBox()
        let client = BoxClient(baseURL: box.baseURL, token: "not-a-device-token")
        let wav = try box.wav(seconds: 0.5)
        #expect(throws: BoxFailure.unauthorized(operation: "ask the box for its current session")) {
            try client.defaultSession()
        }
        #expect(throws: BoxFailure.unauthorized(operation: "post the message to the box")) {
            try client.send(message: "x", messageId: MessageID.new(), session: nil)
        }
        #expect(throws: BoxFailure.unauthorized(operation: "transcribe audio")) {
            try client.transcribe(wavPath: wav, session: nil)
        }
        #expect(throws: BoxFailure.unauthorized(operation: "answer the box's request for a recording")) {
            try client.answerLastAudio(requestId: "r", .none)
        }
        let agentWithoutToken = try HTTPTransfer.perform(
            HTTPRequest(
                method: .post, url: box.baseURL + "/api/chat/last-audio/request",
                body: .bytes(Data(#"{"messageId":"M"}"#.utf8), contentType: "application/json")))
        #expect(agentWithoutToken.status == 401)
        #expect(box.server.messages.isEmpty)
    }

    // MARK: §1 transcription

    @Test func float32WavIsUploadedAndDecodedByTheBox() throws {
        let box = try SimulatedBox { $0.hq = .fixed("Buy milk tomorrow.") }
        let (client, _) = try paired(box)
        let wav = try box.wav(seconds: 2.5)
        let progress = ProgressLog()
        let result = try client.transcribe(wavPath: wav, session: "s7") { sent, total in progress.add(sent, total) }
        #expect(result == Wire.Transcription(text: "Buy milk tomorrow.", diarized: false, service: "boxsim"))
        let seen = try #require(box.server.transcriptions.last)
        #expect(seen.session == "s7")
        #expect(seen.filename == "segment.wav")
        #expect(seen.guessedFormat == "wav")
        #expect(seen.sampleRate == 48_000 && seen.channels == 1 && seen.float32 == true && seen.frames == 120_000)
        #expect(seen.ignoredFields.isEmpty)
        #expect(progress.last?.0 == progress.last?.1)
        #expect((progress.last?.1 ?? 0) > 480_000)
    }

    @Test func defaultHQDecodesSpeechWithPocketSphinx() throws {
        let box = try SimulatedBox()
        let (client, _) = try paired(box)
        let result = try client.transcribe(wavPath: Checkout.sample("none-budget.wav"), session: nil)
        #expect(result.service == "pocketsphinx")
        let words = ["review", "budget", "numbers", "next", "week"].filter { result.text.lowercased().contains($0) }
        #expect(words.count >= 3, "heard: \(result.text)")
    }

    @Test func aFieldAfterTheFilePartIsNotSeen() throws {
        let box = try SimulatedBox { $0.hq = .fixed("ok") }
        let (_, token) = try paired(box)
        let wav = try box.wav(seconds: 0.2)
        let request = HTTPRequest(
            method: .post, url: box.baseURL + "/api/chat/transcribe-audio",
            headers: [("Authorization", "Bearer \(token)")],
            body: .multipart([
                .file(name: "file", path: wav, filename: "segment.wav", contentType: "audio/wav"),
                .field(name: "session", value: "late"),
            ]))
        let response = try HTTPTransfer.perform(request)
        #expect(response.status == 200)
        let seen = try #require(box.server.transcriptions.last)
        #expect(seen.session == nil)
        #expect(seen.ignoredFields == ["session"])
    }

    @Test func permanentHQFailureIsReportedAsPermanent() throws {
        let box = try SimulatedBox { $0.hq = .fail(code: "missing_api_key") }
        let (client, _) = try paired(box)
        let wav = try box.wav(seconds: 0.2)
        #expect(
            throws: BoxFailure.permanentHQ(
                message: "HQ transcription failed (missing_api_key)", code: "missing_api_key")
        ) {
            try client.transcribe(wavPath: wav, session: nil)
        }
    }

    @Test func transientHQFailuresAreRetryableThenSucceed() throws {
        let box = try SimulatedBox {
            $0.hq = .flaky(2); $0.hqText = "third time"
        }
        let (client, _) = try paired(box)
        let wav = try box.wav(seconds: 0.2)
        for _ in 0..<2 {
            #expect {
                _ = try client.transcribe(wavPath: wav, session: nil)
            } throws: { error in
                (error as? BoxFailure)?.isRetryable == true && String(describing: error).contains("network_error")
            }
        }
        #expect(try client.transcribe(wavPath: wav, session: nil).text == "third time")
    }

    @Test func missingFileIsALocalDefinitiveError() throws {
        let box = try SimulatedBox()
        let (client, _) = try paired(box)
        #expect {
            _ = try client.transcribe(wavPath: "/nonexistent/seg-0001.wav", session: nil)
        } throws: { error in
            guard case BoxFailure.definitive(_, 0, let message, _) = error else { return false }
            return message.contains("/nonexistent/seg-0001.wav")
        }
        #expect(box.server.transcriptions.isEmpty)
    }

    @Test func tooLargeUploadIsRefusedDefinitively() throws {
        let box = try SimulatedBox { $0.maxBodyBytes = 200_000 }
        let (client, _) = try paired(box)
        let wav = try box.wav(seconds: 2)  // 384 kB
        #expect {
            _ = try client.transcribe(wavPath: wav, session: nil)
        } throws: { error in
            guard case BoxFailure.definitive(_, 413, _, _) = error else { return false }
            return true
        }
    }

    // MARK: a box that is down or answers garbage

    /// A refused connection is told apart from a lost answer: nothing reached the box, so what was owed to it (a
    /// message's HQ text) is still owed.
    @Test func boxThatIsDownIsUnreachableAndRetryable() throws {
        // A port nobody listens on: bound to learn a free one, then closed.
        let closed = try GarbageServer()
        closed.stop()
        let token = "device-token-that-must-not-leak"
        let client = BoxClient(baseURL: closed.baseURL, token: token)
        #expect {
            _ = try client.send(message: "x", messageId: MessageID.new(), session: nil)
        } throws: { error in
            guard let failure = error as? BoxFailure, failure.isRetryable, !failure.mayHaveReachedBox,
                case .unreachable = failure
            else { return false }
            return !String(describing: failure).contains(token)
        }
    }

    @Test func garbageAnswerIsUncertainNotSuccess() throws {
        let garbage = try GarbageServer()
        defer { garbage.stop() }
        let client = BoxClient(baseURL: garbage.baseURL, token: "t0k3n-secret")
        #expect {
            _ = try client.send(message: "x", messageId: MessageID.new(), session: nil)
        } throws: { error in
            guard let failure = error as? BoxFailure, failure.isRetryable, failure.mayHaveReachedBox else {
                return false
            }
            let text = String(describing: failure)
            return text.contains("could not be understood") && !text.contains("t0k3n-secret")
        }
        #expect(throws: BoxFailure.self) { try client.defaultSession() }
    }
}

final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(Int64, Int64)] = []
    func add(_ sent: Int64, _ total: Int64) { lock.withLock { entries.append((sent, total)) } }
    var last: (Int64, Int64)? { lock.withLock { entries.last } }
}
