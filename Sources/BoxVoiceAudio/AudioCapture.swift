import Foundation
import Synchronization

/// Runs a capture PCM on a dedicated thread and hands Float32 chunks to a `FrameQueue`.
///
/// The capture thread does nothing but read, convert and enqueue: it never touches disk or network,
/// so a slow consumer costs dropped chunks (counted), never a device overrun.
public final class AudioCapture: @unchecked Sendable {
    // @unchecked: statistics and the failure are under `lock`; the stop flag is atomic; `thread` is set before start.
    public struct Statistics: Sendable, Equatable {
        /// Frames read from the device while recording (dropped ones included).
        public var framesCaptured: Int64 = 0
        /// Frames read but refused by a full queue.
        public var framesDropped: Int64 = 0
        public var overruns = 0
        public var suspends = 0
        /// Samples the device gave as NaN, ±Inf or beyond full scale, repaired on the way in (`SampleSanitizer`).
        public var samplesRepaired: Int64 = 0
    }

    /// What to do when the consumer falls behind.
    public enum OverflowPolicy: Sendable {
        /// Drop chunks when a device has a clock, wait when it has none (file-backed PCMs).
        case automatic
        case drop
        case wait
    }

    public let queue: FrameQueue
    private let pcm: CapturePCM
    private let waitsWhenFull: Bool
    private let lock = NSLock()
    private var stats = Statistics()
    private var failure: Error?
    /// Read by the capture thread every period without taking `lock`.
    private let stopRequested = Atomic<Bool>(false)
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    /// - Parameter queueSeconds: how much audio may wait for the consumer before chunks are dropped.
    public init(pcm: CapturePCM, queueSeconds: Double = 4, overflow: OverflowPolicy = .automatic) {
        self.pcm = pcm
        self.queue = FrameQueue(capacityFrames: max(pcm.periodFrames, Int(Double(pcm.sampleRate) * queueSeconds)))
        switch overflow {
        case .automatic: waitsWhenFull = !pcm.hasDeviceClock
        case .drop: waitsWhenFull = false
        case .wait: waitsWhenFull = true
        }
    }

    public var statistics: Statistics { lock.withLock { stats } }
    /// Why capture ended early, if it did.
    public var error: Error? { lock.withLock { failure } }

    public func start() {
        let thread = Thread { [self] in
            captureLoop()
            finished.signal()
        }
        thread.name = "boxvoice-capture"
        thread.qualityOfService = .userInteractive
        self.thread = thread
        thread.start()
    }

    /// Asks the capture thread to end after its current read (at most one period on a real device) and waits for it.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        queue.close()
        if thread != nil {
            finished.wait()
            thread = nil
        }
    }

    private var shouldStop: Bool { stopRequested.load(ordering: .acquiring) }

    private func captureLoop() {
        let frames = pcm.periodFrames
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: frames * pcm.format.bytesPerSample, alignment: 16)
        defer { buffer.deallocate() }
        var position: Int64 = 0
        do {
            while !shouldStop {
                let outcome = try pcm.read(into: buffer, frames: frames)
                guard case .frames(let count) = outcome else {
                    lock.withLock { outcome == .overrun ? (stats.overruns += 1) : (stats.suspends += 1) }
                    try pcm.recover(from: outcome)
                    continue
                }
                guard count > 0 else { continue }
                var samples: [Float] = []
                let repaired = pcm.format.convertToFloat(buffer, frameCount: count, appendingTo: &samples)
                let chunk = AudioChunk(startFrame: position, samples: samples)
                position += Int64(count)
                let accepted = waitsWhenFull ? queue.put(chunk) : queue.offer(chunk)
                lock.withLock {
                    // A chunk refused because the recording is stopping was never part of it.
                    guard accepted || !shouldStop else { return }
                    stats.framesCaptured += Int64(count)
                    stats.samplesRepaired += Int64(repaired)
                    if !accepted { stats.framesDropped += Int64(count) }
                }
            }
        } catch {
            lock.withLock { failure = error }
        }
        queue.close()
    }
}
