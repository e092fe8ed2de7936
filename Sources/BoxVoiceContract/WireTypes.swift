import Foundation

/// Bodies the box sends and receives (contract §1, §2, §5, §6, §7), decoded strictly enough to notice garbage.
public enum Wire {
    /// Why a body could not be understood.
    public struct DecodingFailure: Error, Sendable, Equatable, CustomStringConvertible {
        public let what: String
        public let reason: String
        public var description: String { "the box's \(what) could not be understood: \(reason)" }
    }

    static func object(_ data: Data, _ what: String) throws(DecodingFailure) -> [String: JSONValue] {
        guard let parsed = JSONValue.parse(data) else {
            throw DecodingFailure(
                what: what,
                reason:
                    "not JSON (\(data.count) bytes starting "
                    + "\(String(decoding: data.prefix(40), as: UTF8.self).debugDescription))"
            )
        }
        guard let object = parsed.object else {
            throw DecodingFailure(what: what, reason: "not a JSON object")
        }
        return object
    }

    /// `POST /api/pairing/redeem` 200: only `token` matters (the vector's `ignoredByClient` fields are not read).
    public static func redeemToken(_ data: Data) throws(DecodingFailure) -> String {
        let body = try object(data, "pairing answer")
        guard let token = body["token"]?.string, !token.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw DecodingFailure(what: "pairing answer", reason: "it holds no device token")
        }
        return token
    }

    /// `GET /api/chat/default` 200: the session to dictate into, or nil for "start a new one".
    public static func defaultSession(_ data: Data) throws(DecodingFailure) -> String? {
        let body = try object(data, "default-session answer")
        switch body["sessionId"] {
        case nil, .null?: return nil
        case .string(let id)?: return id.isEmpty ? nil : id
        default: throw DecodingFailure(what: "default-session answer", reason: "sessionId is neither a string nor null")
        }
    }

    /// `POST /api/chat/transcribe-audio` 200.
    public struct Transcription: Sendable, Equatable {
        public var text: String
        public var diarized: Bool
        /// The engine the box used; absent on older boxes.
        public var service: String?

        public init(text: String, diarized: Bool = false, service: String? = nil) {
            self.text = text
            self.diarized = diarized
            self.service = service
        }
    }

    public static func transcription(_ data: Data) throws(DecodingFailure) -> Transcription {
        let body = try object(data, "transcription")
        guard let text = body["text"]?.string else {
            throw DecodingFailure(what: "transcription", reason: "it has no text")
        }
        return Transcription(
            text: text, diarized: body["diarized"]?.bool ?? false, service: body["service"]?.string)
    }

    /// The 500 body of a failed transcription: `{"error", "permanent", "code"?}`.
    public struct HQError: Sendable, Equatable {
        public var message: String
        public var permanent: Bool
        public var code: String?
    }

    public static func hqError(_ data: Data) -> HQError? {
        guard let body = try? object(data, "transcription error"), let message = body["error"]?.string else {
            return nil
        }
        return HQError(message: message, permanent: body["permanent"]?.bool ?? false, code: body["code"]?.string)
    }

    /// `{"error": …}` of any 4xx/5xx, for messages.
    public static func errorMessage(_ data: Data) -> (message: String, code: String?)? {
        guard let body = try? object(data, "error"), let message = body["error"]?.string else { return nil }
        return (message, body["code"]?.string)
    }

    /// `POST /api/chat/send` 200: every shape means the box has the message durably.
    public enum SendAcceptance: Sendable, Equatable {
        case started(turnId: String)
        case queued
        case deduplicated
    }

    public static func sendAcceptance(_ data: Data) throws(DecodingFailure) -> SendAcceptance {
        let body = try object(data, "send answer")
        if body["deduplicated"]?.bool == true { return .deduplicated }
        if body["queued"]?.bool == true { return .queued }
        guard let turnId = body["turnId"]?.plainText else {
            throw DecodingFailure(what: "send answer", reason: "it is none of turnId, queued or deduplicated")
        }
        return .started(turnId: turnId)
    }

    /// The `POST /api/chat/send` body. `channel` is never sent: only the box's own clients may name one.
    struct SendRequest: Encodable {
        let message: String
        let messageId: String
        let session: String
        /// Absent unless true.
        let exactSession: Bool?
    }

    /// The `POST /api/pairing/redeem` body.
    struct RedeemRequest: Encodable {
        let pairingToken: String
        let deviceLabel: String
    }

    /// A request body as the box's clients write it: keys sorted, slashes as they are.
    static func encoded(_ body: some Encodable) -> Data { JSONValue.encoded(body) }

    public static func sendBody(message: String, messageId: MessageID, session: String?, exactSession: Bool = false)
        -> Data
    {
        encoded(
            SendRequest(
                message: message, messageId: messageId.rawValue, session: session ?? "new",
                exactSession: exactSession ? true : nil))
    }

    public static func redeemBody(pairingToken: String, deviceLabel: String) -> Data {
        encoded(RedeemRequest(pairingToken: pairingToken, deviceLabel: deviceLabel))
    }

    /// What a last-audio answer settled (§7.2).
    public enum LastAudioAnswerOutcome: Sendable, Equatable {
        /// `{"ok":true}`: this answer settled the request.
        case settled
        /// `{"ok":false,"ignored":true}`: the echoed messageId did not match — a silent failure worth logging loudly.
        case ignored
        /// 404 `unknown-request`: another answer won or time ran out; normal.
        case unknownRequest
    }

    public static func lastAudioAnswerOutcome(_ data: Data) throws(DecodingFailure) -> LastAudioAnswerOutcome {
        let body = try object(data, "last-audio answer")
        if body["ok"]?.bool == true { return .settled }
        if body["ignored"]?.bool == true { return .ignored }
        throw DecodingFailure(what: "last-audio answer", reason: "neither ok nor ignored")
    }
}
