import Foundation
import Synchronization

/// Runs a capture PCM on a dedicated thread and hands Float32 chunks to a `FrameQueue`.
///
/// The capture thread does nothing but read, convert and enqueue: it never touches disk or network,
/// so a slow consumer costs dropped chunks (counted), never a device overrun.
public final class AudioCapture: Sendable {
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
    // Unchecked: read by the capture thread alone once it starts (the owner only reads its constant format first).
    private nonisolated(unsafe) let pcm: CapturePCM
    private let waitsWhenFull: Bool
    private struct Outcome {
        var stats = Statistics()
        var failure: Error?
    }
    private let outcome = Mutex(Outcome())
    /// Read by the capture thread every period without taking a lock.
    private let stopRequested = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
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

    public var statistics: Statistics { outcome.withLock { $0.stats } }
    /// Why capture ended early, if it did.
    public var error: Error? { outcome.withLock { $0.failure } }

    public func start() {
        let thread = Thread { [self] in
            captureLoop()
            finished.signal()
        }
        thread.name = "boxvoice-capture"
        thread.qualityOfService = .userInteractive
        started.store(true, ordering: .releasing)
        thread.start()
    }

    /// Asks the capture thread to end after its current read (at most one period on a real device) and waits for it.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        queue.close()
        if started.exchange(false, ordering: .acquiringAndReleasing) {
            finished.wait()
        }
    }

    private var shouldStop: Bool { stopRequested.load(ordering: .acquiring) }

    private func captureLoop() {
        let frames = pcm.periodFrames
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: frames * pcm.format.bytesPerSample, alignment: 16)
        defer { buffer.deallocate() }
        var position: Int64 = 0
        do {
            while let count = try pcm.readPeriod(
                into: buffer, frames: frames, stopping: { shouldStop },
                interrupted: { interruption in
                    outcome.withLock {
                        interruption == .overrun ? ($0.stats.overruns += 1) : ($0.stats.suspends += 1)
                    }
                })
            {
                guard count > 0 else { continue }
                var samples: [Float] = []
                let repaired = pcm.format.convertToFloat(buffer, frameCount: count, appendingTo: &samples)
                let chunk = AudioChunk(startFrame: position, samples: samples)
                position += Int64(count)
                let accepted = waitsWhenFull ? queue.put(chunk) : queue.offer(chunk)
                self.outcome.withLock {
                    // A chunk refused because the recording is stopping was never part of it.
                    guard accepted || !shouldStop else { return }
                    $0.stats.framesCaptured += Int64(count)
                    $0.stats.samplesRepaired += Int64(repaired)
                    if !accepted { $0.stats.framesDropped += Int64(count) }
                }
            }
        } catch {
            outcome.withLock { $0.failure = error }
        }
        queue.close()
    }
}
