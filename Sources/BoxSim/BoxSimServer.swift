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

    private var http: HTTPServer!
    private let records: BoxSimRecords
    private let lock = NSLock()
    private var tickets: [String: Date] = [:]
    private var hqCalls = 0
    private var busyUntil: [String: Date] = [:]
    private var knownSessions: Set<String>
    private let lastAudio = LastAudioPending()
    /// Called with every transient event the box would publish (`chat-last-audio-request`, …).
    private let eventSink = EventSink()
    private var events: EventHub!

    public init(configuration: BoxSimConfiguration) throws {
        self.configuration = configuration
        records = try BoxSimRecords(directory: configuration.dataDirectory)
        knownSessions = Set(records.messages.map(\.session))
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

    // MARK: §2 send

    private static let allowedChannels: Set<String> = ["web-desktop", "web-mobile", "ios-native"]
    private static let dedupWindow: TimeInterval = 7 * 24 * 3_600

    private func send(_ request: SimRequest) -> SimResponse {
        guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
            return .json(400, ["error": "Body must be a JSON object"])
        }
        guard let message = body["message"] as? String, !message.isEmpty else { return .json(400, ["error": "message is required"]) }
        guard let messageId = body["messageId"] as? String, !messageId.isEmpty else { return .json(400, ["error": "messageId is required"]) }
        guard let session = body["session"] as? String, !session.isEmpty else { return .json(400, ["error": "session is required"]) }
        if let channel = body["channel"] {
            guard let name = channel as? String, Self.allowedChannels.contains(name) else {
                return .json(400, ["error": "Invalid channel"])
            }
        }
        let exact = body["exactSession"] as? Bool ?? false
        let now = Date()
        return records.withLock { records -> SimResponse in
            if records.messages.contains(where: { $0.messageId == messageId && now.timeIntervalSince($0.receivedAt) < Self.dedupWindow }) {
                return .json(200, ["deduplicated": true])
            }
            return lock.withLock { () -> SimResponse in
                var target = session
                if session == "new" {
                    target = "session-" + UUID().uuidString.lowercased().prefix(8)
                    knownSessions.insert(target)
                } else if !knownSessions.contains(session) {
                    return exact ? .json(404, ["error": "Session not found"])
                        : .json(410, ["error": "Chat session is unavailable", "code": "CHAT_SESSION_UNAVAILABLE"])
                }
                let busy = (busyUntil[target] ?? .distantPast) > now
                let turnId = busy ? nil : UUID().uuidString.lowercased()
                if !busy, configuration.turnSeconds > 0 { busyUntil[target] = now.addingTimeInterval(configuration.turnSeconds) }
                records.addMessage(SimMessage(messageId: messageId, message: message, session: target, receivedAt: now, turnId: turnId, queued: busy))
                events.emitTracked("chat-message", ["messageId": messageId, "session": target])
                return busy ? .json(200, ["queued": true]) : .json(200, ["turnId": turnId!])
            }
        }
    }

    // MARK: §1 transcription

    private func transcribe(_ request: SimRequest) -> SimResponse {
        var record = SimTranscription(at: Date(), session: nil, ignoredFields: [], filename: nil, guessedFormat: "webm",
                                      bytes: request.body.count, sampleRate: nil, channels: nil, float32: nil, frames: nil, status: 400, text: nil)
        defer { records.withLock { $0.addTranscription(record) } }
        guard let form = try? MultipartForm(body: request.body, contentType: request.header("content-type") ?? ""),
              let fileIndex = form.parts.firstIndex(where: { $0.name == "file" && $0.filename != nil }) else {
            return .json(400, ["error": "No audio uploaded"])
        }
        // The box reads text fields only before the file part.
        record.session = form.parts[..<fileIndex].last { $0.name == "session" }.map { String(decoding: $0.body, as: UTF8.self) }
        record.ignoredFields = form.parts[(fileIndex + 1)...].map(\.name)
        let file = form.parts[fileIndex]
        record.filename = file.filename
        let ext = (file.filename.map { ($0 as NSString).pathExtension.lowercased() }) ?? ""
        record.guessedFormat = ["wav", "webm", "mp3", "m4a", "ogg", "flac"].contains(ext) ? ext : "webm"
        record.bytes = file.body.count
        let audio = decode(file.body, recognize: configuration.hq == .pocketsphinx)
        record.sampleRate = audio?.sampleRate
        record.channels = audio?.channels
        record.float32 = audio?.float32
        record.frames = audio?.frames

        let call = lock.withLock { () -> Int in
            hqCalls += 1
            return hqCalls
        }
        let result = respond(call: call, audio: audio, guessedFormat: record.guessedFormat)
        record.status = result.status
        record.text = (try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any])?["text"] as? String
        return result
    }

    private func respond(call: Int, audio: DecodedUpload?, guessedFormat: String) -> SimResponse {
        func failure(_ code: String, _ message: String) -> SimResponse {
            .json(500, ["error": message, "permanent": HQMode.isPermanent(code: code), "code": code])
        }
        func success(_ text: String?) -> SimResponse {
            let fallback = audio.map { String(format: "boxsim heard %.2f s of audio", Double($0.frames) / Double(max($0.sampleRate, 1))) } ?? ""
            return .json(200, ["text": text ?? configuration.hqText ?? fallback, "diarized": false, "service": "boxsim"])
        }
        switch configuration.hq {
        case .fail(let code):
            return failure(code, "HQ transcription failed (\(code))")
        case .flaky(let count) where call <= count:
            return failure("network_error", "The transcription service could not be reached")
        default:
            break
        }
        guard audio != nil, guessedFormat == "wav" else {
            return failure("http_400", "The transcription service could not decode the \(guessedFormat) audio")
        }
        switch configuration.hq {
        case .pocketsphinx:
            guard let recognized = audio?.recognized else {
                return failure("http_400", "The speech recognizer could not decode the audio")
            }
            return .json(200, ["text": recognized, "diarized": false, "service": "pocketsphinx"])
        case .fixed(let text): return success(text)
        case .slow(let seconds):
            Thread.sleep(forTimeInterval: seconds)
            return success(nil)
        default: return success(nil)
        }
    }

    // MARK: §7.2 last audio

    /// Subscribes to the box's transient events; returns a token for `unsubscribe`.
    public func subscribeEvents(_ handler: @escaping @Sendable (String, [String: String]) -> Void) -> Int {
        eventSink.add(handler)
    }

    public func unsubscribeEvents(_ token: Int) { eventSink.remove(token) }

    private func requestLastAudio(body: [UInt8]) -> SimResponse {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
              let messageId = object["messageId"] as? String, !messageId.isEmpty else {
            return .json(400, ["error": "bad-request", "message": "messageId is required"])
        }
        let requested = (object["timeoutMs"] as? NSNumber)?.doubleValue ?? 10_000
        let timeout = min(max(requested, 100), 30_000) / 1_000
        let requestId = lastAudio.create(messageId: messageId, timeout: timeout)
        eventSink.emit("chat-last-audio-request", ["requestId": requestId, "messageId": messageId])
        switch lastAudio.wait(requestId) {
        case .timeout:
            return .json(504, ["error": "no-client", "message": "No client answered; one may not be connected right now. Try again later."])
        case .none:
            return .json(404, ["error": "no-audio", "message": "No recording is held for this message. Other messages may still have audio."])
        case .audio(let answer):
            var headers: [(String, String)] = [("Content-Type", answer.contentType)]
            if let recordedAt = answer.recordedAt { headers.append(("X-Recorded-At", recordedAt)) }
            if let text = answer.text { headers.append(("X-Message-Text", Self.percentEncode(String(text.prefix(1_500))))) }
            if let id = answer.messageId { headers.append(("X-Message-Id", Self.percentEncode(id))) }
            if let session = answer.sessionId { headers.append(("X-Session-Id", Self.percentEncode(session))) }
            return SimResponse(status: 200, headers: headers, body: answer.audio)
        }
    }

    private func answerLastAudio(requestId: String, _ request: SimRequest) -> SimResponse {
        let contentType = request.header("content-type") ?? ""
        if contentType.lowercased().hasPrefix("multipart/") {
            guard let form = try? MultipartForm(body: request.body, contentType: contentType),
                  let fileIndex = form.parts.firstIndex(where: { $0.filename != nil }) else {
                return .json(400, ["error": "No audio uploaded"])
            }
            // Fields count only before the file part, as on the box.
            let fields = form.parts[..<fileIndex]
            func field(_ name: String) -> String? { fields.last { $0.name == name }.map { String(decoding: $0.body, as: UTF8.self) } }
            let file = form.parts[fileIndex]
            let answer = LastAudioPending.Fulfillment(audio: Array(file.body), contentType: file.contentType ?? "application/octet-stream",
                                                      recordedAt: field("recordedAt"), text: field("text"),
                                                      messageId: field("messageId"), sessionId: field("sessionId"))
            switch lastAudio.fulfill(requestId, answer) {
            case .delivered: return .json(200, ["ok": true])
            case .ignored: return .json(200, ["ok": false, "ignored": true, "message": "messageId did not match the pending request's target"])
            case .unknown: return .json(404, ["error": "unknown-request"])
            }
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any], object["none"] as? Bool == true else {
            return .json(400, ["error": "bad-answer", "message": "Expected multipart audio or {\"none\": true}"])
        }
        return lastAudio.reportNone(requestId) ? .json(200, ["ok": true]) : .json(404, ["error": "unknown-request"])
    }

    /// encodeURIComponent: everything but A–Z a–z 0–9 - _ . ! ~ * ' ( ) is escaped.
    static func percentEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-_.!~*'()")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    struct DecodedUpload {
        var sampleRate: Int
        var channels: Int
        var float32: Bool
        var frames: Int64
        /// pocketsphinx's text, when asked for and it could decode.
        var recognized: String?
    }

    private let recognizerLock = NSLock()
    private var recognizer: PocketSphinxDecoder?

    /// Reads the uploaded audio with libsndfile, as an HQ provider would, and (in pocketsphinx mode) recognizes it.
    private func decode(_ bytes: ArraySlice<UInt8>, recognize: Bool) -> DecodedUpload? {
        let path = configuration.dataDirectory + "/upload-\(UUID().uuidString).tmp"
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)), let file = try? SoundFile.open(path: path) else { return nil }
        var upload = DecodedUpload(sampleRate: file.sampleRate, channels: file.channels, float32: file.isFloat32, frames: file.frames)
        if recognize, let samples = try? SpeechConversion.recognizerSamples(fromFile: path) {
            upload.recognized = recognizerLock.withLock { () -> String? in
                if recognizer == nil { recognizer = try? PocketSphinxDecoder() }
                return try? recognizer?.transcribe(samples)
            }
        }
        return upload
    }

    static func randomToken(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
