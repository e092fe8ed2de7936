import BoxVoiceContract
import Foundation
import Testing

@Suite struct PairingLinkTests {
    @Test func plusIsASpaceAndPercentEscapesDecode() throws {
        let link = try PairingLink.parse(
            "beebox://pair?baseURL=https%3A%2F%2Fbox.example%2Fmain&label=Home+Box%21&token=a%2Bb")
        #expect(link.label == "Home Box!")
        #expect(link.pairingToken == "a+b")
    }

    @Test(arguments: ["https://pair?baseURL=http://x", "beebox://unpair?baseURL=http://x", "hello", ""])
    func otherLinksAreNotPairingLinks(_ text: String) {
        #expect(throws: PairingLink.Rejection.notAPairingLink) { try PairingLink.parse(text) }
    }

    @Test func aSchemeWithoutHostIsRejected() {
        #expect(throws: PairingLink.Rejection.invalidBaseURL("http://")) {
            try PairingLink.parse("beebox://pair?baseURL=http%3A%2F%2F")
        }
    }

    @Test func baseURLWinsOverItsAlias() throws {
        #expect(
            try PairingLink.parse("beebox://pair?url=http://a.example&baseURL=http://b.example").baseURL
                == "http://b.example")
    }
}

@Suite struct WireTests {
    @Test func sendAcceptanceHasThreeShapes() throws {
        #expect(try Wire.sendAcceptance(Data(#"{"turnId":"t-1"}"#.utf8)) == .started(turnId: "t-1"))
        #expect(try Wire.sendAcceptance(Data(#"{"turnId":17}"#.utf8)) == .started(turnId: "17"))
        #expect(try Wire.sendAcceptance(Data(#"{"queued":true}"#.utf8)) == .queued)
        #expect(try Wire.sendAcceptance(Data(#"{"deduplicated":true}"#.utf8)) == .deduplicated)
        #expect(throws: Wire.DecodingFailure.self) { try Wire.sendAcceptance(Data(#"{"ok":true}"#.utf8)) }
        #expect(throws: Wire.DecodingFailure.self) { try Wire.sendAcceptance(Data("<html>".utf8)) }
    }

    @Test func sendBodyNamesNoChannelAndDefaultsToANewSession() throws {
        let body =
            try JSONSerialization.jsonObject(
                with: Wire.sendBody(message: "hi", messageId: MessageID.new(), session: nil))
            as? [String: Any]
        #expect(body?["session"] as? String == "new")
        #expect(body?["channel"] == nil)
        #expect(body?["exactSession"] == nil)
        let exact =
            try JSONSerialization.jsonObject(
                with: Wire.sendBody(message: "hi", messageId: MessageID.new(), session: "s1", exactSession: true))
            as? [String: Any]
        #expect(exact?["exactSession"] as? Bool == true)
    }

    @Test func transcriptionServiceMayBeAbsent() throws {
        #expect(
            try Wire.transcription(Data(#"{"text":"hi","diarized":true,"service":"voxtral"}"#.utf8))
                == .init(text: "hi", diarized: true, service: "voxtral"))
        #expect(try Wire.transcription(Data(#"{"text":"hi","diarized":false}"#.utf8)) == .init(text: "hi"))
        #expect(throws: Wire.DecodingFailure.self) { try Wire.transcription(Data(#"{"txt":"hi"}"#.utf8)) }
    }

    @Test func defaultSessionAbsentOrNullMeansNew() throws {
        #expect(try Wire.defaultSession(Data(#"{"sessionId":"s9"}"#.utf8)) == "s9")
        #expect(try Wire.defaultSession(Data(#"{"sessionId":null}"#.utf8)) == nil)
        #expect(try Wire.defaultSession(Data("{}".utf8)) == nil)
        #expect(throws: Wire.DecodingFailure.self) { try Wire.defaultSession(Data(#"{"sessionId":4}"#.utf8)) }
    }

    @Test func redeemWithoutTokenIsGarbage() {
        #expect(throws: Wire.DecodingFailure.self) { try Wire.redeemToken(Data(#"{"deviceId":"x"}"#.utf8)) }
    }

    @Test func lastAudioAnswerOutcomes() throws {
        #expect(try Wire.lastAudioAnswerOutcome(Data(#"{"ok":true}"#.utf8)) == .settled)
        #expect(
            try Wire.lastAudioAnswerOutcome(Data(#"{"ok":false,"ignored":true,"reason":"message-mismatch"}"#.utf8))
                == .ignored)
    }

    @Test func lastAudioEventNeedsBothIds() throws {
        #expect(
            try LastAudioRequest.decodeEvent(["requestId": "r", "messageId": "m"])
                == LastAudioRequest(requestId: "r", messageId: "m"))
        #expect(throws: LastAudioRequest.Rejection.self) { try LastAudioRequest.decodeEvent(["requestId": "r"]) }
        #expect(throws: LastAudioRequest.Rejection.self) {
            try LastAudioRequest.decodeV1(["version": true, "requestId": "r", "messageId": "m"])
        }
        #expect(throws: LastAudioRequest.Rejection.self) {
            try LastAudioRequest.decodeV1(["version": 1, "requestId": "r", "messageId": "m", "sessionId": 5])
        }
    }

    /// The request id is a path segment of the answer's URL: anything that could move the answer to another route
    /// (curl folds `..`; `/`, `%`, `?` and `#` change the path) is refused where the request is read.
    @Test(arguments: [
        "..", ".", "../send", "a/b", "%2e%2e", "x?y", "x#y", "a b", String(repeating: "a", count: 129), "é",
    ])
    func requestIdsThatCouldLeaveTheAnswerRouteAreRefused(id: String) {
        #expect(throws: LastAudioRequest.Rejection.self) {
            try LastAudioRequest.decodeEvent(["requestId": .string(id), "messageId": "m"])
        }
        #expect(throws: LastAudioRequest.Rejection.self) {
            try LastAudioRequest.decodeV1(["version": 1, "requestId": .string(id), "messageId": "m"])
        }
    }

    @Test func uuidRequestIdsAndShortTokensPass() throws {
        let uuid = UUID().uuidString.lowercased()
        #expect(try LastAudioRequest.decodeEvent(["requestId": .string(uuid), "messageId": "m"]).requestId == uuid)
        #expect(
            try LastAudioRequest.decodeEvent(["requestId": "req-7f3c_1", "messageId": "m"]).requestId == "req-7f3c_1")
    }
}

@Suite struct SpeechFramingTests {
    static let id = MessageID.new()

    /// What people read: the words as said, without the frame or the command tags' markup.
    @Test(arguments: [
        (
            "<speech stt=\"live\" message-id=\"B\" local-time=\"00:00\">Buy milk. "
                + "<send-message phrase=\"Send message\" heard=\"live\" />.</speech>", "Buy milk. Send message."
        ),
        (
            "Buy milk <send-checkpoint-message phrase=\"commit &quot;checkpoint&quot;\" />",
            "Buy milk commit \"checkpoint\""
        ),
        ("a & b <b>bold</b>", "a & b <b>bold</b>"),
        ("", ""),
    ])
    func aMessageReadsAsSaid(_ message: String, _ said: String) {
        #expect(SpeechFraming.asSaid(message) == said)
    }

    @Test func hqFrameNamesItsServiceAndNoStt() {
        let framed = SpeechFraming.frame(
            "Buy milk tomorrow <send-message phrase=\"send message\" />",
            origin: .hq(service: "whisper", diarized: false), messageId: Self.id, localTime: (14, 23))
        #expect(
            framed
                == "<speech stt-service=\"whisper\" message-id=\"\(Self.id)\" local-time=\"14:23\">Buy milk tomorrow "
                + "<send-message phrase=\"send message\" /></speech>"
        )
    }

    @Test func diarizedHQAddsTheFlagAfterTheService() {
        #expect(
            SpeechFraming.frame(
                "x", origin: .hq(service: "mai-diarized", diarized: true), messageId: Self.id, localTime: (9, 5))
                == "<speech stt-service=\"mai-diarized\" diarized=\"1\" message-id=\"\(Self.id)\" "
                + "local-time=\"09:05\">x</speech>"
        )
    }

    @Test func liveFrameSaysSttLiveAndNoService() {
        #expect(
            SpeechFraming.frame("a & b", origin: .live, messageId: Self.id, localTime: (0, 0))
                == "<speech stt=\"live\" message-id=\"\(Self.id)\" local-time=\"00:00\">a & b</speech>")
    }

    @Test func olderBoxWithoutServiceOmitsIt() {
        #expect(
            SpeechFraming.frame(
                "x", origin: .hq(service: nil, diarized: false), messageId: Self.id, localTime: (23, 59))
                == "<speech message-id=\"\(Self.id)\" local-time=\"23:59\">x</speech>")
    }

    @Test func messageIdsAreUppercaseUUIDs() {
        let id = MessageID.new().rawValue
        #expect(UUID(uuidString: id) != nil)
        #expect(id == id.uppercased())
        #expect(MessageID.new().rawValue != id)
        #expect(MessageID(parsing: id.lowercased())?.rawValue == id)
        #expect(MessageID(exactly: id.lowercased()) == nil, "a box's request must match byte for byte")
    }

    @Test func localTimeUsesTheGivenZone() throws {
        let date = Date(timeIntervalSince1970: 3_600 * 13 + 60 * 7)  // 13:07 UTC
        let zone = try #require(TimeZone(secondsFromGMT: 2 * 3_600))
        let time = SpeechFraming.localTime(of: date, in: zone)
        #expect(time.hour == 15 && time.minute == 7)
    }
}

@Suite struct BoxFailureTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func statusesSortIntoWhatToDo() {
        #expect(BoxFailure.classify(operation: "send", status: 200, body: []) == nil)
        #expect(
            BoxFailure.classify(operation: "send", status: 401, body: bytes(#"{"error":"Not authenticated"}"#))
                == .unauthorized(operation: "send"))
        #expect(
            BoxFailure.classify(
                operation: "send", status: 410, body: bytes(#"{"error":"gone","code":"CHAT_SESSION_UNAVAILABLE"}"#))
                == .definitive(operation: "send", status: 410, message: "gone", code: "CHAT_SESSION_UNAVAILABLE"))
        #expect(
            BoxFailure.classify(operation: "send", status: 503, body: bytes("<html>busy</html>"))?.isRetryable == true)
        #expect(BoxFailure.classify(operation: "send", status: 302, body: [])?.isRetryable == false)
    }

    @Test func hqFailuresArePermanentOnlyWhenTheBoxSaysSo() {
        let permanent = BoxFailure.classify(
            operation: "transcribe", status: 500,
            body: bytes(#"{"error":"no key","permanent":true,"code":"missing_api_key"}"#), hq: true)
        #expect(permanent == .permanentHQ(message: "no key", code: "missing_api_key"))
        let transient = BoxFailure.classify(
            operation: "transcribe", status: 500,
            body: bytes(#"{"error":"timeout","permanent":false,"code":"network_error"}"#), hq: true)
        #expect(transient?.isRetryable == true)
        #expect(String(describing: transient!).contains("network_error"))
    }

    @Test func unauthorizedSaysRePair() {
        #expect(BoxFailure.unauthorized(operation: "send").description.contains("boxvoice pair"))
    }
}
