import BoxVoiceContract
import Foundation

/// The box's event WebSocket (`events.subscribe`, contract §7.1): subscriptions per connection under the client's
/// own ids, transient and stored events (replayable by `lastEventId`, kept across restarts), the error frames, and the
/// raw-text keep-alive that cuts a silent client without a close frame.
final class EventHub: @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `lock` only.
    private struct Connection {
        var subscriptions: [EventFrames.RequestID: EventFrames.Reply] = [:]
        var lastClientFrame = Date()
        var pingSentAt: Date?
    }

    static let subscriptionPath = "events.subscribe"
    private let lock = NSLock()
    private var connections: [Int: Connection] = [:]
    private var stored: StoredEvents
    private let pingInterval: TimeInterval
    private let pongGrace: TimeInterval
    private weak var server: HTTPServer?
    private var running = true

    init(server: HTTPServer, dataDirectory: String, pingInterval: TimeInterval, pongGrace: TimeInterval) throws {
        self.server = server
        self.pingInterval = pingInterval
        self.pongGrace = pongGrace
        stored = try StoredEvents(directory: dataDirectory)
        let thread = Thread { [weak self] in
            while let hub = self, hub.isRunning {
                hub.tick()
                Thread.sleep(forTimeInterval: min(0.05, pingInterval / 4))
            }
        }
        thread.name = "boxsim-keepalive"
        thread.start()
    }

    private var isRunning: Bool { lock.withLock { running } }

    func shutdown() { lock.withLock { running = false } }

    // MARK: connections

    func opened(_ id: Int) { lock.withLock { connections[id] = Connection() } }

    func closed(_ id: Int) { _ = lock.withLock { connections.removeValue(forKey: id) } }

    func received(_ connection: Int, _ text: String) {
        // Any text frame re-arms the keep-alive timer (RFC 6455 pings do not reach here).
        lock.withLock {
            connections[connection]?.lastClientFrame = Date()
            connections[connection]?.pingSentAt = nil
        }
        switch EventFrames.parseClient(text) {
        case .ping:
            send(EventFrames.pong, to: connection)
        case .pong:
            break
        case .unreadable:
            send(
                EventFrames.error(.init(id: nil), message: "Unable to parse message", code: .parseError, path: nil),
                to: connection)
        case .unknownMethod(let reply, let method):
            send(
                EventFrames.error(reply, message: "Unknown method \"\(method)\"", code: .badRequest, path: nil),
                to: connection)
        case .subscribe(let reply, let path, let lastEventId):
            subscribe(connection, reply, path: path, lastEventId: lastEventId)
        case .stop(let reply):
            // A stop for an id with no live subscription gets no answer.
            let live: Bool = lock.withLock {
                guard let id = reply.id else { return false }
                return connections[connection]?.subscriptions.removeValue(forKey: id) != nil
            }
            if live { send(EventFrames.stopped(reply), to: connection) }
        }
    }

    private func subscribe(
        _ connection: Int, _ reply: EventFrames.Reply, path: String, lastEventId: EventFrames.LastEventID
    ) {
        guard let id = reply.id else {
            send(
                EventFrames.error(reply, message: "A subscription needs an id", code: .badRequest, path: nil),
                to: connection)
            return
        }
        guard path == Self.subscriptionPath else {
            send(
                EventFrames.error(
                    reply, message: "No \"subscription\"-procedure on path \"\(path)\"", code: .notFound, path: path),
                to: connection)
            return
        }
        if case .invalid = lastEventId {
            send(
                EventFrames.error(reply, message: "lastEventId must be a string", code: .badRequest, path: path),
                to: connection)
            return
        }
        // Registering, answering `started` and replaying happen under the lock, so a live event emitted meanwhile
        // comes after the replay, never before or twice.
        lock.withLock {
            guard connections[connection] != nil else { return }
            guard connections[connection]?.subscriptions[id] == nil else {
                // The earlier subscription under this id stays live.
                server?.send(
                    EventFrames.error(reply, message: "Duplicate id \(id)", code: .badRequest, path: path),
                    to: connection)
                return
            }
            connections[connection]?.subscriptions[id] = reply
            server?.send(EventFrames.started(reply), to: connection)
            if case .given(let last) = lastEventId {
                for event in stored.after(last) {
                    server?.send(
                        EventFrames.event(reply, name: event.name, dataJSON: event.data, trackedId: String(event.id)),
                        to: connection)
                }
            }
        }
    }

    private func send(_ text: String, to connection: Int) { server?.send(text, to: connection) }

    // MARK: events

    /// A transient event: delivered to whoever is subscribed now, never stored or replayed.
    func emitTransient(_ name: String, dataJSON: String) {
        lock.withLock { deliverLocked(name, dataJSON, trackedId: nil) }
    }

    /// A stored event under the next id, replayed to a subscriber that names an earlier `lastEventId`.
    @discardableResult
    func emitStored(_ name: String, dataJSON: String) -> Int {
        lock.withLock {
            let event = stored.append(name: name, data: dataJSON)
            deliverLocked(name, dataJSON, trackedId: String(event.id))
            return event.id
        }
    }

    /// The stored events kept now (for inspection).
    var storedEvents: [StoredEvents.Event] { lock.withLock { stored.events } }

    /// Ends every subscription as a failing procedure does on the box: an error frame for its id, then `stopped`; the
    /// connection stays open (a simulator feature: the box has no such route).
    func failSubscriptions(message: String) {
        lock.withLock {
            for (connection, state) in connections {
                for reply in state.subscriptions.values {
                    server?.send(
                        EventFrames.error(
                            reply, message: message, code: .internalServerError, path: Self.subscriptionPath),
                        to: connection)
                    server?.send(EventFrames.stopped(reply), to: connection)
                }
                connections[connection]?.subscriptions.removeAll()
            }
        }
    }

    /// Holding the lock while sending keeps every subscriber's events in emission order.
    private func deliverLocked(_ name: String, _ dataJSON: String, trackedId: String?) {
        for (connection, state) in connections {
            for reply in state.subscriptions.values {
                server?.send(
                    EventFrames.event(reply, name: name, dataJSON: dataJSON, trackedId: trackedId), to: connection)
            }
        }
    }

    /// Keep-alive: after `pingInterval` without a frame from the client, two raw `PING`s (the box runs two keep-alive
    /// timers); unless a frame comes within `pongGrace`, the socket is cut — no close frame.
    private func tick() {
        let now = Date()
        var toPing: [Int] = []
        var toCut: [Int] = []
        lock.withLock {
            for (id, state) in connections {
                if let sent = state.pingSentAt {
                    if now.timeIntervalSince(sent) >= pongGrace { toCut.append(id) }
                } else if now.timeIntervalSince(state.lastClientFrame) >= pingInterval {
                    connections[id]?.pingSentAt = now
                    toPing.append(id)
                }
            }
            for id in toCut { connections.removeValue(forKey: id) }
        }
        for id in toPing {
            send(EventFrames.ping, to: id)
            send(EventFrames.ping, to: id)
        }
        for id in toCut { server?.cut(id) }
    }

    var connectionCount: Int { lock.withLock { connections.count } }
}
