import BoxVoiceSync
import Foundation
import Synchronization

/// A request to stop, set from a signal handler or another thread.
public final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)
    private let bell = WakeUp()
    public init() {}
    public func request() {
        flag.store(true, ordering: .relaxed)
        bell.ring()
    }
    public var isRequested: Bool { flag.load(ordering: .relaxed) }

    /// Sleeps until a stop is requested or `deadline` passes, and says whether one was (a loop's timer that must
    /// still end at once on a stop).
    @discardableResult
    public func wait(until deadline: Date = .distantFuture) -> Bool {
        bell.wait(until: deadline) { isRequested }
    }

    /// Requests a stop on SIGINT or SIGTERM (their default action, dying mid-write, is ignored from now on).
    /// Keep the returned sources alive as long as the handling should last.
    public func requestOnTerminationSignals() -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in request() }
            source.resume()
            return source
        }
    }
}

/// Why a recording ended.
public enum RecordingEnd: Sendable, Equatable {
    case reachedMaxDuration
    case stopRequested
    /// The device failed; everything captured before is in the segments.
    case deviceFailed(String)
}

public struct RecordingSummary: Sendable {
    public var segments: [ClosedSegment]
    public var frames: Int64
    public var capture: AudioCapture.Statistics
    public var end: RecordingEnd
}

/// A write failure in the middle of a recording, saying what was kept.
public struct RecordingWriteError: Error, CustomStringConvertible {
    public let underlying: Error
    public let keptSegments: [ClosedSegment]
    public let partialSegment: String?

    public var description: String {
        var reason = String(describing: underlying)
        while reason.hasSuffix(".") { reason.removeLast() }
        var text = "recording stopped: \(reason)."
        text +=
            keptSegments.isEmpty
            ? " No segment was completed." : " \(keptSegments.count) completed segment(s) are kept."
        if let partialSegment {
            text +=
                " The segment being written, \(partialSegment), holds what reached the disk; `boxvoice repair` fixes "
                + "its header if it was damaged."
        }
        return text + " Check that the folder is writable and the disk has free space, then record again."
    }
}

/// Moves audio from a running capture into a segment writer until a duration, a stop request, or a device failure.
/// Runs on the caller's thread; the capture thread only feeds the queue.
public final class Recorder {
    private let capture: AudioCapture
    private let writer: SegmentWriter
    private let maxFrames: Int64?

    public init(capture: AudioCapture, writer: SegmentWriter, maxFrames: Int64? = nil) {
        self.capture = capture
        self.writer = writer
        self.maxFrames = maxFrames
    }

    public func run(stop: StopSignal, onSegment: (ClosedSegment) -> Void = { _ in }) throws -> RecordingSummary {
        var segments: [ClosedSegment] = []
        var written: Int64 = 0
        func deliver(_ closed: [ClosedSegment]) {
            segments += closed
            closed.forEach(onSegment)
        }
        /// Writes a batch of chunks; true once `maxFrames` is reached.
        func write(_ chunks: [AudioChunk]) throws -> Bool {
            for chunk in chunks {
                var samples = chunk.samples
                if let maxFrames, written + Int64(samples.count) >= maxFrames {
                    samples.removeLast(Int(written + Int64(samples.count) - maxFrames))
                }
                deliver(try writer.append(samples))
                written += Int64(samples.count)
                if let maxFrames, written >= maxFrames { return true }
            }
            return false
        }
        var stopped = false, reachedMax = false
        let end: RecordingEnd
        capture.start()
        do {
            try capture.queue.drain { chunks in
                // A stop closes the queue: what was already captured is still written.
                if stop.isRequested, !stopped {
                    capture.stop()
                    stopped = true
                }
                reachedMax = try write(chunks)
                return reachedMax ? .enough : .more
            }
            if stopped {
                end = .stopRequested
            } else if reachedMax {
                end = .reachedMaxDuration
            } else {
                end = capture.error.map { .deviceFailed(String(describing: $0)) } ?? .stopRequested
            }
            capture.stop()
            if let last = try writer.finish() { deliver([last]) }
        } catch {
            capture.stop()
            let partial = writer.openSegmentPath
            _ = try? writer.finish()
            throw RecordingWriteError(underlying: error, keptSegments: segments, partialSegment: partial)
        }
        return RecordingSummary(segments: segments, frames: written, capture: capture.statistics, end: end)
    }
}
