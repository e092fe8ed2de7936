import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceTestSupport
import Foundation
import Testing

/// Retranscription (contract §7.2): boxsim's pending semantics and the client's answers, over loopback.
@Suite struct LastAudioTests {
    let box: SimulatedBox
    let client: BoxClient

    init() throws {
        box = try SimulatedBox()
        let token = try BoxClient(baseURL: box.baseURL, token: nil).redeem(
            pairingToken: box.mintTicket(), deviceLabel: "t")
        Secrets.register(token)
        client = BoxClient(baseURL: box.baseURL, token: token)
    }

    private func requester(_ messageId: String, timeoutMs: Int) -> RetranscribeAgent {
        RetranscribeAgent(port: box.server.port, messageId: messageId, timeoutMs: timeoutMs)
    }

    /// Waits for the box to announce the next request.
    private func nextRequestId(after start: () -> Void) throws -> String {
        let seen = LastAudioRequestIds(box.server)
        start()
        return try #require(seen.first(within: 5))
    }

    /// A request id that would leave `/api/chat/last-audio/` (curl folds `..`) is not sent anywhere.
    @Test func anAnswerToARequestIdThatCouldLeaveTheRouteIsNeverSent() throws {
        let server = try GarbageServer(
            reply:
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: "
                + "close\r\n\r\n{\"ok\":true}"
        )
        defer { server.stop() }
        let hostile = BoxClient(baseURL: server.baseURL, token: "token-that-must-stay-home")
        for id in ["..", "../../chat/send", "a/b"] {
            #expect(throws: BoxFailure.self) { try hostile.answerLastAudio(requestId: id, .none) }
        }
        #expect(server.requests.isEmpty)
    }

    private func recording(text: String = "Buy milk tomorrow.") throws -> String {
        try box.wav(seconds: 1.5, name: "last-\(UUID().uuidString).wav")
    }

    @Test func matchingAudioWinsWithItsMetadataHeaders() throws {
        let message1 = MessageID.new()
        var outcome: RetranscribeAgent!
        let id = try nextRequestId { outcome = requester(message1.rawValue, timeoutMs: 5_000) }
        let wav = try recording()
        let result = try client.answerLastAudio(
            requestId: id,
            .audio(
                wavPath: wav, recordedAt: Date(timeIntervalSince1970: 1_700_000_000),
                text: "Buy milk & eggs, 100% sure", messageId: message1, sessionId: "session 7"))
        #expect(result == .settled)
        let response = try #require(outcome.wait())
        #expect(response.status == 200)
        #expect(response.header("content-type") == "audio/wav")
        #expect(response.header("x-message-id") == message1.rawValue)
        #expect(response.header("x-session-id") == "session%207")
        #expect(response.header("x-message-text")?.removingPercentEncoding == "Buy milk & eggs, 100% sure")
        #expect(response.header("x-recorded-at") == "2023-11-14T22:13:20.000Z")
        let file = box.directory.file("returned.wav")
        #expect(FileManager.default.createFile(atPath: file, contents: Data(response.body)))
        let returned = try SoundFile.open(path: file)
        #expect(returned.sampleRate == 48_000 && returned.isFloat32 && returned.frames == 72_000)
        // A later answer is normal, not an error.
        #expect(try client.answerLastAudio(requestId: id, .none) == .unknownRequest)
    }

    @Test func noneThenAudioStillWins() throws {
        let message2 = MessageID.new()
        var outcome: RetranscribeAgent!
        let id = try nextRequestId { outcome = requester(message2.rawValue, timeoutMs: 2_000) }
        #expect(try client.answerLastAudio(requestId: id, .none) == .settled)  // accepted, not settling
        Thread.sleep(forTimeInterval: 0.3)
        let wav = try recording()
        #expect(
            try client.answerLastAudio(
                requestId: id, .audio(wavPath: wav, recordedAt: Date(), text: "x", messageId: message2, sessionId: nil))
                == .settled)
        #expect(try #require(outcome.wait()).status == 200)
    }

    @Test func aWrongEchoedMessageIdIsIgnoredAndTheRequestKeepsWaiting() throws {
        let message3 = MessageID.new()
        var outcome: RetranscribeAgent!
        let id = try nextRequestId { outcome = requester(message3.rawValue, timeoutMs: 400) }
        let wav = try recording()
        #expect(
            try client.answerLastAudio(
                requestId: id,
                .audio(wavPath: wav, recordedAt: Date(), text: "x", messageId: MessageID.new(), sessionId: nil))
                == .ignored)
        #expect(try client.answerLastAudio(requestId: id, .none) == .settled)
        let started = Date()
        let response = try #require(outcome.wait())
        #expect(response.status == 404)
        #expect(String(decoding: response.body, as: UTF8.self).contains("no-audio"))
        #expect(Date().timeIntervalSince(started) >= 0.3)  // the grace window after the first none
    }

    @Test func nobodyAnsweringIs504NoClient() throws {
        let outcome = requester("MSG-4", timeoutMs: 150)
        let response = try #require(outcome.wait())
        #expect(response.status == 504)
        #expect(String(decoding: response.body, as: UTF8.self).contains("no-client"))
    }

    @Test func answeringAnUnknownRequestIsNormal() throws {
        #expect(try client.answerLastAudio(requestId: "no-such-request", .none) == .unknownRequest)
    }

    @Test func aMalformedAnswerIsRefused() throws {
        var outcome: RetranscribeAgent!
        let id = try nextRequestId { outcome = requester("MSG-5", timeoutMs: 300) }
        let response = try HTTPTransfer.perform(
            HTTPRequest(
                method: .post, url: box.baseURL + "/api/chat/last-audio/" + id,
                headers: [("Authorization", "Bearer \(try tokenOfClient())")],
                body: .bytes(Data(#"{"none":false}"#.utf8), contentType: "application/json")))
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("bad-answer"))
        #expect(try #require(outcome.wait()).status == 504)
    }

    @Test func longTextIsCutTo1500CharactersInTheHeader() throws {
        let message6 = MessageID.new()
        var outcome: RetranscribeAgent!
        let id = try nextRequestId { outcome = requester(message6.rawValue, timeoutMs: 5_000) }
        let wav = try recording()
        let long = String(repeating: "é", count: 2_000)
        _ = try client.answerLastAudio(
            requestId: id, .audio(wavPath: wav, recordedAt: Date(), text: long, messageId: message6, sessionId: nil))
        let response = try #require(outcome.wait())
        let header = try #require(response.header("x-message-text")?.removingPercentEncoding)
        #expect(header.count == 1_500)
    }

    private func tokenOfClient() throws -> String {
        try #require(box.server.devices.last?.token)
    }
}
