import BoxVoiceDictation
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceStore
import Foundation

/// Answers the box's retranscription requests from retention (contract §7.2, §8), or `none`; it always answers.
/// A recording kept as Ogg Opus goes as it is (`last-message.ogg`: an hour is about 29 MB, whole); one still kept
/// as WAV segments goes as one 48 kHz Float32 WAV while that fits in 45 MB, else as Ogg Opus encoded now. A box
/// that refused Opus gets WAV as before (16 kHz 16-bit when 48 kHz does not fit, then only the end).
public struct LastAudioResponder: Sendable {
    public static let maxAnswerBytes = 45_000_000

    public let box: BoxReference
    public let client: BoxClient
    public let store: MessageStore
    /// Where joined answer files are written (and removed after the answer): a private folder of the caller's.
    public let workDirectory: String

    public init(box: BoxReference, client: BoxClient, store: MessageStore, workDirectory: String) {
        self.box = box
        self.client = client
        self.store = store
        self.workDirectory = workDirectory
    }

    /// What an audio answer was sent as.
    public enum AnswerFormat: Sendable, Equatable, CustomStringConvertible {
        case wav(SegmentJoin.Format)
        case oggOpus

        public var description: String {
            switch self {
            case .wav(let format): "WAV \(format)"
            case .oggOpus: "Ogg Opus"
            }
        }
    }

    public enum Answered: Sendable, Equatable {
        case audio(outcome: Wire.LastAudioAnswerOutcome, format: AnswerFormat, bytes: Int)
        case none(outcome: Wire.LastAudioAnswerOutcome)
    }

    public func answer(_ request: LastAudioRequest) throws -> Answered {
        guard let id = request.ownMessageId, let held = try store.retainedRecording(box: box, id: id),
            !held.segments.isEmpty
        else {
            return .none(outcome: try client.answerLastAudio(requestId: request.requestId, .none))
        }
        let takesOgg = !((try? store.uploadProfile(box: box).wavOnly) ?? false)
        var path: String
        var format: AnswerFormat
        var made: String?
        defer { if let made { try? FileManager.default.removeItem(atPath: made) } }
        if takesOgg, held.segments.count == 1, (try? SoundFile.open(path: held.segments[0]).container) == .oggOpus {
            (path, format) = (held.segments[0], .oggOpus)
        } else if takesOgg, try Self.frames(held.segments) * 4 + 80 > Self.maxAnswerBytes {
            path = workDirectory + "/answer-\(UUID().uuidString).ogg"
            made = path
            try AudioEncoding.encode(held.segments, to: path, as: .speechOpus)
            format = .oggOpus
        } else {
            path = workDirectory + "/answer-\(UUID().uuidString).wav"
            made = path
            format = .wav(try SegmentJoin.join(held.segments, into: path, maxBytes: Self.maxAnswerBytes))
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let outcome = try client.answerLastAudio(
            requestId: request.requestId,
            .audio(
                wavPath: path, recordedAt: held.recordedAt, text: held.text, messageId: held.messageId,
                sessionId: held.session,
                format: format == .oggOpus ? .ogg : .wav))
        return .audio(outcome: outcome, format: format, bytes: bytes)
    }

    private static func frames(_ files: [String]) throws -> Int {
        try files.reduce(0) { $0 + Int(try SoundFile.open(path: $1).frames) }
    }
}
