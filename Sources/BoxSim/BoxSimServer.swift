import BoxVoiceAudio
import BoxVoiceContract
import BoxVoiceLive
import Foundation

/// A local box speaking the voice contract over HTTP on loopback (contract.md §1, §2, §5, §6).
///
/// Inspection and control live under `/boxsim/…` (no authentication; loopback only): mint a pairing link,
/// list received messages and transcription calls.
public final class BoxSimServer: @unchecked Sendable {
    public let configuration: BoxSimConfiguration
    public var port: Int { http.port }
    /// What a pairing link names as `baseURL`.
    public var baseURL: String { "http://127.0.0.1:\(port)/\(configuration.slug)" }

    var http: HTTPServer!
    let records: BoxSimRecords
    let lock = NSLock()
    var tickets: [String: Date] = [:]
    var hqCalls = 0
    var busyUntil: [String: Date] = [:]
    var knownSessions: Set<String>
    let lastAudio = LastAudioPending()
    /// Called with every transient event the box would publish (`chat-last-audio-request`, …).
    let eventSink = EventSink()
    var events: EventHub!
    /// One pocketsphinx decoder, loaded on the first HQ call in pocketsphinx mode, used one call at a time.
    let recognizerLock = NSLock()
    var recognizer: PocketSphinxDecoder?

    public init(configuration: BoxSimConfiguration) throws {
        self.configuration = configuration
        records = try BoxSimRecords(directory: configuration.dataDirectory)
        knownSessions = Set(records.messages.map(\.session) + configuration.extraSessions)
        if let session = configuration.defaultSession { knownSessions.insert(session) }
        http = try HTTPServer(port: configuration.port, maxBodyBytes: configuration.maxBodyBytes, threads: 32) { [unowned self] request in
            self.route(request)
        }
        events = EventHub(server: http, pingInterval: configuration.pingIntervalSeconds, pongGrace: configuration.pongGraceSeconds)
        _ = eventSink.add { [weak events] name, data in events?.emitTransient(name, data) }
        let hub = events!
        http.handleWebSockets(path: "/" + configuration.slug + "/api/trpc", .init(
            authorize: { [unowned self] headers in
                guard let header = headers["authorization"], header.hasPrefix("Bearer "),
                      self.knowsToken(String(header.dropFirst("Bearer ".count))) else { return #"{"error":"Not authenticated"}"# }
                return nil
            },
            opened: { hub.opened($0) },
            received: { hub.received($0, $1) },
            closed: { hub.closed($0) }))
    }

    public func stop() {
        events.shutdown()
        http.stop()
    }

    /// Event WebSocket connections open now.
    public var eventConnections: Int { events.connectionCount }

    /// Publishes a stored (tracked) event, as the box does for chat activity.
    public func emitTrackedEvent(_ name: String, _ data: [String: String]) { events.emitTracked(name, data) }

    private func knowsToken(_ token: String) -> Bool {
        records.withLock { $0.devices.contains { $0.token == token } }
    }

    // MARK: inspection (in-process)

    public var messages: [SimMessage] { records.withLock { $0.messages } }
    public var transcriptions: [SimTranscription] { records.withLock { $0.transcriptions } }
    public var devices: [SimDevice] { records.withLock { $0.devices } }

    /// Mints a single-use pairing ticket (valid for `pairingTicketSeconds`) and the link that carries it.
    public func mintPairingLink(label: String = "Bee Box", session: String? = nil) -> String {
        let ticket = Self.randomToken(bytes: 18)
        lock.withLock { tickets[ticket] = Date().addingTimeInterval(configuration.pairingTicketSeconds) }
        var items = [URLQueryItem(name: "baseURL", value: baseURL), URLQueryItem(name: "label", value: label),
                     URLQueryItem(name: "pairingToken", value: ticket)]
        if let session { items.append(URLQueryItem(name: "session", value: session)) }
        var components = URLComponents()
        components.queryItems = items
        let query = components.percentEncodedQuery!.replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: "/", with: "%2F")
        return "beebox://pair?" + query
    }

    // MARK: routing

    private func route(_ request: SimRequest) -> SimResponse {
        if request.path.hasPrefix("/boxsim/") { return admin(request) }
        let prefix = "/" + configuration.slug + "/api/"
        guard request.path.hasPrefix(prefix) else { return .json(404, ["error": "Not found"]) }
        let endpoint = String(request.path.dropFirst(prefix.count))
        switch (request.method, endpoint) {
        case ("POST", "pairing/redeem"):
            return redeem(request)
        case (_, "pairing/redeem"):
            return .json(404, ["error": "Not found"])
        default:
            break
        }
        guard authenticated(request) else { return .json(401, ["error": "Not authenticated"]) }
        switch (request.method, endpoint) {
        case ("GET", "chat/default"): return .json(200, ["sessionId": configuration.defaultSession as Any? ?? NSNull()])
        case ("POST", "chat/send"): return send(request)
        case ("POST", "chat/transcribe-audio"): return transcribe(request)
        case ("POST", "chat/last-audio/request"): return requestLastAudio(body: request.body)
        case ("POST", let path) where path.hasPrefix("chat/last-audio/"):
            return answerLastAudio(requestId: String(path.dropFirst("chat/last-audio/".count)), request)
        default: return .json(404, ["error": "Not found"])
        }
    }

    private func authenticated(_ request: SimRequest) -> Bool {
        guard let header = request.header("authorization"), header.hasPrefix("Bearer ") else { return false }
        return knowsToken(String(header.dropFirst("Bearer ".count)))
    }

    private func admin(_ request: SimRequest) -> SimResponse {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        func encoded<T: Encodable>(_ value: T) -> SimResponse {
            SimResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array((try? encoder.encode(value)) ?? Data()))
        }
        switch (request.method, request.path) {
        case ("POST", "/boxsim/pair-link"):
            let query = URLComponents(string: "?" + request.query)?.queryItems ?? []
            let label = query.first { $0.name == "label" }?.value ?? "Bee Box"
            let session = query.first { $0.name == "session" }?.value
            return .json(200, ["link": mintPairingLink(label: label, session: session)])
        case ("POST", "/boxsim/retranscribe"):
            // The agent's side (`bbx chat retranscribe`), without a device token.
            return requestLastAudio(body: request.body)
        case ("POST", "/boxsim/fail-subscriptions"):
            // Simulator feature: every event subscription ends with an error frame (its connection stays open).
            events?.failSubscriptions(message: "subscription failed (boxsim /boxsim/fail-subscriptions)")
            return .json(200, ["ok": true])
        case ("GET", "/boxsim/pending"):
            return .json(200, lastAudio.pending.map { ["requestId": $0.requestId, "messageId": $0.messageId] })
        case ("GET", "/boxsim/messages"): return encoded(messages)
        case ("GET", "/boxsim/transcriptions"): return encoded(transcriptions)
        case ("GET", "/boxsim/status"):
            return .json(200, ["baseURL": baseURL, "hq": configuration.hq.description, "devices": devices.count, "messages": messages.count])
        default: return .json(404, ["error": "Not found"])
        }
    }

    // MARK: §6 pairing

    private func redeem(_ request: SimRequest) -> SimResponse {
        guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any],
              let ticket = body["pairingToken"] as? String, !ticket.isEmpty else {
            return .json(400, ["error": "pairingToken is required"])
        }
        let deviceLabel = (body["deviceLabel"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "Device"
        let valid: Bool = lock.withLock {
            guard let expiry = tickets.removeValue(forKey: ticket) else { return false }  // single use
            return expiry > Date()
        }
        guard valid else { return .json(401, ["error": "Pairing code is invalid or expired."]) }
        let device = SimDevice(deviceId: UUID().uuidString.lowercased(), label: deviceLabel, token: Self.randomToken(bytes: 32), pairedAt: Date())
        records.withLock { $0.addDevice(device) }
        return .json(200, ["boxSlug": configuration.slug.split(separator: "/").last.map(String.init) ?? configuration.slug,
                           "label": "Bee Box", "deviceId": device.deviceId, "deviceLabel": device.label, "token": device.token])
    }

    static func randomToken(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
