import Foundation

/// A retranscription ("last audio") request (contract §7.1): the box asks for the recording behind a message.
public struct LastAudioRequest: Sendable, Equatable {
    public var requestId: String
    /// The box's string, echoed back byte-identical in the answer.
    public var messageId: String
    public var sessionId: String?

    public init(requestId: String, messageId: String, sessionId: String? = nil) {
        self.requestId = requestId
        self.messageId = messageId
        self.sessionId = sessionId
    }

    /// The id as one of this client's messages: only the canonical spelling can be one (contract §3), so any other
    /// string names a message held elsewhere.
    public var ownMessageId: MessageID? { MessageID(exactly: messageId) }

    public struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String { "not a valid last-audio request: \(reason)" }
    }

    /// Strict V1 relay shape `{"version":1,"requestId","messageId","sessionId": string|null}`:
    /// both ids required and non-blank, any other version rejected.
    public static func decodeV1(_ object: [String: JSONValue]) throws(Rejection) -> LastAudioRequest {
        guard case .integer(1)? = object["version"] else { throw Rejection(reason: "version must be 1") }
        let request = try decodeIds(object)
        switch object["sessionId"] {
        case nil, .null?:
            return request
        case .string(let session)?:
            return LastAudioRequest(requestId: request.requestId, messageId: request.messageId, sessionId: session)
        default:
            throw Rejection(reason: "sessionId must be a string or null")
        }
    }

    public static func decodeV1(_ data: Data) throws(Rejection) -> LastAudioRequest {
        guard let object = JSONValue.parse(data)?.object else { throw Rejection(reason: "it is not a JSON object") }
        return try decodeV1(object)
    }

    /// The event-stream shape `{"requestId","messageId"}` (`chat-last-audio-request`).
    public static func decodeEvent(_ object: [String: JSONValue]) throws(Rejection) -> LastAudioRequest {
        try decodeIds(object)
    }

    private static func decodeIds(_ object: [String: JSONValue]) throws(Rejection) -> LastAudioRequest {
        func id(_ name: String) throws(Rejection) -> String {
            guard let value = object[name]?.string else { throw Rejection(reason: "\(name) is missing") }
            guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw Rejection(reason: "\(name) is blank")
            }
            return value
        }
        let requestId = try id("requestId")
        guard isValidRequestId(requestId) else {
            throw Rejection(reason: "requestId must be 1 to 128 letters, digits, '-' or '_' (the box mints UUIDs)")
        }
        return LastAudioRequest(requestId: requestId, messageId: try id("messageId"))
    }

    /// The request id becomes a path segment of the answer's URL (`/api/chat/last-audio/:requestId`): a `..`, a `/`
    /// or a `%` would move the answer to another route, so only what a UUID (or a short opaque token) is made of
    /// passes.
    public static func isValidRequestId(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D
                    || $0 == 0x5F
            }
    }
}
