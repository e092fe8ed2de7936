import Foundation
import Synchronization

/// The keys (Enter, Esc) and control-socket commands that reach a running dictation from other threads.
/// The session takes them between audio batches, so a trigger acts within ~0.1 s and never races the audio.
public final class DictationControl: Sendable {
    private let pending = Mutex<[DictationTrigger]>([])

    public init() {}

    public func press(_ trigger: DictationTrigger) {
        pending.withLock { $0.append(trigger) }
    }

    /// What was pressed since the last call, in order.
    public func take() -> [DictationTrigger] {
        pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }
}
