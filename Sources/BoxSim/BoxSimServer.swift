import BoxVoiceAudio
import BoxVoiceContract
import BoxVoiceLive
import Foundation
import Synchronization

/// A local box speaking the voice contract over HTTP on loopback (contract.md §1, §2, §5, §6).
///
/// Inspection and control live under `/boxsim/…` (no authentication; loopback only): mint a pairing link,
/// list received messages and transcription calls.
public final class BoxSimServer: @unchecked Sendable {
    // @unchecked: `http` and `events` are set once during init; the rest of the state is behind Mutexes.
    public let configuration: BoxSimConfiguration
    public var port: Int { http.port }
    /// What a pairing link names as `baseURL`.
    public var baseURL: String { "http://127.0.0.1:\(port)/\(configuration.slug)" }

    var http: HTTPServer!
    let records: BoxSimRecords
    /// Pairing tickets, sessions and the HQ call count.
    struct Shared {
        var tickets: [String: Date] = [:]
        var hqCalls = 0
        var sessions: ChatSessions
    }
    /// `records` has its own lock, always taken first.
    let shared: Mutex<Shared>
    let lastAudio = LastAudioPending()
    /// Called with every transient event the box would publish (`chat-last-audio-request`, …).
    let eventSink = EventSink()
    var events: EventHub!
    /// The HQ recognizer of the configured mode, loaded on its first call and used one call at a time.
    struct Recognizers {
        var pocketsphinx: PocketSphinxDecoder?
        var whisper: WhisperModel?
    }
    let recognizers = Mutex(Recognizers())

    public init(configuration: BoxSimConfiguration) throws {
        self.configuration = configuration
        records = try BoxSimRecords(directory: configuration.dataDirectory)
        shared = Mutex(
            Shared(
                sessions: ChatSessions(
                    directory: configuration.dataDirectory, configured: configuration.defaultSession,
                    extra: configuration.extraSessions, seen: records.messages.map(\.session))))
        http = try HTTPServer(
            port: configuration.port, maxBodyBytes: configuration.maxBodyBytes, threads: 32,
            readBitsPerSecond: configuration.uplinkBitsPerSecond
        ) { [unowned self] request in
            self.route(request)
        }
        events = try EventHub(
            server: http, dataDirectory: configuration.dataDirectory,
            pingInterval: configuration.pingIntervalSeconds, pongGrace: configuration.pongGraceSeconds)
        _ = eventSink.add { [weak events] name, data in
            events?.emitTransient(name, data: .object(data.mapValues(JSONValue.string)))
        }
        let hub = events!
        http.handleWebSockets(
            path: "/" + configuration.slug + "/api/trpc",
            .init(
                authorize: { [unowned self] headers in
                    self.device(authorizing: headers) == nil ? #"{"error":"Not authenticated"}"# : nil
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

    /// Publishes a stored event, as the box does for chat activity; returns its id.
    @discardableResult
    public func emitStoredEvent(_ name: String, _ data: JSONValue) -> Int {
        events.emitStored(name, data: data)
    }

    /// The session `GET /api/chat/default` names now.
    public var defaultSession: String? { shared.withLock { $0.sessions.defaultSession } }

    /// Simulator control: another client moves the default (nil clears it).
    public func moveDefault(to session: String?) { shared.withLock { $0.sessions.setDefault(session) } }

    /// Simulator control: a session is being deleted (`.deleting`), is gone (nil), or is live again.
    public func setSession(_ id: String, _ availability: ChatSessionAvailability?) {
        shared.withLock { $0.sessions.set(id, to: availability.map { $0 == .live ? .live : .deleting }) }
    }

    // MARK: inspection (in-process)

    public var messages: [SimMessage] { records.withLock { $0.messages } }
    public var transcriptions: [SimTranscription] { records.withLock { $0.transcriptions } }
    public var devices: [SimDevice] { records.withLock { $0.devices } }

    /// Mints a single-use pairing ticket (valid for `pairingTicketSeconds`) and the link that carries it.
    public func mintPairingLink(label: String = "Bee Box", session: String? = nil) -> String {
        let ticket = Self.randomToken(bytes: 32)
        shared.withLock { $0.tickets[ticket] = Date().addingTimeInterval(configuration.pairingTicketSeconds) }
        var items = [
            URLQueryItem(name: "baseURL", value: baseURL), URLQueryItem(name: "label", value: label),
            URLQueryItem(name: "pairingToken", value: ticket),
        ]
        if let session { items.append(URLQueryItem(name: "session", value: session)) }
        var components = URLComponents()
        components.queryItems = items
        let query = components.percentEncodedQuery!.replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(
            of: "/", with: "%2F")
        return "beebox://pair?" + query
    }

    // MARK: routing

    private func route(_ request: SimRequest) -> SimResponse {
        if request.path.hasPrefix("/boxsim/") { return admin(request) }
        let prefix = "/" + configuration.slug + "/api/"
        guard request.path.hasPrefix(prefix) else { return notFound(request) }
        let endpoint = String(request.path.dropFirst(prefix.count))
        let known = [
            "pairing/redeem", "pairing/session", "chat/default", "chat/send", "chat/transcribe-audio",
            "chat/last-audio/request",
        ]
        guard known.contains(endpoint) || endpoint.hasPrefix("chat/last-audio/") else { return notFound(request) }
        // The framework reads the body by its Content-Type before any route code or authentication runs.
        let body: RequestBody
        switch RequestBody.parse(request) {
        case .body(let parsed): body = parsed
        case .refused(let refusal): return refusal
        }
        switch (request.method, endpoint) {
        case ("POST", "pairing/redeem"): return redeem(body)
        case (_, "pairing/redeem"): return notFound(request)
        default: break
        }
        guard let (device, byBearer) = device(authorizing: request.headers) else {
            return .json(401, ["error": "Not authenticated"])
        }
        var response: SimResponse
        switch (request.method, endpoint) {
        case ("POST", "pairing/session"): response = SimResponse(status: 204)
        case ("GET", "chat/default"): response = .json(200, ["sessionId": .string(defaultSession)])
        case ("POST", "chat/send"): response = send(body)
        case ("POST", "chat/transcribe-audio"): response = transcribe(request, body)
        case ("POST", "chat/last-audio/request"): response = requestLastAudio(body)
        case ("POST", let path)
        where path.hasPrefix("chat/last-audio/") && !path.dropFirst("chat/last-audio/".count).contains("/"):
            response = answerLastAudio(requestId: String(path.dropFirst("chat/last-audio/".count)), request, body)
        default: return notFound(request)
        }
        // Every answer to a bearer-authenticated request sets the mobile cookie (contract §6).
        if byBearer, let cookie = device.cookie {
            response.headers.append(
                ("Set-Cookie", "bbx_mobile=\(cookie); Path=/\(configuration.slug); HttpOnly; SameSite=Lax"))
        }
        return response
    }

    /// fastify's answer for a route it does not have.
    private func notFound(_ request: SimRequest) -> SimResponse {
        .json(
            404,
            ["message": "Route \(request.method):\(request.path) not found", "error": "Not Found", "statusCode": 404])
    }

    /// The device a request authenticates as — by the `bbx_mobile` cookie, checked first, else by the bearer token
    /// — and whether it was the bearer.
    func device(authorizing headers: [String: String]) -> (SimDevice, byBearer: Bool)? {
        let devices = records.withLock { $0.devices }
        if let cookies = headers["cookie"] {
            for pair in cookies.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(
                    String.init)
                guard parts.count == 2, parts[0] == "bbx_mobile" else { continue }
                if let device = devices.first(where: { $0.cookie == parts[1] }) { return (device, false) }
            }
        }
        guard let header = headers["authorization"], header.hasPrefix("Bearer ") else { return nil }
        let token = String(header.dropFirst("Bearer ".count))
        return devices.first { $0.token == token }.map { ($0, true) }
    }

    private func admin(_ request: SimRequest) -> SimResponse {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        func encoded<T: Encodable>(_ value: T) -> SimResponse {
            SimResponse(
                status: 200, headers: [("Content-Type", SimResponse.jsonContentType)],
                body: Array((try? encoder.encode(value)) ?? Data()))
        }
        let query = URLComponents(string: "?" + request.query)?.queryItems ?? []
        func parameter(_ name: String) -> String? { query.first { $0.name == name }?.value }
        switch (request.method, request.path) {
        case ("POST", "/boxsim/pair-link"):
            return .json(
                200,
                [
                    "link": .string(
                        mintPairingLink(label: parameter("label") ?? "Bee Box", session: parameter("session")))
                ])
        case ("POST", "/boxsim/retranscribe"):
            // The agent's side (`bbx chat retranscribe`), without a device token.
            guard case .body(let body) = RequestBody.parse(request) else { return .json(400, ["error": "bad-request"]) }
            return requestLastAudio(body)
        case ("POST", "/boxsim/fail-subscriptions"):
            // Simulator feature: every event subscription ends with an error frame (its connection stays open).
            events?.failSubscriptions(message: "subscription failed (boxsim /boxsim/fail-subscriptions)")
            return .json(200, ["ok": true])
        case ("POST", "/boxsim/burst-last-audio"):
            // Simulator feature (fault injection): `count` retranscription requests for `message` at once, as a
            // misbehaving agent or a hostile box would send them; nobody waits for the answers (they get 404).
            let count = min(max(Int(parameter("count") ?? "") ?? 0, 0), 100_000)
            guard count > 0, let message = parameter("message"), !message.isEmpty else {
                return .json(400, ["error": "give count=N and message=ID"])
            }
            for _ in 0..<count {
                events?.emitTransient(
                    "chat-last-audio-request",
                    data: ["requestId": .string(UUID().uuidString.lowercased()), "messageId": .string(message)])
            }
            return .json(200, ["ok": true, "sent": .integer(count)])
        case ("POST", "/boxsim/default"):
            // Simulator feature: another client moves the default session (empty: none).
            let session = parameter("session").flatMap { $0.isEmpty ? nil : $0 }
            moveDefault(to: session)
            return .json(200, ["sessionId": .string(session)])
        case ("POST", "/boxsim/session"):
            // Simulator feature: a session is being deleted, is gone, or is live.
            guard let id = parameter("id"), !id.isEmpty, let state = parameter("state"),
                ["live", "deleting", "gone"].contains(state)
            else {
                return .json(400, ["error": "give id=SESSION and state=live|deleting|gone"])
            }
            setSession(id, state == "gone" ? nil : state == "live" ? .live : .deleting)
            return .json(200, ["ok": true])
        case ("GET", "/boxsim/events"): return encoded(events.storedEvents)
        case ("GET", "/boxsim/pending"):
            return .json(
                200,
                .array(
                    lastAudio.pending.map { ["requestId": .string($0.requestId), "messageId": .string($0.messageId)] }))
        case ("GET", "/boxsim/messages"): return encoded(messages)
        case ("GET", "/boxsim/transcriptions"): return encoded(transcriptions)
        case ("GET", "/boxsim/status"):
            return .json(
                200,
                [
                    "baseURL": .string(baseURL), "hq": .string(configuration.hq.description),
                    "devices": .integer(devices.count), "messages": .integer(messages.count),
                    "defaultSession": .string(defaultSession),
                ])
        default: return .json(404, ["error": "Not found"])
        }
    }

    // MARK: §6 pairing

    private func redeem(_ body: RequestBody) -> SimResponse {
        guard let object = body.object, let ticket = object["pairingToken"]?.string, !ticket.isEmpty else {
            return .json(400, ["error": "pairingToken is required"])
        }
        // Optional; when present a non-empty string (the ticket stays unspent otherwise). Trimmed; blank → the default.
        var deviceLabel = "iOS companion"
        if let label = object["deviceLabel"] {
            guard let text = label.string, !text.isEmpty else {
                return .json(400, ["error": "deviceLabel must be a non-empty string"])
            }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { deviceLabel = trimmed }
        }
        let valid: Bool = shared.withLock {
            guard let expiry = $0.tickets.removeValue(forKey: ticket) else { return false }  // single use
            return expiry > Date()
        }
        guard valid else { return .json(401, ["error": "Pairing code is invalid or expired."]) }
        let device = SimDevice(
            deviceId: UUID().uuidString.lowercased(), label: deviceLabel, token: Self.randomToken(bytes: 32),
            pairedAt: Date(),
            cookie: Self.randomToken(bytes: 32))
        records.withLock { $0.addDevice(device) }
        return .json(
            200,
            [
                "boxSlug": .string(
                    configuration.slug.split(separator: "/").last.map(String.init) ?? configuration.slug),
                "label": "Bee Box", "deviceId": .string(device.deviceId), "deviceLabel": .string(device.label),
                "token": .string(device.token),
            ])
    }

    static func randomToken(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }
}

/// What a simulated session can be made (simulator control).
public enum ChatSessionAvailability: Sendable {
    case live
    case deleting
}
