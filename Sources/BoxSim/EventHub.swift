import BoxVoiceContract
import BoxVoiceSync
import Foundation
import Synchronization

/// The box's event WebSocket (`events.subscribe`, contract §7.1): subscriptions per connection under the client's
/// own ids, transient and stored events (replayable by `lastEventId`, kept across restarts), the error frames, and the
/// raw-text keep-alive that cuts a silent client without a close frame.
final class EventHub: Sendable {
    private struct Connection {
        var subscriptions: [EventFrames.RequestID: EventFrames.Reply] = [:]
        var lastClientFrame = Date()
        var pingSentAt: Date?
    }

    private struct State {
        var connections: [Int: Connection] = [:]
        var stored: StoredEvents
        var running = true
    }

    static let subscriptionPath = "events.subscribe"
    private let state: Mutex<State>
    private let pingInterval: TimeInterval
    private let pongGrace: TimeInterval
    private weak let server: HTTPServer?
    /// Rung when the keep-alive timer must look again before its next due time: a connection opened, or shutdown.
    private let keepAliveNews = WakeUp()

    init(server: HTTPServer, dataDirectory: String, pingInterval: TimeInterval, pongGrace: TimeInterval) throws {
        self.server = server
        self.pingInterval = pingInterval
        self.pongGrace = pongGrace
        state = Mutex(State(stored: try StoredEvents(directory: dataDirectory)))
        let news = keepAliveNews
        let thread = Thread { [weak self] in
            while true {
                let ticket = news.ticket
                // The hub is held only while it ticks, so the thread ends once nobody else holds it.
                guard let next = self?.tick() else { return }
                news.wait(until: next, after: ticket)
            }
        }
        thread.name = "boxsim-keepalive"
        thread.start()
    }

    func shutdown() {
        state.withLock { $0.running = false }
        keepAliveNews.ring()
    }

    // MARK: connections

    func opened(_ id: Int) {
        state.withLock { $0.connections[id] = Connection() }
        keepAliveNews.ring()
    }

    func closed(_ id: Int) { _ = state.withLock { $0.connections.removeValue(forKey: id) } }

    func received(_ connection: Int, _ text: String) {
        // Any text frame re-arms the keep-alive timer (RFC 6455 pings do not reach here).
        state.withLock {
            $0.connections[connection]?.lastClientFrame = Date()
            $0.connections[connection]?.pingSentAt = nil
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
            let live: Bool = state.withLock {
                guard let id = reply.id else { return false }
                return $0.connections[connection]?.subscriptions.removeValue(forKey: id) != nil
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
        state.withLock { state in
            guard state.connections[connection] != nil else { return }
            guard state.connections[connection]?.subscriptions[id] == nil else {
                // The earlier subscription under this id stays live.
                server?.send(
                    EventFrames.error(reply, message: "Duplicate id \(id)", code: .badRequest, path: path),
                    to: connection)
                return
            }
            state.connections[connection]?.subscriptions[id] = reply
            server?.send(EventFrames.started(reply), to: connection)
            if case .given(let last) = lastEventId {
                for event in state.stored.after(last) {
                    server?.send(
                        EventFrames.event(
                            reply, name: event.name, data: JSONValue.parse(event.data) ?? .object([:]),
                            trackedId: String(event.id)),
                        to: connection)
                }
            }
        }
    }

    private func send(_ text: String, to connection: Int) { server?.send(text, to: connection) }

    // MARK: events

    /// A transient event: delivered to whoever is subscribed now, never stored or replayed.
    func emitTransient(_ name: String, data: JSONValue) {
        state.withLock { deliver(name, data, trackedId: nil, to: $0.connections) }
    }

    /// A stored event under the next id, replayed to a subscriber that names an earlier `lastEventId`. It is kept
    /// as JSON text (as the box keeps it); live subscribers get the value itself.
    @discardableResult
    func emitStored(_ name: String, data: JSONValue) -> Int {
        state.withLock { state in
            let event = state.stored.append(name: name, data: data.text)
            deliver(name, data, trackedId: String(event.id), to: state.connections)
            return event.id
        }
    }

    /// The stored events kept now (for inspection).
    var storedEvents: [StoredEvents.Event] { state.withLock { $0.stored.events } }

    /// Ends every subscription as a failing procedure does on the box: an error frame for its id, then `stopped`; the
    /// connection stays open (a simulator feature: the box has no such route).
    func failSubscriptions(message: String) {
        state.withLock { state in
            for (connection, held) in state.connections {
                for reply in held.subscriptions.values {
                    server?.send(
                        EventFrames.error(
                            reply, message: message, code: .internalServerError, path: Self.subscriptionPath),
                        to: connection)
                    server?.send(EventFrames.stopped(reply), to: connection)
                }
                state.connections[connection]?.subscriptions.removeAll()
            }
        }
    }

    /// Called with the state locked: holding the lock while sending keeps every subscriber's events in emission order.
    private func deliver(_ name: String, _ data: JSONValue, trackedId: String?, to connections: [Int: Connection]) {
        for (connection, held) in connections {
            for reply in held.subscriptions.values {
                server?.send(EventFrames.event(reply, name: name, data: data, trackedId: trackedId), to: connection)
            }
        }
    }

    /// Keep-alive: after `pingInterval` without a frame from the client, two raw `PING`s (the box runs two keep-alive
    /// timers); unless a frame comes within `pongGrace`, the socket is cut — no close frame. Returns when it is due
    /// next (nil once shut down).
    private func tick() -> Date? {
        let now = Date()
        var toPing: [Int] = []
        var toCut: [Int] = []
        var next = now.addingTimeInterval(pingInterval)
        let running = state.withLock { state in
            guard state.running else { return false }
            for (id, held) in state.connections {
                if let sent = held.pingSentAt {
                    if now.timeIntervalSince(sent) >= pongGrace {
                        toCut.append(id)
                    } else {
                        next = min(next, sent.addingTimeInterval(pongGrace))
                    }
                } else if now.timeIntervalSince(held.lastClientFrame) >= pingInterval {
                    state.connections[id]?.pingSentAt = now
                    toPing.append(id)
                    next = min(next, now.addingTimeInterval(pongGrace))
                } else {
                    next = min(next, held.lastClientFrame.addingTimeInterval(pingInterval))
                }
            }
            for id in toCut { state.connections.removeValue(forKey: id) }
            return true
        }
        guard running else { return nil }
        for id in toPing {
            send(EventFrames.ping, to: id)
            send(EventFrames.ping, to: id)
        }
        for id in toCut { server?.cut(id) }
        return next
    }

    var connectionCount: Int { state.withLock { $0.connections.count } }
}
