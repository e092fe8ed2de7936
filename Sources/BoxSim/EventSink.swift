import Foundation
import Synchronization

/// Fans the box's transient events out to whoever listens (the event WebSocket, tests).
final class EventSink: Sendable {
    typealias Handler = @Sendable (String, [String: String]) -> Void
    private let state = Mutex<(handlers: [Int: Handler], nextToken: Int)>(([:], 0))

    func add(_ handler: @escaping Handler) -> Int {
        state.withLock {
            $0.nextToken += 1
            $0.handlers[$0.nextToken] = handler
            return $0.nextToken
        }
    }

    func remove(_ token: Int) { _ = state.withLock { $0.handlers.removeValue(forKey: token) } }

    func emit(_ event: String, _ data: [String: String]) {
        let current = state.withLock { Array($0.handlers.values) }
        for handler in current { handler(event, data) }
    }
}
