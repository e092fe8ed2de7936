import BoxVoiceTestSupport
import Foundation
import Synchronization
import Testing

/// Retranscription (§7.2) as the revised contract states it: the requester's route and the answer's, over the wire.
@Suite struct ConformanceLastAudioTests {
    /// Asks for a message's recording on a thread; `answer` is called with the request id as it reaches the client.
    private func ask(
        _ box: ConformanceBox, messageId: String, timeoutMs: Int = 5_000,
        answer: (String) throws -> Void
    ) throws -> RawHTTP.Response {
        let ws = try box.subscribed()
        let result = Mutex<RawHTTP.Response?>(nil)
        let done = DispatchSemaphore(value: 0)
        let port = box.port, prefix = box.prefix, bearer = box.bearer
        Thread {
            let response = try? RawHTTP.exchange(
                port: port, method: "POST", path: prefix + "/api/chat/last-audio/request",
                headers: [bearer, ("Content-Type", "application/json")],
                body: RawHTTP.json(["messageId": messageId, "timeoutMs": timeoutMs]))
            result.withLock { $0 = response }
            done.signal()
        }.start()
        let event = try #require(eventOf(ws.nextJSON()))
        try answer(try #require(event.data["requestId"] as? String))
        #expect(done.wait(timeout: .now() + 40) == .success)
        return try #require(result.withLock { $0 })
    }

    private func audioAnswer(
        _ box: ConformanceBox, _ requestId: String, messageId: String, text: String,
        fileType: String? = "audio/wav"
    ) throws -> RawHTTP.Response {
        let body = ConformanceBox.multipart([
            ("recordedAt", nil, nil, Array("2026-12-01T10:00:00Z".utf8)), ("text", nil, nil, Array(text.utf8)),
            ("messageId", nil, nil, Array(messageId.utf8)), ("sessionId", nil, nil, Array("s1".utf8)),
            ("file", "last-message.wav", fileType, try box.wavBytes(seconds: 0.2)),
        ])
        return try box.post(
            "/api/chat/last-audio/" + requestId, body: body,
            headers: [box.bearer, ("Content-Type", ConformanceBox.multipartType)])
    }

    @Test(arguments: [
        #"{"timeoutMs":"5000","messageId":"M"}"#, #"{"messageId":""}"#, "{}", #"{"timeoutMs":true,"messageId":"M"}"#,
    ])
    func aBadRequestIs400BadRequest(_ json: String) throws {
        let body = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        // §7.2: timeoutMs a JSON number; a non-number, or a missing or empty messageId → 400
        // {"error":"bad-request","message"}.
        let box = try ConformanceBox()
        let answer = try box.post("/api/chat/last-audio/request", json: body)
        #expect(
            answer.status == 400 && answer.json?["error"] as? String == "bad-request"
                && answer.json?["message"] is String, "\(answer)")
    }

    @Test func theAudioReachesTheRequesterWithItsHeaders() throws {
        // §7.2: the requester gets the audio body with X-Recorded-At, X-Message-Text, X-Message-Id, X-Session-Id.
        let box = try ConformanceBox()
        let result = try ask(box, messageId: "MSG-1") { requestId in
            let answered = try audioAnswer(box, requestId, messageId: "MSG-1", text: "héllo wörld")
            #expect(answered.json?["ok"] as? Bool == true)
        }
        #expect(result.status == 200 && result.headers["content-type"] == "audio/wav")
        #expect(result.headers["x-message-id"] == "MSG-1" && result.headers["x-session-id"] == "s1")
        #expect(result.headers["x-message-text"]?.removingPercentEncoding == "héllo wörld")
        #expect(result.headers["x-recorded-at"] == "2026-12-01T10:00:00Z")
    }

    @Test func theTextHeaderIsCutAtFifteenHundredUTF16Units() throws {
        // §7.2: X-Message-Text is text.slice(0, 1500) (UTF-16 code units).
        let box = try ConformanceBox()
        let text = String(repeating: "é", count: 1_600)
        let result = try ask(box, messageId: "CUT") { requestId in
            _ = try audioAnswer(box, requestId, messageId: "CUT", text: text)
        }
        #expect(result.headers["x-message-text"]?.removingPercentEncoding == String(repeating: "é", count: 1_500))
    }

    @Test func aCutInsideASurrogatePairGivesTheRequester500() throws {
        // §7.2: a cut inside a surrogate pair makes the encoding throw and the requester gets 500, not the recording.
        let box = try ConformanceBox()
        let text = String(repeating: "a", count: 1_499) + "😀"
        let result = try ask(box, messageId: "EMO") { requestId in
            _ = try audioAnswer(box, requestId, messageId: "EMO", text: text)
        }
        #expect(result.status == 500, "\(result)")
    }

    @Test func aFilePartWithoutATypeReachesTheRequesterAsTextPlain() throws {
        // §7.2: the requester gets the file part's Content-Type (text/plain when the part has none).
        let box = try ConformanceBox()
        let result = try ask(box, messageId: "NT") { requestId in
            _ = try audioAnswer(box, requestId, messageId: "NT", text: "t", fileType: nil)
        }
        #expect(result.headers["content-type"] == "text/plain", "\(result.headers)")
    }

    @Test func aMismatchedEchoIsIgnoredAndAnUnknownRequestIs404() throws {
        // §7.2: 200 {"ok":false,"ignored":true,…} when the echoed messageId did not match; 404
        // {"error":"unknown-request"}.
        let box = try ConformanceBox()
        let result = try ask(box, messageId: "ECHO", timeoutMs: 500) { requestId in
            let ignored = try audioAnswer(box, requestId, messageId: "echo", text: "t")
            #expect(
                ignored.status == 200 && ignored.json?["ignored"] as? Bool == true
                    && ignored.json?["ok"] as? Bool == false, "\(ignored)")
        }
        #expect(
            result.status == 504 && result.json?["error"] as? String == "no-client",
            "only an ignored answer came: \(result)")
        let unknown = try audioAnswer(box, UUID().uuidString.lowercased(), messageId: "ECHO", text: "t")
        #expect(unknown.status == 404 && unknown.json?["error"] as? String == "unknown-request")
    }

    @Test func noneStartsAGraceThenNoAudio() throws {
        // §7.2: a none never settles at once — after a grace as long as the timeout the requester gets 404 no-audio.
        let box = try ConformanceBox()
        let started = Date()
        let result = try ask(box, messageId: "NONE", timeoutMs: 400) { requestId in
            let none = try box.post("/api/chat/last-audio/" + requestId, json: ["none": true])
            #expect(none.json?["ok"] as? Bool == true)
        }
        #expect(result.status == 404 && result.json?["error"] as? String == "no-audio", "\(result)")
        #expect(Date().timeIntervalSince(started) >= 0.4)
    }

    @Test func aNoneMustBeJSON() throws {
        let box = try ConformanceBox()
        let answer = try box.post("/api/chat/last-audio/x", body: Array(#"{"none":true}"#.utf8), headers: [box.bearer])
        #expect(answer.status == 415, "\(answer)")
    }
}
