import BoxSim
import BoxVoiceTestSupport
import Foundation

/// A boxsim reached only over the wire, the way the conformance checks speak to it: raw HTTP and raw WebSocket
/// frames, with a device paired through `pairing/redeem`. Nothing here reads boxsim's code or state.
final class ConformanceBox {
    let box: SimulatedBox
    let token: String
    var port: Int { box.server.port }
    /// The base URL's path (`/main/test1`): every route is under it.
    let prefix = "/main/test1"

    init(_ configure: (inout BoxSimConfiguration) -> Void = { _ in }) throws {
        box = try SimulatedBox(configure)
        let answer = try RawHTTP.exchange(
            port: box.server.port, method: "POST", path: prefix + "/api/pairing/redeem",
            headers: [("Content-Type", "application/json")],
            body: RawHTTP.json(["pairingToken": box.mintTicket(), "deviceLabel": "conformance"]))
        guard let token = answer.json?["token"] as? String else {
            throw RawHTTP.Failed(description: "redeem failed: \(answer)")
        }
        self.token = token
    }

    var bearer: (String, String) { ("Authorization", "Bearer \(token)") }

    func post(_ route: String, json object: Any, headers: [(String, String)]? = nil) throws -> RawHTTP.Response {
        try RawHTTP.exchange(
            port: port, method: "POST", path: prefix + route,
            headers: headers ?? [bearer, ("Content-Type", "application/json")], body: RawHTTP.json(object))
    }

    func post(_ route: String, body: [UInt8], headers: [(String, String)]) throws -> RawHTTP.Response {
        try RawHTTP.exchange(port: port, method: "POST", path: prefix + route, headers: headers, body: body)
    }

    func get(_ route: String, headers: [(String, String)]? = nil) throws -> RawHTTP.Response {
        try RawHTTP.exchange(port: port, method: "GET", path: prefix + route, headers: headers ?? [bearer])
    }

    func send(_ message: String, id: String?, session: String, extra: [String: Any] = [:]) throws -> RawHTTP.Response {
        var body: [String: Any] = ["message": message, "session": session]
        if let id { body["messageId"] = id }
        body.merge(extra) { $1 }
        return try post("/api/chat/send", json: body)
    }

    var defaultSession: Any? { try? get("/api/chat/default").json?["sessionId"] }

    /// An event socket with one live subscription (`started` already read).
    func subscribed(id: Any = 1, lastEventId: Any? = nil) throws -> RawWebSocket {
        let socket = try RawWebSocket(port: port, path: prefix + "/api/trpc", headers: [bearer])
        var params: [String: Any] = ["path": "events.subscribe"]
        if let lastEventId { params["lastEventId"] = lastEventId }
        socket.send(Self.text(["id": id, "method": "subscription", "params": params]))
        guard let started = socket.nextJSON(), (started["result"] as? [String: Any])?["type"] as? String == "started"
        else {
            throw RawHTTP.Failed(description: "no started frame")
        }
        return socket
    }

    static func text(_ object: Any) -> String { String(decoding: RawHTTP.json(object), as: UTF8.self) }

    /// A multipart body: each part `(name, filename, contentType, bytes)` in order.
    static func multipart(_ parts: [(String, String?, String?, [UInt8])], boundary: String = "conformance-boundary")
        -> [UInt8]
    {
        var body: [UInt8] = []
        for (name, filename, type, bytes) in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\""
            if let filename { head += "; filename=\"\(filename)\"" }
            head += "\r\n"
            if let type { head += "Content-Type: \(type)\r\n" }
            body += Array((head + "\r\n").utf8) + bytes + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n".utf8)
    }

    static let multipartType = "multipart/form-data; boundary=conformance-boundary"

    /// A short mono Float32 WAV.
    func wavBytes(seconds: Double = 0.5) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: box.wav(seconds: seconds, name: "c-\(UUID().uuidString).wav"))))
    }
}

/// The `data` of an event frame: `(name, payload, stored id)`.
func eventOf(_ frame: [String: Any]?) -> (name: String, data: [String: Any], storedId: String?)? {
    guard let result = frame?["result"] as? [String: Any], result["type"] as? String == "data",
        var payload = result["data"] as? [String: Any]
    else { return nil }
    let storedId = result["id"] as? String
    if payload["event"] == nil, let inner = payload["data"] as? [String: Any] { payload = inner }
    guard let name = payload["event"] as? String else { return nil }
    return (name, payload["data"] as? [String: Any] ?? [:], storedId)
}
