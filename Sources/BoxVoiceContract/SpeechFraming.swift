import Foundation

/// The `<speech …>BODY</speech>` frame a voice message is sent in (contract §3).
public enum SpeechFraming {
    /// Where the body's text came from.
    public enum Origin: Sendable, Equatable {
        /// The box's HQ transcript; `service` is the engine it reported (absent on older boxes).
        case hq(service: String?, diarized: Bool)
        /// Anything else: the live recognizer's text (HQ failed, timed out, was skipped, or there was no recording).
        case live
    }

    /// Attributes in the contract's order: `stt`, `stt-service`, `diarized`, `message-id`, `local-time`.
    /// The body is not escaped: it may hold keyword tags.
    public static func frame(_ body: String, origin: Origin, messageId: MessageID, localTime: (hour: Int, minute: Int))
        -> String
    {
        var attributes = ""
        switch origin {
        case .live:
            attributes += " stt=\"live\""
        case .hq(let service, let diarized):
            if let service, !service.isEmpty { attributes += " stt-service=\"\(escape(service))\"" }
            if diarized { attributes += " diarized=\"1\"" }
        }
        attributes += " message-id=\"\(messageId.rawValue)\""
        attributes += String(format: " local-time=\"%02d:%02d\"", localTime.hour, localTime.minute)
        return "<speech\(attributes)>\(body)</speech>"
    }

    /// The local 24-hour clock time of `date`.
    public static func localTime(of date: Date, in timeZone: TimeZone = .current) -> (hour: Int, minute: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return (parts.hour ?? 0, parts.minute ?? 0)
    }

    /// A message as the user said it, for people to read: the `<speech …>` frame taken off and each command tag
    /// (`<send-message phrase="…" />`) given back as its phrase. The box gets the framing; a screen, a
    /// notification or a listing shows the words (`--raw` and `--json` keep the framing).
    public static func asSaid(_ message: String) -> String {
        var text = message
        if text.hasPrefix("<speech"), text.hasSuffix("</speech>"), let open = text.firstIndex(of: ">") {
            text = String(text[text.index(after: open)..<text.index(text.endIndex, offsetBy: -"</speech>".count)])
        }
        let tag = #/<[a-z][a-z-]* phrase="([^"]*)"(?: [a-z-]+="[^"]*")* ?/>/#
        return text.replacing(tag) { match in
            String(match.output.1).replacingOccurrences(of: "&quot;", with: "\"")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
