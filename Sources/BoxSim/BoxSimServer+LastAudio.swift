import BoxVoiceContract
import Foundation

/// Retranscription requests and answers (contract §7.2).
extension BoxSimServer {
    // MARK: §7.2 last audio

    /// Subscribes to the box's transient events; returns a token for `unsubscribe`.
    public func subscribeEvents(_ handler: @escaping @Sendable (String, [String: String]) -> Void) -> Int {
        eventSink.add(handler)
    }

    public func unsubscribeEvents(_ token: Int) { eventSink.remove(token) }

    func requestLastAudio(_ body: RequestBody) -> SimResponse {
        guard let object = body.object, let messageId = object["messageId"]?.string, !messageId.isEmpty else {
            return .json(400, ["error": "bad-request", "message": "messageId must be a non-empty string"])
        }
        var requested = 10_000.0
        if let value = object["timeoutMs"] {
            guard let number = value.double, number.isFinite else {
                return .json(400, ["error": "bad-request", "message": "timeoutMs must be a number"])
            }
            requested = number
        }
        let timeout = min(max(requested, 100), 30_000) / 1_000
        let requestId = lastAudio.create(messageId: messageId, timeout: timeout)
        eventSink.emit("chat-last-audio-request", ["requestId": requestId, "messageId": messageId])
        switch lastAudio.wait(requestId) {
        case .timeout:
            return .json(
                504,
                [
                    "error": "no-client",
                    "message": "No client answered; one may not be connected right now. Try again later.",
                ])
        case .none:
            return .json(
                404,
                [
                    "error": "no-audio",
                    "message": "No recording is held for this message. Other messages may still have audio.",
                ])
        case .audio(let answer):
            var headers: [(String, String)] = [("Content-Type", answer.contentType)]
            if let recordedAt = answer.recordedAt { headers.append(("X-Recorded-At", recordedAt)) }
            if let text = answer.text {
                // `text.slice(0, 1500)` counts UTF-16 code units; a cut inside a surrogate pair leaves a lone half,
                // which encodeURIComponent refuses: the requester gets 500, not the recording.
                let units = Array(text.utf16.prefix(1_500))
                guard let cut = String(utf16CodeUnits: units, count: units.count) as String?,
                    !Self.endsInLoneSurrogate(units)
                else {
                    return .json(500, ["error": "Internal server error"])
                }
                headers.append(("X-Message-Text", Self.percentEncode(cut)))
            }
            if let id = answer.messageId { headers.append(("X-Message-Id", Self.percentEncode(id))) }
            if let session = answer.sessionId { headers.append(("X-Session-Id", Self.percentEncode(session))) }
            return SimResponse(status: 200, headers: headers, body: answer.audio)
        }
    }

    static func endsInLoneSurrogate(_ units: [UInt16]) -> Bool {
        guard let last = units.last else { return false }
        return UTF16.isLeadSurrogate(last)
    }

    func answerLastAudio(requestId: String, _ request: SimRequest, _ body: RequestBody) -> SimResponse {
        if case .multipart(let contentType) = body {
            guard let form = try? MultipartForm(body: request.body, contentType: contentType) else {
                return .json(500, ["error": "Internal server error"])
            }
            guard let fileIndex = form.parts.firstIndex(where: \.isFile) else {
                return .json(400, ["error": "No audio uploaded"])
            }
            // Fields count only before the file part, as on the box.
            let fields = form.parts[..<fileIndex]
            func field(_ name: String) -> String? {
                fields.last { $0.name == name }.map { String(decoding: $0.body, as: UTF8.self) }
            }
            let file = form.parts[fileIndex]
            // The requester gets the part's type; a part without one reads as text/plain.
            let answer = LastAudioPending.Fulfillment(
                audio: Array(file.body), contentType: file.contentType ?? "text/plain",
                recordedAt: field("recordedAt"), text: field("text"),
                messageId: field("messageId"), sessionId: field("sessionId"))
            switch lastAudio.fulfill(requestId, answer) {
            case .delivered: return .json(200, ["ok": true])
            case .ignored:
                return .json(
                    200,
                    ["ok": false, "ignored": true, "message": "messageId did not match the pending request's target"])
            case .unknown: return .json(404, ["error": "unknown-request"])
            }
        }
        guard body.object?["none"]?.bool == true else {
            return .json(400, ["error": "bad-answer", "message": "Expected multipart audio or {\"none\": true}"])
        }
        return lastAudio.reportNone(requestId) ? .json(200, ["ok": true]) : .json(404, ["error": "unknown-request"])
    }

    /// encodeURIComponent: everything but A–Z a–z 0–9 - _ . ! ~ * ' ( ) is escaped.
    static func percentEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-_.!~*'()")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
