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
    private let condition = NSCondition()
    private var chunks: [AudioChunk] = []
    private var head = 0
    private var queuedFrames = 0
    private var closed = false
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

    /// Enqueues, waiting for room; false only when the queue was closed.
    @discardableResult
    public func put(_ chunk: AudioChunk) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed, queuedFrames > 0, queuedFrames + chunk.samples.count > capacityFrames {
            condition.wait()
        }
        guard !closed else { return false }
        append(chunk)
        return true
    }

    private func append(_ chunk: AudioChunk) {
        chunks.append(chunk)
        queuedFrames += chunk.samples.count
        condition.broadcast()
    }

    /// The next chunk; nil when the queue is closed and drained, or when `timeout` passes first.
    public func take(timeout: TimeInterval) -> AudioChunk? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while head == chunks.count {
            if closed || !condition.wait(until: deadline) { return nil }
        }
        let chunk = chunks[head]
        head += 1
        queuedFrames -= chunk.samples.count
        if head > 64, head * 2 > chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return chunk
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
