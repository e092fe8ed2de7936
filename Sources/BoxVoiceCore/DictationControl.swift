import Foundation

/// The keys (Enter, Esc) and control-socket commands that reach a running dictation from other threads.
/// The session takes them between audio batches, so a trigger acts within ~0.1 s and never races the audio.
public final class DictationControl: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [DictationTrigger] = []

    public init() {}

    public func press(_ trigger: DictationTrigger) {
        lock.withLock { pending.append(trigger) }
    }

    /// What was pressed since the last call, in order.
    public func take() -> [DictationTrigger] {
        lock.withLock {
            defer { pending.removeAll() }
            return pending
        }
    }
}
