import Foundation
import Synchronization

/// The keys (Enter, Esc) and control-socket commands that reach a running dictation from other threads.
/// The session takes them between audio batches, so a trigger acts within ~0.1 s and never races the audio.
public final class DictationControl: Sendable {
    private let pending = Mutex<[DictationTrigger]>([])
    /// What the running session does when the user asks to send the live text now.
    private let liveTextNow = Mutex<(@Sendable () -> Bool)?>(nil)

    public init() {}

    /// Tab: the message whose HQ text is being waited for goes out with its live text at once. Unlike a trigger it
    /// does not wait for the audio (the wait can come after the microphone closed). Returns whether one was waiting.
    @discardableResult
    public func sendLiveTextNow() -> Bool {
        liveTextNow.withLock { $0 }?() ?? false
    }

    /// The session says how it sends the live text now.
    func onLiveTextNow(_ action: @escaping @Sendable () -> Bool) {
        liveTextNow.withLock { $0 = action }
    }

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
