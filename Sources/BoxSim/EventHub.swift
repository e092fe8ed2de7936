import BoxVoiceContract
import Foundation

/// The box's event WebSocket (`events.subscribe`, contract §7.1): subscriptions per connection, transient and
/// tracked (stored, replayable by `lastEventId`) events, and the raw-text PING keep-alive that drops silent clients.
final class EventHub: @unchecked Sendable {
    private struct Connection {
        var subscriptions: Set<Int> = []
        var lastClientFrame = Date()
        var pingSentAt: Date?
    }

    private let lock = NSLock()
    private var connections: [Int: Connection] = [:]
    private var stored: [(id: Int, name: String, data: [String: String])] = []
    private var nextStoredId = 1
    private let pingInterval: TimeInterval
    private let pongGrace: TimeInterval
    private weak var server: HTTPServer?
    private var keepAlive: Thread?
    private var running = true

    init(server: HTTPServer, pingInterval: TimeInterval, pongGrace: TimeInterval) {
        self.server = server
        self.pingInterval = pingInterval
        self.pongGrace = pongGrace
        let thread = Thread { [weak self] in
            while let hub = self, hub.isRunning {
                hub.tick()
                Thread.sleep(forTimeInterval: min(0.05, pingInterval / 4))
            }
        }
        thread.name = "boxsim-keepalive"
        keepAlive = thread
        thread.start()
    }

    private var isRunning: Bool { lock.withLock { running } }

    func shutdown() { lock.withLock { running = false } }

    // MARK: connections

    func opened(_ id: Int) { lock.withLock { connections[id] = Connection() } }

    func closed(_ id: Int) { _ = lock.withLock { connections.removeValue(forKey: id) } }

    func received(_ id: Int, _ text: String) {
        lock.withLock {
            connections[id]?.lastClientFrame = Date()
            connections[id]?.pingSentAt = nil
        }
        switch EventFrames.parseClient(text) {
        case .pong, .unknown:
            break
        case .subscribe(let subscription, let path, let lastEventId):
            guard path == "events.subscribe" else {
                server?.send(EventFrames.error(id: subscription, message: "No subscription procedure on path \"\(path)\"", code: "NOT_FOUND", httpStatus: 404), to: id)
                return
            }
            // Started, then any stored events after lastEventId, in order, before live ones.
            let replay: [(id: Int, name: String, data: [String: String])] = lock.withLock {
                connections[id]?.subscriptions.insert(subscription)
                guard let last = lastEventId.flatMap({ Int($0) }) else { return [] }
                return stored.filter { $0.id > last }
            }
            server?.send(EventFrames.started(id: subscription), to: id)
            for event in replay {
                server?.send(EventFrames.event(id: subscription, name: event.name, data: event.data, trackedId: String(event.id)), to: id)
            }
        case .stop(let subscription):
            _ = lock.withLock { connections[id]?.subscriptions.remove(subscription) }
            server?.send(EventFrames.stopped(id: subscription), to: id)
        }
    }

    // MARK: events

    /// A transient event: delivered to whoever is subscribed now, never stored or replayed.
    func emitTransient(_ name: String, _ data: [String: String]) {
        deliver(name, data, trackedId: nil)
    }

    /// A stored event with the next id: replayed to a subscriber that names an earlier `lastEventId`.
    func emitTracked(_ name: String, _ data: [String: String]) {
        let id: Int = lock.withLock {
            defer { nextStoredId += 1 }
            stored.append((nextStoredId, name, data))
            if stored.count > 500 { stored.removeFirst(stored.count - 500) }
            return nextStoredId
        }
        deliver(name, data, trackedId: String(id))
    }

    /// Ends every subscription with an error frame, as the box's tRPC server does when a subscription's procedure
    /// fails; the connections stay open (a simulator feature: the box has no such route).
    func failSubscriptions(message: String) {
        lock.withLock {
            for (connection, state) in connections {
                for subscription in state.subscriptions.sorted() {
                    server?.send(EventFrames.error(id: subscription, message: message, code: "INTERNAL_SERVER_ERROR", httpStatus: 500), to: connection)
                }
                connections[connection]?.subscriptions.removeAll()
            }
        }
    }

    private func deliver(_ name: String, _ data: [String: String], trackedId: String?) {
        // Holding the lock while sending keeps every subscriber's events in emission order.
        lock.withLock {
            for (connection, state) in connections {
                for subscription in state.subscriptions.sorted() {
                    server?.send(EventFrames.event(id: subscription, name: name, data: data, trackedId: trackedId), to: connection)
                }
            }
        }
    }

    /// Keep-alive: PING a silent client, drop it when the PING goes unanswered.
    private func tick() {
        let now = Date()
        var toPing: [Int] = []
        var toDrop: [Int] = []
        lock.withLock {
            for (id, state) in connections {
                if let sent = state.pingSentAt {
                    if now.timeIntervalSince(sent) >= pongGrace { toDrop.append(id) }
                } else if now.timeIntervalSince(state.lastClientFrame) >= pingInterval {
                    connections[id]?.pingSentAt = now
                    toPing.append(id)
                }
            }
        }
        for id in toPing { server?.send(EventFrames.ping, to: id) }
        for id in toDrop {
            _ = lock.withLock { connections.removeValue(forKey: id) }
            server?.close(id)
        }
    }

    var connectionCount: Int { lock.withLock { connections.count } }
}
