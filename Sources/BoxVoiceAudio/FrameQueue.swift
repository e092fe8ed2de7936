import Foundation

/// A run of captured mono Float32 samples, `startFrame` counted from the start of the capture.
public struct AudioChunk: Sendable, Equatable {
    public var startFrame: Int64
    public var samples: [Float]

    public init(startFrame: Int64, samples: [Float]) {
        self.startFrame = startFrame
        self.samples = samples
    }
}

/// A bounded hand-over from the capture thread to the consumer.
///
/// The capture thread calls `offer`, which never waits: when the queue is full the chunk is refused and the
/// caller counts it as dropped (a real-time device would overrun anyway if the reader stalled).
/// `put` waits for room and is only for sources without a device clock.
public final class FrameQueue: @unchecked Sendable {
    // @unchecked: every field is touched with `condition` held (takers and putters really wait on it).
    private let condition = NSCondition()
    private var chunks: [AudioChunk] = []
    private var head = 0
    private var queuedFrames = 0
    private var closed = false
    /// Threads blocked in `take` / `put`: signalling only when someone waits saves a futex call per period.
    private var waitingTakers = 0
    /// The frames the waiting taker wants before it is worth waking.
    private var wakeThreshold = 1
    private var waitingPutters = 0
    public let capacityFrames: Int

    public init(capacityFrames: Int) {
        precondition(capacityFrames > 0)
        self.capacityFrames = capacityFrames
    }

    /// Enqueues without waiting; false when there is no room (or the queue is closed).
    public func offer(_ chunk: AudioChunk) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, queuedFrames + chunk.samples.count <= capacityFrames else { return false }
        append(chunk)
        return true
    }

    /// Enqueues without waiting. When more than `limit` frames are then queued, the oldest chunks are dropped until
    /// at most `target` are: for a consumer that may fall behind and should then skip ahead to what is recent (the
    /// recognizer) in one jump rather than a frame at a time; never for the recording. Returns how many frames were
    /// dropped (the chunk itself when the queue is closed).
    @discardableResult
    public func push(_ chunk: AudioChunk, keepingAtMost limit: Int, dropTo target: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return chunk.samples.count }
        append(chunk)
        guard queuedFrames > limit else { return 0 }
        var dropped = 0
        while queuedFrames > max(target, chunk.samples.count), head < chunks.count - 1 {
            dropped += chunks[head].samples.count
            queuedFrames -= chunks[head].samples.count
            head += 1
        }
        // A consumer that stalls never takes, so the dropped chunks are let go here.
        if head > 64, head * 2 > chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
        return dropped
    }

    /// Frames waiting to be taken.
    public var framesQueued: Int {
        condition.lock()
        defer { condition.unlock() }
        return queuedFrames
    }

    /// Enqueues, waiting for room; false only when the queue was closed.
    @discardableResult
    public func put(_ chunk: AudioChunk) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed, queuedFrames > 0, queuedFrames + chunk.samples.count > capacityFrames {
            waitingPutters += 1
            condition.wait()
            waitingPutters -= 1
        }
        guard !closed else { return false }
        append(chunk)
        return true
    }

    private func append(_ chunk: AudioChunk) {
        chunks.append(chunk)
        queuedFrames += chunk.samples.count
        if waitingTakers > 0, queuedFrames >= wakeThreshold { condition.broadcast() }
    }

    /// The next chunk; nil when the queue is closed and drained, or when `timeout` passes first.
    public func take(timeout: TimeInterval) -> AudioChunk? {
        takeChunks(limitFrames: 1, timeout: timeout).first
    }

    /// Everything queued, oldest first, up to about `limitFrames` (at least one chunk). Waits up to `timeout`
    /// until `minFrames` are queued (or the queue closes), then takes what there is: a consumer wakes once
    /// per batch rather than once per period, and one that fell behind catches up in one go.
    public func takeAll(minFrames: Int = 1, limitFrames: Int = .max, timeout: TimeInterval) -> [AudioChunk] {
        takeChunks(minFrames: minFrames, limitFrames: limitFrames, timeout: timeout)
    }

    private func takeChunks(minFrames: Int = 1, limitFrames: Int, timeout: TimeInterval) -> [AudioChunk] {
        condition.lock()
        defer { condition.unlock() }
        let wanted = min(max(minFrames, 1), capacityFrames)
        if queuedFrames < wanted, !closed, timeout > 0 {
            let deadline = Date(timeIntervalSinceNow: timeout)
            waitingTakers += 1
            wakeThreshold = wanted
            while queuedFrames < wanted, !closed, condition.wait(until: deadline) {}
            waitingTakers -= 1
            wakeThreshold = 1
        }
        var taken: [AudioChunk] = []
        var frames = 0
        while head < chunks.count, taken.isEmpty || frames + chunks[head].samples.count <= limitFrames {
            taken.append(chunks[head])
            frames += chunks[head].samples.count
            head += 1
        }
        queuedFrames -= frames
        if head > 64, head * 2 > chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
        if !taken.isEmpty, waitingPutters > 0 { condition.broadcast() }
        return taken
    }

    /// No more chunks will come; waiting takers drain what is queued and then get nil.
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    public var isClosedAndEmpty: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed && head == chunks.count
    }
}
