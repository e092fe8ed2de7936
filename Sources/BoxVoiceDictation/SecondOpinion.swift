import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceDelivery
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceSync
import Foundation
import Synchronization

/// The last few seconds of the stream, so the words around a command can be sent for a second opinion.
struct RecentAudio {
    let capacity: Int
    private(set) var samples: [Float] = []
    /// Stream frame of `samples[0]`.
    private(set) var startFrame: Int64 = 0

    /// Holds at least the last `seconds` (at most twice that).
    init(seconds: Double) { capacity = Int(seconds * AudioRate.perSecond) }

    /// Runs on the loop for every chunk: the oldest audio is dropped only once twice the capacity is held, so the
    /// buffer is shifted every few seconds rather than for each 100 ms chunk.
    mutating func append(_ chunk: [Float], endingAt frame: Int64) {
        samples += chunk
        if samples.count > 2 * capacity {
            samples.removeFirst(samples.count - capacity)
        }
        startFrame = frame - Int64(samples.count)
    }

    /// The audio between two stream frames that is still held.
    func slice(from: Int64, to: Int64) -> [Float] {
        let lower = Int(max(from - startFrame, 0)), upper = Int(min(to - startFrame, Int64(samples.count)))
        return lower < upper ? Array(samples[lower..<upper]) : []
    }
}

/// A command only the spotter heard is weak evidence: the seconds around it go to the box's HQ endpoint, and the
/// command counts only if the HQ text holds it too. The dictation keeps listening meanwhile; an answer that does not
/// come in time leaves the decision to the live path (the command counts: it already passed the spotter's rules).
final class SecondOpinion: Sendable {
    let match: KeywordMatch
    let utterance: LiveUtterance
    let started: Date
    let deadline: Date
    private let verdict = Mutex<CheckOutcome?>(nil)
    private let answered = WakeUp()

    /// Starts the check in the background: `audio` (48 kHz) is written to `workDirectory` and transcribed.
    init(
        match: KeywordMatch, utterance: LiveUtterance, audio: [Float], client: BoxClient, session: String?,
        detector: KeywordDetector,
        workDirectory: String, wait: TimeInterval
    ) {
        self.match = match
        self.utterance = utterance
        started = Date()
        deadline = started.addingTimeInterval(wait)
        let path = workDirectory + "/check-\(UUID().uuidString).wav"
        BlockingWork.start("boxvoice.second-opinion") { [self] in
            defer { try? FileManager.default.removeItem(atPath: path) }
            do {
                let file = try SoundFile.createFloatWAV(path: path)
                try file.write(audio)
                try file.close()
                let text = try client.transcribe(wavPath: path, session: session).text
                let heard = detector.detect(text).map { detector.writeSameTag($0.action, match.action) } ?? false
                verdict.withLock { $0 = heard ? .confirmed : .rejected }
            } catch {
                verdict.withLock { $0 = .undecided }
            }
            answered.ring()
        }
    }

    /// The verdict once there is one (`.undecided` when the box gave no usable answer), or `.undecided` once the
    /// deadline has passed; nil while still waiting.
    func poll(now: Date = Date()) -> CheckOutcome? {
        if let answer = verdict.withLock({ $0 }) { return answer }
        return now >= deadline ? .undecided : nil
    }

    /// The verdict, waited for: it comes when the box answers, or as `.undecided` at the deadline.
    func awaitVerdict() -> CheckOutcome {
        answered.wait(until: deadline) { verdict.withLock { $0 } != nil }
        return poll() ?? .undecided
    }
}
