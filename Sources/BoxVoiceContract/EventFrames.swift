import Foundation

/// The box's event WebSocket, tRPC v11 style (contract §7.1): what a client sends and how to read what arrives.
public enum EventFrames {
    /// The subscription id boxvoice uses (one subscription per connection).
    public static let subscriptionId = 1
    /// The keep-alive exchange is raw text, not JSON.
    public static let ping = "PING"
    public static let pong = "PONG"

    /// The one request boxvoice sends: subscribe, from `lastEventId` when it has seen events before.
    struct SubscribeRequest: Encodable {
        struct Params: Encodable {
            var path = "events.subscribe"
            var lastEventId: String?
        }
        var id = EventFrames.subscriptionId
        var method = "subscription"
        var params: Params
    }

    public static func subscribe(lastEventId: String?) -> String {
        String(decoding: JSONValue.encoded(SubscribeRequest(params: .init(lastEventId: lastEventId))), as: UTF8.self)
    }

    public static let stop = #"{"id":1,"method":"subscription.stop"}"#

    /// One frame from the server, understood.
    public enum Incoming: Sendable, Equatable {
        case ping
        case started(id: Int?)
        case stopped(id: Int?)
        /// An event; `trackedId` is set for stored (replayable) events.
        case event(name: String, data: [String: String], body: [String: JSONValue], trackedId: String?)
        case error(id: Int?, message: String, httpStatus: Int?)
        /// Anything else: logged, never fatal.
        case unknown(String)
    }

    public static func parse(_ text: String) -> Incoming {
        if text == ping { return .ping }
        guard let object = JSONValue.parse(text)?.object else { return .unknown(text) }
        let id = object["id"]?.integer
        if let error = object["error"]?.object {
            return .error(
                id: id, message: error["message"]?.string ?? "unknown error",
                httpStatus: error["data"]?.object?["httpStatus"]?.integer)
        }
        guard let result = object["result"]?.object, let type = result["type"]?.string else {
            return .unknown(text)
        }
        switch type {
        case "started": return .started(id: id)
        case "stopped": return .stopped(id: id)
        case "data":
            guard var payload = result["data"]?.object else { return .unknown(text) }
            var trackedId = result["id"]?.plainText
            // Stored events come wrapped: {"id": "<n>", "data": {event, data}}.
            if payload["event"] == nil, let inner = payload["data"]?.object {
                trackedId = trackedId ?? payload["id"]?.plainText
                payload = inner
            }
            guard let name = payload["event"]?.string else { return .unknown(text) }
            let body = payload["data"]?.object ?? [:]
            return .event(name: name, data: body.compactMapValues(\.string), body: body, trackedId: trackedId)
        default:
            return .unknown(text)
        }
    }

    // MARK: server side (boxsim)

    /// A request id as the client sent it: tRPC echoes numbers as numbers and strings as strings, and keeps them
    /// apart (`1` and `"1"` are two ids).
    public enum RequestID: Hashable, Sendable, CustomStringConvertible {
        case number(Int)
        case string(String)

        init?(json value: JSONValue?) {
            switch value {
            case .string(let text)?: self = .string(text)
            case let number? where number.integer != nil: self = .number(number.integer!)
            default: return nil
            }
        }

        var json: JSONValue {
            switch self {
            case .number(let value): .integer(value)
            case .string(let value): .string(value)
            }
        }

        public var description: String {
            switch self {
            case .number(let value): String(value)
            case .string(let value): value
            }
        }
    }

    /// Where an answer goes: the request's id (or none, for a frame that could not be read) and whether the request
    /// carried `"jsonrpc":"2.0"`, which every answer to it then repeats.
    public struct Reply: Hashable, Sendable {
        public var id: RequestID?
        public var jsonrpc: Bool

        public init(id: RequestID?, jsonrpc: Bool = false) {
            self.id = id
            self.jsonrpc = jsonrpc
        }

        /// A server frame for this reply: its id (null when there is none) and the request's `jsonrpc`, beside
        /// `result` or `error`.
        func frame(result: ServerResult? = nil, error: ServerError? = nil) -> String {
            let frame = ServerFrame(id: id?.json ?? .null, jsonrpc: jsonrpc ? "2.0" : nil, result: result, error: error)
            return String(decoding: JSONValue.encoded(frame), as: UTF8.self)
        }
    }

    /// What the box sends on a subscription, as tRPC frames it.
    struct ServerFrame: Encodable {
        /// Encoded even when null: tRPC answers an unreadable request with `"id": null`.
        var id: JSONValue
        var jsonrpc: String?
        var result: ServerResult?
        var error: ServerError?

        enum CodingKeys: String, CodingKey { case id, jsonrpc, result, error }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encodeIfPresent(jsonrpc, forKey: .jsonrpc)
            try container.encodeIfPresent(result, forKey: .result)
            try container.encodeIfPresent(error, forKey: .error)
        }
    }

    struct ServerResult: Encodable {
        var type: String
        /// A stored event's id (its tracked envelope carries it again inside).
        var id: String?
        var data: ServerData?
    }

    /// An event's payload, bare (transient) or in the tracked envelope of a stored event.
    enum ServerData: Encodable {
        case event(EventPayload)
        case tracked(id: String, data: EventPayload)

        enum CodingKeys: String, CodingKey { case id, data }

        func encode(to encoder: Encoder) throws {
            switch self {
            case .event(let payload):
                try payload.encode(to: encoder)
            case .tracked(let id, let payload):
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(id, forKey: .id)
                try container.encode(payload, forKey: .data)
            }
        }
    }

    struct EventPayload: Encodable {
        var event: String
        var data: JSONValue
    }

    struct ServerError: Encodable {
        struct Data: Encodable {
            var code: String
            var httpStatus: Int
            var path: String?
        }
        var message: String
        var code: Int
        var data: Data
    }

    public static func started(_ reply: Reply) -> String { reply.frame(result: ServerResult(type: "started")) }
    public static func stopped(_ reply: Reply) -> String { reply.frame(result: ServerResult(type: "stopped")) }

    /// An event frame carrying `data` as the event's payload. Stored events carry their id twice, as the box's
    /// tracked envelope does.
    public static func event(_ reply: Reply, name: String, data: JSONValue, trackedId: String?) -> String {
        let payload = EventPayload(event: name, data: data)
        guard let trackedId else { return reply.frame(result: ServerResult(type: "data", data: .event(payload))) }
        return reply.frame(
            result: ServerResult(type: "data", id: trackedId, data: .tracked(id: trackedId, data: payload)))
    }

    /// tRPC's error codes as JSON-RPC numbers, with the HTTP status each maps to.
    public enum ErrorCode: String, Sendable {
        case parseError = "PARSE_ERROR"
        case badRequest = "BAD_REQUEST"
        case notFound = "NOT_FOUND"
        case internalServerError = "INTERNAL_SERVER_ERROR"

        public var number: Int {
            switch self {
            case .parseError: -32_700
            case .badRequest: -32_600
            case .notFound: -32_004
            case .internalServerError: -32_603
            }
        }

        public var httpStatus: Int {
            switch self {
            case .parseError, .badRequest: 400
            case .notFound: 404
            case .internalServerError: 500
            }
        }
    }

    public static func error(_ reply: Reply, message: String, code: ErrorCode, path: String?) -> String {
        reply.frame(
            error: ServerError(
                message: message, code: code.number,
                data: .init(code: code.rawValue, httpStatus: code.httpStatus, path: path)))
    }

    /// A client frame as the box reads it (boxsim).
    public enum ClientFrame: Sendable, Equatable {
        /// The raw keep-alive texts.
        case ping
        case pong
        /// `lastEventId` is nil when absent; `.invalid` when present but not a JSON string.
        case subscribe(Reply, path: String, lastEventId: LastEventID)
        case stop(Reply)
        /// A JSON frame that is not a request the box knows (no id, an unknown method).
        case unknownMethod(Reply, method: String)
        /// Not JSON at all.
        case unreadable
    }

    public enum LastEventID: Sendable, Equatable {
        case absent
        case given(String)
        case invalid
    }

    public static func parseClient(_ text: String) -> ClientFrame {
        if text == ping { return .ping }
        if text == pong { return .pong }
        guard let object = JSONValue.parse(text)?.object else { return .unreadable }
        let reply = Reply(id: RequestID(json: object["id"]), jsonrpc: object["jsonrpc"]?.string == "2.0")
        let method = object["method"]?.string ?? ""
        switch method {
        case "subscription":
            let params = object["params"]?.object ?? [:]
            let last: LastEventID =
                switch params["lastEventId"] ?? params["input"]?.object?["lastEventId"] {
                case nil: .absent
                case .string(let text)?: .given(text)
                default: .invalid
                }
            return .subscribe(reply, path: params["path"]?.string ?? "", lastEventId: last)
        case "subscription.stop":
            return .stop(reply)
        default:
            return .unknownMethod(reply, method: method)
        }
    }
}
