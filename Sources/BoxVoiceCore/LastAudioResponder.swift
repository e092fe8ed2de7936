import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceStore
import Foundation

/// Answers the box's retranscription requests from retention (contract §7.2, §8): the recording's segments joined
/// into one WAV (48 kHz Float32 while it fits in 45 MB, else 16 kHz 16-bit), or `none`. It always answers.
public struct LastAudioResponder: Sendable {
    public static let maxAnswerBytes = 45_000_000

    public let box: String
    public let client: BoxClient
    public let store: MessageStore
    /// Where joined answer files are written (and removed after the answer): a private folder of the caller's.
    public let workDirectory: String

    public init(box: String, client: BoxClient, store: MessageStore, workDirectory: String) {
        self.box = box
        self.client = client
        self.store = store
        self.workDirectory = workDirectory
    }

    public enum Answered: Sendable, Equatable {
        case audio(outcome: Wire.LastAudioAnswerOutcome, format: SegmentJoin.Format, bytes: Int)
        case none(outcome: Wire.LastAudioAnswerOutcome)
    }

    public func answer(_ request: LastAudioRequest) throws -> Answered {
        guard let held = try store.retainedRecording(box: box, messageId: request.messageId), !held.segments.isEmpty else {
            return .none(outcome: try client.answerLastAudio(requestId: request.requestId, .none))
        }
        let path = workDirectory + "/answer-\(UUID().uuidString).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let format = try SegmentJoin.join(held.segments, into: path, maxBytes: Self.maxAnswerBytes)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let outcome = try client.answerLastAudio(requestId: request.requestId, .audio(
            wavPath: path, recordedAt: held.recordedAt, text: held.text, messageId: request.messageId, sessionId: held.session))
        return .audio(outcome: outcome, format: format, bytes: bytes)
    }
}
