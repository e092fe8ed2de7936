import Foundation

/// Retranscription requests and answers (contract §7.2).
extension BoxSimServer {
    // MARK: §7.2 last audio

    /// Subscribes to the box's transient events; returns a token for `unsubscribe`.
    public func subscribeEvents(_ handler: @escaping @Sendable (String, [String: String]) -> Void) -> Int {
        eventSink.add(handler)
    }

    public func unsubscribeEvents(_ token: Int) { eventSink.remove(token) }

    func requestLastAudio(body: [UInt8]) -> SimResponse {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
              let messageId = object["messageId"] as? String, !messageId.isEmpty else {
            return .json(400, ["error": "bad-request", "message": "messageId is required"])
        }
        let requested = (object["timeoutMs"] as? NSNumber)?.doubleValue ?? 10_000
        let timeout = min(max(requested, 100), 30_000) / 1_000
        let requestId = lastAudio.create(messageId: messageId, timeout: timeout)
        eventSink.emit("chat-last-audio-request", ["requestId": requestId, "messageId": messageId])
        switch lastAudio.wait(requestId) {
        case .timeout:
            return .json(504, ["error": "no-client", "message": "No client answered; one may not be connected right now. Try again later."])
        case .none:
            return .json(404, ["error": "no-audio", "message": "No recording is held for this message. Other messages may still have audio."])
        case .audio(let answer):
            var headers: [(String, String)] = [("Content-Type", answer.contentType)]
            if let recordedAt = answer.recordedAt { headers.append(("X-Recorded-At", recordedAt)) }
            if let text = answer.text { headers.append(("X-Message-Text", Self.percentEncode(String(text.prefix(1_500))))) }
            if let id = answer.messageId { headers.append(("X-Message-Id", Self.percentEncode(id))) }
            if let session = answer.sessionId { headers.append(("X-Session-Id", Self.percentEncode(session))) }
            return SimResponse(status: 200, headers: headers, body: answer.audio)
        }
    }

    func answerLastAudio(requestId: String, _ request: SimRequest) -> SimResponse {
        let contentType = request.header("content-type") ?? ""
        if contentType.lowercased().hasPrefix("multipart/") {
            guard let form = try? MultipartForm(body: request.body, contentType: contentType),
                  let fileIndex = form.parts.firstIndex(where: { $0.filename != nil }) else {
                return .json(400, ["error": "No audio uploaded"])
            }
            // Fields count only before the file part, as on the box.
            let fields = form.parts[..<fileIndex]
            func field(_ name: String) -> String? { fields.last { $0.name == name }.map { String(decoding: $0.body, as: UTF8.self) } }
            let file = form.parts[fileIndex]
            let answer = LastAudioPending.Fulfillment(audio: Array(file.body), contentType: file.contentType ?? "application/octet-stream",
                                                      recordedAt: field("recordedAt"), text: field("text"),
                                                      messageId: field("messageId"), sessionId: field("sessionId"))
            switch lastAudio.fulfill(requestId, answer) {
            case .delivered: return .json(200, ["ok": true])
            case .ignored: return .json(200, ["ok": false, "ignored": true, "message": "messageId did not match the pending request's target"])
            case .unknown: return .json(404, ["error": "unknown-request"])
            }
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any], object["none"] as? Bool == true else {
            return .json(400, ["error": "bad-answer", "message": "Expected multipart audio or {\"none\": true}"])
        }
        return lastAudio.reportNone(requestId) ? .json(200, ["ok": true]) : .json(404, ["error": "unknown-request"])
    }

    /// encodeURIComponent: everything but A–Z a–z 0–9 - _ . ! ~ * ' ( ) is escaped.
    static func percentEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-_.!~*'()")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
