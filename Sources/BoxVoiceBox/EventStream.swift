import BoxVoiceContract
import CWebSockets
import Foundation

/// The box's event stream (contract §7.1): one `events.subscribe` over the tRPC WebSocket, kept open.
///
/// Authenticates on the upgrade with `Authorization: Bearer`, answers every raw `PING` with `PONG`, reconnects at
/// once after a drop and then backs off 0, 2, 4, 8, 16, 30 s, resubscribes with the last tracked event id, and
/// stops for good on a 401 (re-pair). This file is the only place that imports the libwebsockets C module.
public final class EventStream: @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `lock` (a condition, so a stop wakes the back-off).
    public enum Update: Sendable, Equatable {
        /// The subscription is live (`started`).
        case subscribed
        case event(name: String, data: [String: String], trackedId: String?)
        /// A `chat-last-audio-request`, decoded strictly; answer it within the box's window.
        case lastAudioRequest(LastAudioRequest)
        /// The connection ended; the next attempt starts after `retryIn` seconds.
        case disconnected(reason: String, retryIn: Double)
        /// The box refused the token (401 on the upgrade): no more attempts.
        case unauthorized
        /// A keep-alive `PING` was answered.
        case answeredPing
    }

    public let baseURL: String
    private let token: String
    private let verifyTLS: Bool
    private let backoff: [Double]
    /// With no frame from the box for this long the connection is presumed dead and replaced.
    private let idleTimeout: Double
    private let onUpdate: @Sendable (Update) -> Void

    private let lock = NSCondition()
    private var stopped = false
    private var context: OpaquePointer?
    private var thread: Thread?
    private var trackedId: String?

    /// When false, `PING` is left unanswered: only for testing a box's keep-alive.
    let answersPings: Bool

    /// - Parameter lastEventId: where a previous run of the stream stopped (stored events after it are replayed).
    public init(
        baseURL: String, token: String, verifyTLS: Bool = true, backoff: [Double] = [0, 2, 4, 8, 16, 30],
        idleTimeout: Double = 80, lastEventId: String? = nil, answersPings: Bool = true,
        onUpdate: @escaping @Sendable (Update) -> Void
    ) {
        trackedId = lastEventId
        self.answersPings = answersPings
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.token = token
        self.verifyTLS = verifyTLS
        self.backoff = backoff.isEmpty ? [0] : backoff
        self.idleTimeout = idleTimeout
        self.onUpdate = onUpdate
    }

    /// The id of the last stored event seen, sent as `lastEventId` when resubscribing.
    public var lastEventId: String? { lock.withLock { trackedId } }

    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "boxvoice-events"
        lock.withLock { self.thread = thread }
        thread.start()
    }

    /// Closes the connection and ends the reconnect loop.
    public func stop() {
        lock.withLock {
            stopped = true
            if let context { lws_cancel_service(context) }
            lock.broadcast()
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    // MARK: reconnect loop

    private func run() {
        Self.quietLibrary()
        var attempt = 0
        while !isStopped {
            let outcome = connectOnce()
            if isStopped { return }
            if outcome.unauthorized {
                onUpdate(.unauthorized)
                return
            }
            if outcome.subscribed { attempt = 0 }
            let delay = backoff[min(attempt, backoff.count - 1)]
            attempt += 1
            onUpdate(.disconnected(reason: outcome.reason, retryIn: delay))
            lock.withLock {
                let deadline = Date(timeIntervalSinceNow: delay)
                while !stopped, lock.wait(until: deadline) {}
            }
        }
    }

    private static let quiet: Void = { lws_set_log_level(0, nil) }()
    private static func quietLibrary() { _ = quiet }

    /// One connection, from connect to close.
    private func connectOnce() -> Connection.Outcome {
        guard let url = URLComponents(string: baseURL), let host = url.host,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else {
            return .init(reason: "the box address \(baseURL) is not http(s)", subscribed: false, unauthorized: false)
        }
        let secure = scheme == "https"
        let connection = Connection(stream: self, authorization: "Bearer " + token, lastEventId: lastEventId)
        let name = strdup("boxvoice-events")!
        defer { free(name) }
        var protocols = [lws_protocols](repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(name)
        protocols[0].callback = { wsi, reason, _, input, length in
            guard let wsi, let context = lws_get_context(wsi), let user = lws_context_user(context) else { return 0 }
            return Unmanaged<Connection>.fromOpaque(user).takeUnretainedValue().handle(wsi, reason, input, length)
        }
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.options = secure ? UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) : 0
        info.user = Unmanaged.passUnretained(connection).toOpaque()
        let created: OpaquePointer? = protocols.withUnsafeBufferPointer { buffer in
            info.protocols = buffer.baseAddress
            return lws_create_context(&info)
        }
        guard let created else {
            return .init(reason: "libwebsockets could not start", subscribed: false, unauthorized: false)
        }
        lock.withLock { context = created }
        defer {
            lock.withLock { context = nil }
            lws_context_destroy(created)
        }

        let path = (url.path.isEmpty ? "" : url.path) + "/api/trpc"
        let hostHeader = url.port.map { "\(host):\($0)" } ?? host
        var client = lws_client_connect_info()
        let strings: [UnsafeMutablePointer<CChar>] = [host, path, hostHeader, "boxvoice-events"].map { (text: String) in
            strdup(text)!
        }
        defer { strings.forEach { free($0) } }
        client.context = created
        client.address = UnsafePointer(strings[0])
        client.port = Int32(url.port ?? (secure ? 443 : 80))
        client.path = UnsafePointer(strings[1])
        client.host = UnsafePointer(strings[2])
        client.origin = UnsafePointer(strings[2])
        client.local_protocol_name = UnsafePointer(strings[3])
        client.ietf_version_or_minus_one = -1
        // libwebsockets follows a 3xx on the upgrade by default, repeating every header, the bearer among them, to
        // wherever it points: never. The redirect ends the attempt and is reported with its location.
        var flags = Int32(LCCSCF_HTTP_NO_FOLLOW_REDIRECT.rawValue)
        if secure {
            flags |= Int32(LCCSCF_USE_SSL.rawValue)
            if !verifyTLS {
                flags |= Int32(
                    LCCSCF_ALLOW_SELFSIGNED.rawValue | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue
                        | LCCSCF_ALLOW_INSECURE.rawValue)
            }
        }
        client.ssl_connection = flags
        guard lws_client_connect_via_info(&client) != nil else {
            return .init(reason: "cannot start a connection to \(host)", subscribed: false, unauthorized: false)
        }
        while !connection.finished, !isStopped {
            lws_service(created, 0)
        }
        return connection.outcome
    }

    fileprivate func deliver(_ update: Update) {
        if case .event(_, _, let id?) = update { lock.withLock { trackedId = id } }
        onUpdate(update)
    }

    fileprivate var idleMicroseconds: Int { Int(idleTimeout * 1_000_000) }
}

/// The state of one WebSocket connection, driven by libwebsockets callbacks on the stream's thread.
private final class Connection {
    struct Outcome {
        var reason: String
        var subscribed: Bool
        var unauthorized: Bool
    }

    /// Every frame the contract defines is small; an event's data a few kilobytes at most.
    static let maxMessageBytes = 1 << 20

    unowned let stream: EventStream
    let authorization: String
    let lastEventId: String?
    var finished = false
    var outcome = Outcome(reason: "closed", subscribed: false, unauthorized: false)
    private var outgoing: [String] = []
    private var incoming: [UInt8] = []

    init(stream: EventStream, authorization: String, lastEventId: String?) {
        self.stream = stream
        self.authorization = authorization
        self.lastEventId = lastEventId
    }

    func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int)
        -> Int32
    {
        switch reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            guard let input else { return -1 }
            let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
            guard let start = cursor.pointee else { return -1 }
            let end = start + length
            for (name, value) in [("Authorization:", authorization), ("User-Agent:", BoxClient.userAgent)] {
                let added = name.withCString { namePointer in
                    value.withCString { valuePointer in
                        lws_add_http_header_by_name(
                            wsi, UnsafeRawPointer(namePointer).assumingMemoryBound(to: UInt8.self),
                            UnsafeRawPointer(valuePointer).assumingMemoryBound(to: UInt8.self),
                            Int32(strlen(valuePointer)), cursor, end)
                    }
                }
                if added != 0 { return -1 }
            }
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            lws_set_timer_usecs(wsi, lws_usec_t(stream.idleMicroseconds))
            queue(EventFrames.subscribe(lastEventId: lastEventId), wsi)
        case LWS_CALLBACK_CLIENT_RECEIVE:
            lws_set_timer_usecs(wsi, lws_usec_t(stream.idleMicroseconds))
            guard incoming.count + length <= Self.maxMessageBytes else {
                // A message that never ends (or is absurdly long) would grow without bound: the connection is closed.
                outcome.reason =
                    "a frame from the box ran over \(Self.maxMessageBytes) bytes; the connection was closed"
                return -1
            }
            if let input, length > 0 {
                incoming.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
            if lws_is_final_fragment(wsi) != 0 {
                let text = String(decoding: incoming, as: UTF8.self)
                incoming.removeAll(keepingCapacity: true)
                // An error frame ends the subscription on the box's side: a connection left open would be deaf, so it
                // is closed and the stream reconnects and subscribes again (from the last tracked event).
                if !receive(text, wsi) { return -1 }
            }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            guard !outgoing.isEmpty else { return 0 }
            let bytes = Array(outgoing.removeFirst().utf8)
            let pre = boxvoice_lws_pre()
            var buffer = [UInt8](repeating: 0, count: pre + bytes.count)
            buffer.replaceSubrange(pre..<pre + bytes.count, with: bytes)
            let written = buffer.withUnsafeMutableBufferPointer {
                lws_write(wsi, $0.baseAddress! + pre, bytes.count, LWS_WRITE_TEXT)
            }
            if written < bytes.count { return -1 }
            if !outgoing.isEmpty { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_TIMER:
            outcome.reason = "no frame from the box for \(stream.idleMicroseconds / 1_000_000) s"
            return -1
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let status = lws_http_client_http_response(wsi)
            let message = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
            outcome.unauthorized = status == 401
            if (300..<400).contains(Int(status)) {
                outcome.reason =
                    "the box answered the upgrade with a redirect (HTTP \(status)) to "
                    + "\(Self.location(wsi) ?? "an unnamed location"), "
                    + "which boxvoice does not follow so the device token never leaves the box; check the box's address"
            } else {
                outcome.reason = status > 0 ? "the box answered HTTP \(status) to the upgrade (\(message))" : message
            }
            finished = true
        case LWS_CALLBACK_CLIENT_CLOSED:
            if outcome.reason == "closed" { outcome.reason = "the box closed the connection" }
            finished = true
        default:
            break
        }
        return 0
    }

    /// The `Location` of a redirect answer, when libwebsockets still holds the headers.
    private static func location(_ wsi: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 1_024)
        let length = lws_hdr_copy(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_LOCATION)
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func queue(_ text: String, _ wsi: OpaquePointer) {
        outgoing.append(text)
        lws_callback_on_writable(wsi)
    }

    /// - Returns: false when the connection must be closed (the box ended the subscription with an error).
    private func receive(_ text: String, _ wsi: OpaquePointer) -> Bool {
        switch EventFrames.parse(text) {
        case .ping:
            guard stream.answersPings else { return true }
            queue(EventFrames.pong, wsi)
            stream.deliver(.answeredPing)
        case .started:
            outcome.subscribed = true
            stream.deliver(.subscribed)
        case .event(let name, let data, let body, let trackedId):
            if name == "chat-last-audio-request", let request = try? LastAudioRequest.decodeEvent(body) {
                stream.deliver(.lastAudioRequest(request))
            } else {
                stream.deliver(.event(name: name, data: data, trackedId: trackedId))
            }
        case .error(_, let message, let status):
            if status == 401 { outcome.unauthorized = true }
            outcome.reason = "the box ended the subscription: \(message)"
            return false
        case .stopped:
            // Stopped by the box: without a live subscription the PINGs would keep a deaf connection open.
            outcome.reason = "the box stopped the subscription"
            return false
        case .unknown:
            break
        }
        return true
    }
}
