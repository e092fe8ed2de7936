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
    public let retention: Retention
    /// Where joined answer files are written (and removed after the answer).
    public let workDirectory: String

    public init(box: String, client: BoxClient, retention: Retention, workDirectory: String) {
        self.box = box
        self.client = client
        self.retention = retention
        self.workDirectory = workDirectory
    }

    public enum Answered: Sendable, Equatable {
        case audio(outcome: Wire.LastAudioAnswerOutcome, format: String, bytes: Int)
        case none(outcome: Wire.LastAudioAnswerOutcome)
    }

    public func answer(_ request: LastAudioRequest) throws -> Answered {
        guard let held = try retention.recording(box: box, messageId: request.messageId) else {
            return .none(outcome: try client.answerLastAudio(requestId: request.requestId, .none))
        }
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let path = workDirectory + "/answer-\(request.requestId.replacingOccurrences(of: "/", with: "_")).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let format = try Self.join(segmentsIn: held.directory, into: path)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let outcome = try client.answerLastAudio(requestId: request.requestId, .audio(
            wavPath: path, recordedAt: held.recordedAt, text: held.text, messageId: request.messageId, sessionId: held.session))
        return .audio(outcome: outcome, format: format, bytes: bytes)
    }

    /// Joins `seg-*.wav` in order into one WAV; returns the format written.
    static func join(segmentsIn directory: String, into path: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("seg-") && $0.hasSuffix(".wav") }.sorted()
        return try SegmentJoin.join(names.map { directory + "/" + $0 }, into: path, maxBytes: maxAnswerBytes).description
    }
}
