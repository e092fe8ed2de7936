import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import Foundation

/// HQ-transcribes a sound file through a box: cut into upload-sized segments at quiet points (the recorder's
/// rule), uploaded a few at a time, texts joined in order.
public struct FileTranscription: Sendable {
    /// One segment's outcome, in the order the segments were cut.
    public typealias SegmentResult = HQUploader.Result

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
        case uploaded(SegmentResult)
        case retrying(index: Int, attempt: Int, failure: BoxFailure)
        case codec(UploadChoice)
    }

    public let client: BoxClient
    public var session: String?
    public var policy = SegmentPolicy()
    public var maxParallel = 3
    /// Extra tries for an uncertain failure, with this many seconds before each.
    public var retryDelays: [Double] = [1, 2]
    /// What each segment goes as (nil: WAV).
    public var codec: UploadCodecPolicy?

    public init(client: BoxClient, session: String?) {
        self.client = client
        self.session = session
    }

    /// - Parameter workDirectory: where the segments are written (removed by the caller when it likes).
    /// Segments upload as they are cut, so the first is on its way before the file is read to the end.
    public func run(file: String, workDirectory: String, onEvent: @escaping @Sendable (Event) -> Void = { _ in }) throws
        -> Result
    {
        let uploader = HQUploader(
            client: client, session: session, maxParallel: maxParallel, retryDelays: retryDelays,
            codec: codec, workDirectory: workDirectory
        ) { event in
            switch event {
            case .codec(let choice):
                onEvent(.codec(choice))
            case .uploaded(let result):
                onEvent(.uploaded(result))
            case .retrying(let index, let attempt, let failure):
                onEvent(.retrying(index: index, attempt: attempt, failure: failure))
            case .stopped, .started:
                break
            }
        }
        var count = 0
        var seconds = 0.0
        try Self.cut(file: file, into: workDirectory, policy: policy) { segment in
            count += 1
            seconds += segment.duration
            uploader.submit(segment)
        }
        onEvent(.segmented(count: count, seconds: seconds))
        let (results, stoppedBy) = uploader.finish()
        if let stoppedBy {
            let done = results.filter { $0.transcription != nil }.count
            throw Failure(
                reason: "\(stoppedBy) \(done) of \(count) segment(s) were transcribed before it stopped.",
                segments: results)
        }
        let text = results.compactMap { $0.transcription?.text.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        return Result(text: text, segments: results)
    }

    /// Converts any readable sound file to 48 kHz mono Float32 segments.
    static func cut(file: String, into directory: String, policy: SegmentPolicy, onSegment: (ClosedSegment) -> Void)
        throws
    {
        let source = try SoundFile.open(path: file)
        let writer = SegmentWriter(directory: directory, policy: policy)
        let resampler =
            source.sampleRate == AudioRate.hertz
            ? nil : try Resampler(from: Double(source.sampleRate), to: AudioRate.perSecond)
        let block = max(source.sampleRate / 2, 1)
        while true {
            let mono = try source.readMono(maxFrames: block)
            if mono.isEmpty { break }
            try writer.append(try resampler?.process(mono) ?? mono).forEach(onSegment)
        }
        if let resampler { try writer.append(try resampler.flush()).forEach(onSegment) }
        if let last = try writer.finish() { onSegment(last) }
    }
}
