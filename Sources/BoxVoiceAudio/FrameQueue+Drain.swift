import Foundation

/// How a consumer of captured audio is woken: once `wakeFrames` are queued or `poll` seconds pass, whichever comes
/// first, and given at most about `limitFrames` at a time.
public struct DrainPace: Sendable, Equatable {
    public var wakeFrames: Int
    public var limitFrames: Int
    public var poll: TimeInterval

    public init(wakeFrames: Int, limitFrames: Int, poll: TimeInterval) {
        self.wakeFrames = wakeFrames
        self.limitFrames = limitFrames
        self.poll = poll
    }

    /// Every consumer's pace: a tenth of a second of audio per wake-up (one disk write, five 20 ms periods), at most
    /// a second per batch, so one that fell behind catches up in a few batches while still looking at its clock (a
    /// stop, a key) between them.
    public static func live(rate: Int = AudioRate.hertz) -> DrainPace {
        DrainPace(wakeFrames: rate / 10, limitFrames: rate, poll: 0.1)
    }
}

/// What a consumer wants after a batch.
public enum DrainStep: Sendable, Equatable {
    case more
    case enough
}

extension FrameQueue {
    /// The one loop every consumer of captured audio runs: `body` is called at each wake-up with what was taken
    /// (empty when `poll` passed first, so a consumer's own clock still ticks when no audio comes) until it says
    /// `.enough` or the queue is closed and drained. A capture stopped meanwhile closes its queue, so what it had
    /// already queued is still taken, without waiting, before the loop ends.
    public func drain(_ pace: DrainPace = .live(), _ body: ([AudioChunk]) throws -> DrainStep) rethrows {
        while true {
            let chunks = takeAll(minFrames: pace.wakeFrames, limitFrames: pace.limitFrames, timeout: pace.poll)
            if chunks.isEmpty, isClosedAndEmpty { return }
            if try body(chunks) == .enough { return }
        }
    }
}
