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
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return .unknown(text) }
        let id = (object["id"] as? NSNumber)?.intValue
        if let error = object["error"] as? [String: Any] {
            let data = error["data"] as? [String: Any]
            return .error(id: id, message: error["message"] as? String ?? "unknown error", httpStatus: (data?["httpStatus"] as? NSNumber)?.intValue)
        }
        guard let result = object["result"] as? [String: Any], let type = result["type"] as? String else { return .unknown(text) }
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

    public static func started(id: Int) -> String { json(["id": id, "result": ["type": "started"]]) }
    public static func stopped(id: Int) -> String { json(["id": id, "result": ["type": "stopped"]]) }

    public static func event(id: Int, name: String, data: [String: Any], trackedId: String?) -> String {
        let payload: [String: Any] = ["event": name, "data": data]
        guard let trackedId else { return json(["id": id, "result": ["type": "data", "data": payload]]) }
        return json(["id": id, "result": ["type": "data", "id": trackedId, "data": ["id": trackedId, "data": payload]]])
    }

    public static func error(id: Int?, message: String, code: String, httpStatus: Int) -> String {
        json(["id": id as Any? ?? NSNull(), "error": ["message": message, "code": -32_600,
                                                      "data": ["code": code, "httpStatus": httpStatus, "path": "events.subscribe"]]])
    }

    /// Reads a client frame (boxsim): a subscription request, a stop, or PONG.
    public enum ClientFrame: Sendable, Equatable {
        case pong
        case subscribe(id: Int, path: String, lastEventId: String?)
        case stop(id: Int)
        case unknown
    }

    public static func parseClient(_ text: String) -> ClientFrame {
        if text == pong { return .pong }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
              let id = (object["id"] as? NSNumber)?.intValue, let method = object["method"] as? String else { return .unknown }
        switch method {
        case "subscription":
            let params = object["params"] as? [String: Any] ?? [:]
            return .subscribe(id: id, path: params["path"] as? String ?? "", lastEventId: params["lastEventId"].map { "\($0)" })
        case "subscription.stop":
            return .stop(id: id)
        default:
            return .unknown
        }
    }

    static func json(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
