import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import Foundation

/// HQ-transcribes a sound file through a box: cut into upload-sized segments at quiet points (the recorder's
/// rule), uploaded a few at a time, texts joined in order.
public struct FileTranscription: Sendable {
    public struct SegmentResult: Sendable {
        public let index: Int
        public let seconds: Double
        public let transcription: Wire.Transcription?
        public let failure: BoxFailure?
    }

    public struct Result: Sendable {
        public let text: String
        public let segments: [SegmentResult]
        /// The engine of the first segment (all use the box's one service).
        public var service: String? { segments.first?.transcription?.service }
    }

    /// Why a file could not be transcribed, with what did succeed.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let reason: String
        public let segments: [SegmentResult]
        public var description: String { reason }
    }

    public enum Event: Sendable {
        case segmented(count: Int, seconds: Double)
        case uploaded(SegmentResult, of: Int)
        case retrying(index: Int, attempt: Int, failure: BoxFailure)
    }

    public let client: BoxClient
    public var session: String?
    public var policy = SegmentPolicy()
    public var maxParallel = 3
    /// Extra tries for an uncertain failure, with this many seconds before each.
    public var retryDelays: [Double] = [1, 2]

    public init(client: BoxClient, session: String?) {
        self.client = client
        self.session = session
    }

    /// - Parameter workDirectory: where the segments are written (removed by the caller when it likes).
    public func run(file: String, workDirectory: String, onEvent: @escaping @Sendable (Event) -> Void = { _ in }) throws -> Result {
        let segments = try Self.cut(file: file, into: workDirectory, policy: policy)
        onEvent(.segmented(count: segments.count, seconds: segments.reduce(0) { $0 + $1.duration }))
        guard !segments.isEmpty else { return Result(text: "", segments: []) }

        let state = UploadState(count: segments.count)
        let workers = DispatchGroup()
        for _ in 0..<min(maxParallel, segments.count) {
            DispatchQueue.global().async(group: workers) {
                while let index = state.next() {
                    let result = upload(segments[index], index: index, state: state, onEvent: onEvent)
                    state.finish(index, result)
                    onEvent(.uploaded(result, of: segments.count))
                }
            }
        }
        workers.wait()
        let results = state.results.compactMap { $0 }
        if let failure = state.stopReason {
            let done = results.filter { $0.transcription != nil }.count
            throw Failure(reason: "\(failure) \(done) of \(segments.count) segment(s) were transcribed before it stopped.", segments: results)
        }
        let text = results.compactMap { $0.transcription?.text.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        return Result(text: text, segments: results)
    }

    private func upload(_ segment: ClosedSegment, index: Int, state: UploadState, onEvent: @Sendable (Event) -> Void) -> SegmentResult {
        var attempt = 0
        while true {
            do {
                let transcription = try client.transcribe(wavPath: segment.path, session: session)
                return SegmentResult(index: index, seconds: segment.duration, transcription: transcription, failure: nil)
            } catch {
                if error.isRetryable, attempt < retryDelays.count, state.stopReason == nil {
                    attempt += 1
                    onEvent(.retrying(index: index, attempt: attempt, failure: error))
                    Thread.sleep(forTimeInterval: retryDelays[attempt - 1])
                    continue
                }
                // A permanent or definitive failure will hit every other segment too: stop, report once.
                state.stop(error)
                return SegmentResult(index: index, seconds: segment.duration, transcription: nil, failure: error)
            }
        }
    }

    /// Converts any readable sound file to 48 kHz mono Float32 segments.
    static func cut(file: String, into directory: String, policy: SegmentPolicy) throws -> [ClosedSegment] {
        let source = try SoundFile.open(path: file)
        let writer = SegmentWriter(directory: directory, policy: policy)
        let resampler = source.sampleRate == 48_000 ? nil : try Resampler(from: Double(source.sampleRate), to: 48_000)
        var segments: [ClosedSegment] = []
        let block = max(source.sampleRate / 2, 1)
        while true {
            let interleaved = try source.read(maxFrames: block)
            if interleaved.isEmpty { break }
            var mono = interleaved
            if source.channels > 1 {
                mono = stride(from: 0, to: interleaved.count, by: source.channels).map { start in
                    interleaved[start..<start + source.channels].reduce(0, +) / Float(source.channels)
                }
            }
            segments += try writer.append(try resampler?.process(mono) ?? mono)
        }
        if let resampler { segments += try writer.append(try resampler.flush()) }
        if let last = try writer.finish() { segments.append(last) }
        return segments
    }
}

/// Hands out segment indices to upload workers and collects their results.
private final class UploadState: @unchecked Sendable {
    private let lock = NSLock()
    private var nextIndex = 0
    private var stopped: BoxFailure?
    private(set) var results: [FileTranscription.SegmentResult?]

    init(count: Int) {
        results = Array(repeating: nil, count: count)
    }

    func next() -> Int? {
        lock.withLock {
            guard stopped == nil, nextIndex < results.count else { return nil }
            defer { nextIndex += 1 }
            return nextIndex
        }
    }

    func finish(_ index: Int, _ result: FileTranscription.SegmentResult) { lock.withLock { results[index] = result } }

    func stop(_ failure: BoxFailure) { lock.withLock { if stopped == nil { stopped = failure } } }

    var stopReason: BoxFailure? { lock.withLock { stopped } }
}
