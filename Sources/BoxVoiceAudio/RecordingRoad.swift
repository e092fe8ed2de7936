import Foundation
import Synchronization

/// The recording's own road from the microphone to disk, on a thread of its own.
///
/// Capture → this thread → segment files: nothing slower (the recognizer, a second opinion, the network) can hold it
/// up. What it wrote is handed on to `hearing`, a short queue the recognizer reads behind it; a recognizer that falls
/// too far behind (a busy machine) skips ahead there and never takes audio from the recording. A source without a
/// device clock (a file) is instead read no faster than it is heard, since nothing is lost by waiting.
///
/// Which message the audio belongs to is decided behind the recording, by what the recognizer hears: `cut` ends the
/// current message's files where its command ended (reaching back into what was already written) and holds the
/// audio after it in memory until `attach` opens the next message's folder.
public final class RecordingRoad: Sendable {
    public struct Statistics: Sendable, Equatable {
        /// Frames taken from the capture (all of them reach a message's files, or are held for the next one).
        public var framesReceived: Int64 = 0
        /// Frames the recognizer never heard because it skipped ahead.
        public var framesNotHeard: Int64 = 0
    }

    /// How a message's recording ended.
    public struct Cut: Sendable, Equatable {
        /// Every segment of the message, in order.
        public var segments: [ClosedSegment]
        /// The stream frame where the message's audio ends (and the next message's begins).
        public var endFrame: Int64
    }

    /// What the road holds; touched by its thread and, for a moment per call, by the dictation loop.
    private struct State {
        /// Non-Sendable writer kept only inside this mutex: every use is under its lock.
        var writer: SegmentWriter?
        /// Stream frame of the writer's first frame.
        var writerStart: Int64 = 0
        /// Audio with no message to hold it yet: before the first message's folder exists, or after a cut.
        var held: [Float] = []
        var heldStart: Int64 = 0
        var statistics = Statistics()
        /// Segments the writer closed that the loop has not taken yet.
        var closed: [ClosedSegment] = []
        var failure: (any Error)?
    }

    public let hearing: FrameQueue
    private let capture: AudioCapture
    private let skipsAhead: Bool
    private let hearingLimitFrames: Int
    private let sampleRate: Int
    private let onLevel: @Sendable (_ elapsed: Double, _ dBFS: Double) -> Void
    private let onCaptureLoss: @Sendable (AudioCapture.Statistics) -> Void
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)
    private let running = Atomic<Bool>(false)

    /// - Parameters:
    ///   - hearingSeconds: how far the recognizer may fall behind before it skips ahead (a clocked source), or the
    ///     queue's depth (a file).
    ///   - onLevel: about ten times a second of audio, the recording's position and loudness.
    ///   - onCaptureLoss: when the capture dropped frames or the device overran (never expected: this road drains it).
    public init(
        capture: AudioCapture, hasDeviceClock: Bool, hearingSeconds: Double, sampleRate: Int = AudioRate.hertz,
        onLevel: @escaping @Sendable (Double, Double) -> Void = { _, _ in },
        onCaptureLoss: @escaping @Sendable (AudioCapture.Statistics) -> Void = { _ in }
    ) {
        self.capture = capture
        self.skipsAhead = hasDeviceClock
        self.sampleRate = sampleRate
        hearingLimitFrames = max(sampleRate / 10, Int(hearingSeconds * Double(sampleRate)))
        // A clocked source pushes past the limit and drops the oldest; a file waits for room.
        hearing = FrameQueue(capacityFrames: hasDeviceClock ? Int.max / 2 : hearingLimitFrames)
        self.onLevel = onLevel
        self.onCaptureLoss = onCaptureLoss
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }
    /// Why writing stopped, if it did (a full disk, a vanished folder): the loop stops and keeps what was written.
    public var failure: (any Error)? { state.withLock { $0.failure } }

    public func start() {
        running.store(true, ordering: .relaxed)
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "boxvoice-recording"
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// Stops the capture and this road once what was captured is written; the hearing queue is then closed too.
    public func stop() {
        capture.stop()
        hearing.close()
        if running.exchange(false, ordering: .relaxed) { finished.wait() }
    }

    /// Opens the next message's recording in `directory`: the audio held since the last cut (or since the start) is
    /// its beginning. Returns the stream frame it starts at.
    public func attach(directory: String, policy: SegmentPolicy) throws -> Int64 {
        try state.withLock { state in
            let writer = SegmentWriter(directory: directory, policy: policy, sampleRate: sampleRate)
            state.writer = writer
            state.writerStart = state.heldStart
            let held = state.held
            state.held = []
            do {
                state.closed += try writer.append(held)
            } catch {
                state.failure = error
                throw error
            }
            return state.writerStart
        }
    }

    /// Segments the current message's writer closed since the last call, in order.
    public func takeClosed() -> [ClosedSegment] {
        state.withLock { state in
            defer { state.closed = [] }
            return state.closed
        }
    }

    /// Ends the current message's recording at stream frame `frame` (nil: at everything received), never before
    /// `earliest` (what was already uploaded stays as it was); the audio after it is held for the next message.
    public func cut(at frame: Int64?, notBefore earliest: Int64) throws -> Cut {
        try state.withLock { state in
            if let failure = state.failure { throw failure }
            guard let writer = state.writer else { return Cut(segments: [], endFrame: state.heldStart) }
            let end = frame ?? state.statistics.framesReceived
            let (segments, tail) = try writer.finish(
                atFrame: end - state.writerStart, notBefore: earliest - state.writerStart)
            state.writer = nil
            state.closed = []
            // While a writer is attached nothing is held: everything received after its start went to it.
            let endFrame = state.statistics.framesReceived - Int64(tail.count)
            state.held = tail
            state.heldStart = endFrame
            return Cut(segments: segments, endFrame: endFrame)
        }
    }

    /// After a write failure: closes what the writer has open, so what reached the disk stays readable.
    public func closeAfterFault() {
        state.withLock { state in
            _ = try? state.writer?.finish()
            state.writer = nil
        }
    }

    /// Stream frames taken from the capture so far: where a key pressed now lies in the audio.
    public var framesReceived: Int64 { state.withLock { $0.statistics.framesReceived } }

    // MARK: the road's thread

    private func run() {
        var sinceLevel = 0
        var told = AudioCapture.Statistics()
        var lastLossCheck = Date()
        func tellLoss() {
            let now = capture.statistics
            guard now.framesDropped != told.framesDropped || now.overruns != told.overruns else { return }
            told = now
            onCaptureLoss(now)
        }
        capture.queue.drain(.live(rate: sampleRate)) { chunks in
            write(chunks)
            for chunk in chunks {
                sinceLevel += chunk.samples.count
                if sinceLevel >= sampleRate / 10 {
                    sinceLevel = 0
                    onLevel(
                        Double(chunk.startFrame + Int64(chunk.samples.count)) / Double(sampleRate),
                        Self.loudness(chunk.samples))
                }
                if skipsAhead {
                    let dropped = hearing.push(chunk, keepingAtMost: hearingLimitFrames, dropTo: hearingLimitFrames / 2)
                    if dropped > 0 { state.withLock { $0.statistics.framesNotHeard += Int64(dropped) } }
                } else {
                    // False once the loop stopped listening (the dictation ended): the rest is only recorded.
                    _ = hearing.put(chunk)
                }
            }
            if Date().timeIntervalSince(lastLossCheck) >= 1 {
                lastLossCheck = Date()
                tellLoss()
            }
            return .more
        }
        tellLoss()
        hearing.close()
    }

    private func write(_ chunks: [AudioChunk]) {
        state.withLock { state in
            for chunk in chunks {
                state.statistics.framesReceived += Int64(chunk.samples.count)
                guard state.failure == nil else { continue }
                guard let writer = state.writer else {
                    state.held += chunk.samples
                    continue
                }
                do {
                    state.closed += try writer.append(chunk.samples)
                } catch {
                    state.failure = error
                }
            }
        }
    }

    /// RMS level in dB relative to full scale (-120 for digital silence).
    public static func loudness(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return -120 }
        var sum: Double = 0
        for sample in samples { sum += Double(sample) * Double(sample) }
        let mean = sum / Double(samples.count)
        return mean > 1e-12 ? max(-120, 10 * log10(mean)) : -120
    }
}
