import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import Foundation
import Synchronization

/// Uploads segments for HQ transcription as they close, a few at a time, while more audio is still coming
/// (contract §1): uncertain failures are retried within a small budget; a permanent or definitive failure stops
/// every later upload and is reported once.
public final class HQUploader: Sendable {
    public struct Result: Sendable {
        public let index: Int
        public let seconds: Double
        public let transcription: Wire.Transcription?
        public let failure: BoxFailure?
    }

    public enum Event: Sendable {
        case started(index: Int, seconds: Double)
        case uploaded(Result)
        case retrying(index: Int, attempt: Int, failure: BoxFailure)
        /// Reported once: later segments are not uploaded.
        case stopped(BoxFailure)
        /// The upload format changed (the first choice counts as a change).
        case codec(UploadChoice)
    }

    private let client: BoxClient
    private let session: String?
    private let maxParallel: Int
    private let retryDelays: [Double]
    private let onEvent: @Sendable (Event) -> Void
    private let running = DispatchGroup()
    /// Signalled when every upload is over, or when the user stops waiting for them (`abandon`).
    private let settled = DispatchSemaphore(value: 0)
    private let queue = Mutex(Queue())

    /// What the upload threads share.
    private struct Queue {
        var waiting: [(index: Int, segment: ClosedSegment)] = []
        var inFlight = 0
        var submitted = 0
        var results: [Int: Result] = [:]
        var stopped: BoxFailure?
        var abandoned = false
    }

    /// Chooses each segment's format; nil (or no `workDirectory` to encode into): WAV.
    private let codec: UploadCodecPolicy?
    private let workDirectory: String?

    public init(
        client: BoxClient, session: String?, maxParallel: Int = 3, retryDelays: [Double] = [1, 2],
        codec: UploadCodecPolicy? = nil, workDirectory: String? = nil,
        onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        self.codec = codec
        self.workDirectory = workDirectory
        self.client = client
        self.session = session
        self.maxParallel = max(1, maxParallel)
        self.retryDelays = retryDelays
        self.onEvent = onEvent
    }

    /// Queues a closed segment; it starts uploading as soon as a slot is free.
    public func submit(_ segment: ClosedSegment) {
        let start: (Int, ClosedSegment)? = queue.withLock { queue in
            let index = queue.submitted
            queue.submitted += 1
            guard queue.stopped == nil else {
                queue.results[index] = Result(
                    index: index, seconds: segment.duration, transcription: nil, failure: queue.stopped)
                return nil
            }
            guard queue.inFlight < maxParallel else {
                queue.waiting.append((index, segment))
                return nil
            }
            queue.inFlight += 1
            return (index, segment)
        }
        if let (index, segment) = start { launch(index, segment) }
    }

    /// Waits for every submitted segment (or until `abandon`); results in submission order.
    public func finish() -> (results: [Result], stoppedBy: BoxFailure?) {
        running.notify(queue: .global()) { [settled] in settled.signal() }
        settled.wait()
        return queue.withLock { queue in ((0..<queue.submitted).compactMap { queue.results[$0] }, queue.stopped) }
    }

    /// The user will not wait: `finish` returns at once with what has come so far, and nothing more is uploaded
    /// (uploads under way end by themselves, unread).
    public func abandon() {
        queue.withLock { queue in
            queue.abandoned = true
            queue.waiting.removeAll()
        }
        settled.signal()
    }

    /// `abandon` was called.
    public var wasAbandoned: Bool { queue.withLock { $0.abandoned } }

    private func launch(_ index: Int, _ segment: ClosedSegment) {
        running.enter()
        BlockingWork.start("boxvoice.hq-upload") { [self] in
            onEvent(.started(index: index, seconds: segment.duration))
            let result = upload(index, segment)
            let next: (Int, ClosedSegment)? = queue.withLock { queue in
                queue.results[index] = result
                if queue.stopped != nil {
                    for (skipped, pending) in queue.waiting {
                        queue.results[skipped] = Result(
                            index: skipped, seconds: pending.duration, transcription: nil, failure: queue.stopped)
                    }
                    queue.waiting.removeAll()
                }
                guard !queue.waiting.isEmpty else {
                    queue.inFlight -= 1
                    return nil
                }
                return queue.waiting.removeFirst()
            }
            onEvent(.uploaded(result))
            if let (nextIndex, nextSegment) = next { launch(nextIndex, nextSegment) }
            running.leave()
        }
    }

    /// The segment as the policy wants it on the wire: the WAV itself, or an Ogg Opus copy in the work folder
    /// (removed after the upload). An encoding that fails sends the WAV.
    private func prepare(_ segment: ClosedSegment) -> (path: String, format: BoxClient.UploadedAudio) {
        guard let codec, let workDirectory else { return (segment.path, .wav) }
        let (choice, changed) = codec.next()
        if changed { onEvent(.codec(choice)) }
        guard choice.format == .opus else { return (segment.path, .wav) }
        let path = workDirectory + "/upload-\(UUID().uuidString).ogg"
        do {
            let encoded = try AudioEncoding.encode([segment.path], to: path, as: .speechOpus)
            codec.recordEncoding(
                cpuSeconds: encoded.cpuSeconds, audioSeconds: Double(encoded.frames) / AudioRate.perSecond)
            return (path, .ogg)
        } catch {
            return (segment.path, .wav)
        }
    }

    private func upload(_ index: Int, _ segment: ClosedSegment) -> Result {
        var attempt = 0
        var (path, format) = prepare(segment)
        defer { if path != segment.path { unlink(path) } }
        while true {
            do {
                let started = Date()
                let transcription = try client.transcribe(audioPath: path, as: format, session: session)
                let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
                codec?.recordUpload(bytes: bytes ?? 0, seconds: Date().timeIntervalSince(started))
                return Result(index: index, seconds: segment.duration, transcription: transcription, failure: nil)
            } catch {
                if format == .ogg, error.isFormatRejection, let codec {
                    // The box cannot read Opus: this segment again as WAV, and every later one.
                    codec.markWAVOnly()
                    onEvent(.codec(codec.next().choice))
                    unlink(path)
                    (path, format) = (segment.path, .wav)
                    continue
                }
                let alreadyStopped = queue.withLock { $0.stopped != nil }
                if error.isRetryable, attempt < retryDelays.count, !alreadyStopped {
                    attempt += 1
                    onEvent(.retrying(index: index, attempt: attempt, failure: error))
                    Thread.sleep(forTimeInterval: retryDelays[attempt - 1])
                    continue
                }
                let first = queue.withLock { queue -> Bool in
                    guard queue.stopped == nil else { return false }
                    queue.stopped = error
                    return true
                }
                if first { onEvent(.stopped(error)) }
                return Result(index: index, seconds: segment.duration, transcription: nil, failure: error)
            }
        }
    }
}
