import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceStore
import Foundation
import Synchronization

/// Learns from the box's stored events which session a run's `"new"` first message opened (contract §5): the box
/// emits `chat-user-message` with `sessionId: null` for it (its text carries our `message-id`), then
/// `chat-session-assigned {"sessionId"}`. The run — and every message of it, sent or waiting — is then in that
/// session, and the messages held for it can go.
public final class SessionAssignments: Sendable {
    private let store: MessageStore
    private let onAssigned: @Sendable (SessionRun.ID, String) -> Void
    /// Runs whose `"new"` message the box has announced, oldest first, each waiting for the assignment that follows.
    private let announced = Mutex<[SessionRun.ID]>([])

    public init(store: MessageStore, onAssigned: @escaping @Sendable (SessionRun.ID, String) -> Void) {
        self.store = store
        self.onAssigned = onAssigned
    }

    public func handle(_ update: EventStream.Update) {
        guard case .event(let name, let data, _) = update else { return }
        switch name {
        case "chat-user-message":
            // Only a message that opened a new session has no sessionId yet.
            guard data["sessionId"] == nil, let text = data["message"], let id = Self.messageId(in: text),
                let message = try? store.message(id), let run = message.run,
                let state = try? store.run(run)?.state, state != .known
            else { return }
            announced.withLock { $0.append(run) }
        case "chat-session-assigned":
            guard let session = data["sessionId"], !session.isEmpty,
                let run = announced.withLock({ $0.isEmpty ? nil : $0.removeFirst() })
            else { return }
            do {
                try store.assignRunSession(run, session: session)
                onAssigned(run, session)
            } catch {
                // Not recorded: delivery falls back to the box's default after its patience runs out.
            }
        default:
            break
        }
    }

    /// The `message-id` attribute of a framed `<speech …>` message.
    static func messageId(in framed: String) -> MessageID? {
        guard let open = framed.range(of: "<speech"), let close = framed[open.upperBound...].firstIndex(of: ">") else {
            return nil
        }
        let tag = framed[open.upperBound..<close]
        guard let start = tag.range(of: " message-id=\"") else { return nil }
        let value = tag[start.upperBound...].prefix { $0 != "\"" }
        return MessageID(exactly: String(value))
    }
}
