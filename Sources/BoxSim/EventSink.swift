import Foundation

/// Fans the box's transient events out to whoever listens (the event WebSocket, tests).
final class EventSink: @unchecked Sendable {
    // @unchecked: `handlers` and `nextToken` are touched under `lock` only.
    typealias Handler = @Sendable (String, [String: String]) -> Void
    private let lock = NSLock()
    private var handlers: [Int: Handler] = [:]
    private var nextToken = 0

    func add(_ handler: @escaping Handler) -> Int {
        lock.withLock {
            nextToken += 1
            handlers[nextToken] = handler
            return nextToken
        }
    }

    func remove(_ token: Int) { _ = lock.withLock { handlers.removeValue(forKey: token) } }

    func emit(_ event: String, _ data: [String: String]) {
        let current = lock.withLock { Array(handlers.values) }
        for handler in current { handler(event, data) }
    }
}
