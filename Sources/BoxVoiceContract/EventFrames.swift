import Foundation

/// The box's event WebSocket, tRPC v11 style (contract §7.1): what a client sends and how to read what arrives.
public enum EventFrames {
    /// The subscription id boxvoice uses (one subscription per connection).
    public static let subscriptionId = 1
    /// The keep-alive exchange is raw text, not JSON.
    public static let ping = "PING"
    public static let pong = "PONG"

    public static func subscribe(lastEventId: String?) -> String {
        var params: [String: Any] = ["path": "events.subscribe"]
        if let lastEventId { params["lastEventId"] = lastEventId }
        return json(["id": subscriptionId, "method": "subscription", "params": params])
    }

    public static let stop = #"{"id":1,"method":"subscription.stop"}"#

    /// One frame from the server, understood.
    public enum Incoming: Sendable, Equatable {
        case ping
        case started(id: Int?)
        case stopped(id: Int?)
        /// An event; `trackedId` is set for stored (replayable) events.
        case event(name: String, data: [String: String], rawData: String, trackedId: String?)
        case error(id: Int?, message: String, httpStatus: Int?)
        /// Anything else: logged, never fatal.
        case unknown(String)
    }

    public static func parse(_ text: String) -> Incoming {
        if text == ping { return .ping }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            return .unknown(text)
        }
        let id = (object["id"] as? NSNumber)?.intValue
        if let error = object["error"] as? [String: Any] {
            let data = error["data"] as? [String: Any]
            return .error(
                id: id, message: error["message"] as? String ?? "unknown error",
                httpStatus: (data?["httpStatus"] as? NSNumber)?.intValue)
        }
        guard let result = object["result"] as? [String: Any], let type = result["type"] as? String else {
            return .unknown(text)
        }
        switch type {
        case "started": return .started(id: id)
        case "stopped": return .stopped(id: id)
        case "data":
            guard var payload = result["data"] as? [String: Any] else { return .unknown(text) }
            var trackedId = result["id"].map { "\($0)" }
            // Stored events come wrapped: {"id": "<n>", "data": {event, data}}.
            if payload["event"] == nil, let inner = payload["data"] as? [String: Any] {
                trackedId = trackedId ?? payload["id"].map { "\($0)" }
                payload = inner
            }
            guard let name = payload["event"] as? String else { return .unknown(text) }
            let body = payload["data"] as? [String: Any] ?? [:]
            let strings = body.compactMapValues { $0 as? String }
            return .event(name: name, data: strings, rawData: json(body), trackedId: trackedId)
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

        init?(json value: Any?) {
            if let text = value as? String {
                self = .string(text)
            } else if let number = value as? NSNumber, !(value is String), String(cString: number.objCType) != "c",
                number.doubleValue == Double(number.intValue)
            {
                self = .number(number.intValue)
            } else {
                return nil
            }
        }

        var json: Any {
            switch self {
            case .number(let value): value
            case .string(let value): value
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

        func wrap(_ body: [String: Any]) -> String {
            var object = body
            object["id"] = id?.json ?? NSNull()
            if jsonrpc { object["jsonrpc"] = "2.0" }
            return EventFrames.json(object)
        }
    }

    public static func started(_ reply: Reply) -> String { reply.wrap(["result": ["type": "started"]]) }
    public static func stopped(_ reply: Reply) -> String { reply.wrap(["result": ["type": "stopped"]]) }

    /// An event frame; `data` is the event's payload as JSON text. Stored events carry their id twice, as the box's
    /// tracked envelope does.
    public static func event(_ reply: Reply, name: String, dataJSON: String, trackedId: String?) -> String {
        let data =
            (try? JSONSerialization.jsonObject(with: Data(dataJSON.utf8), options: [.fragmentsAllowed]))
            ?? [String: Any]()
        let payload: [String: Any] = ["event": name, "data": data]
        guard let trackedId else { return reply.wrap(["result": ["type": "data", "data": payload]]) }
        return reply.wrap(["result": ["type": "data", "id": trackedId, "data": ["id": trackedId, "data": payload]]])
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
        var data: [String: Any] = ["code": code.rawValue, "httpStatus": code.httpStatus]
        if let path { data["path"] = path }
        return reply.wrap(["error": ["message": message, "code": code.number, "data": data]])
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
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            return .unreadable
        }
        let reply = Reply(id: RequestID(json: object["id"]), jsonrpc: object["jsonrpc"] as? String == "2.0")
        let method = object["method"] as? String ?? ""
        switch method {
        case "subscription":
            let params = object["params"] as? [String: Any] ?? [:]
            let input = params["input"] as? [String: Any]
            let last: LastEventID =
                switch params["lastEventId"] ?? input?["lastEventId"] {
                case nil: .absent
                case let text as String: .given(text)
                default: .invalid
                }
            return .subscribe(reply, path: params["path"] as? String ?? "", lastEventId: last)
        case "subscription.stop":
            return .stop(reply)
        default:
            return .unknownMethod(reply, method: method)
        }
    }

    static func json(_ object: Any) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
