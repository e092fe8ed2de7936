import BoxSim
import BoxVoiceAudio
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceLive
import Foundation

/// The box's second opinion on a command the live path left for it, as a dictation asks it (`SecondOpinion`) of a
/// box whose HQ is boxsim's `--hq whisper`: the seconds of audio up to the end of the command's utterance, decoded by
/// the same Whisper without the prompt, must hold a command of the same tag. A real box's HQ may hear better or worse;
/// this is the one the project can run.
struct BoxOpinion {
    private let model: WhisperModel
    private let detector: KeywordDetector
    /// Says each question and what the box heard, on stdout.
    private let verbose: Bool

    init(whisper: String, detector: KeywordDetector, verbose: Bool = false) throws {
        model = try WhisperModel(path: whisper)
        self.detector = detector
        self.verbose = verbose
    }

    /// Whether the box hears `match` in `audio` (48 kHz, the stream as heard) up to `utterance`'s end.
    func confirms(_ match: KeywordMatch, _ utterance: LiveUtterance, in audio: [Float]) throws -> Bool {
        let end = min(audio.count, Int((utterance.end * AudioRate.perSecond).rounded()))
        let start = max(0, end - Int(DictationSession.Configuration.secondOpinionWindow * AudioRate.perSecond))
        guard start < end else { return false }
        let samples = try SpeechConversion.recognizerSamples(from: Array(audio[start..<end]), rate: AudioRate.hertz)
        let text = try WhisperHQ.text(of: samples, by: model)
        let heard = detector.detect(text).map { detector.writeSameTag($0.action, match.action) } ?? false
        if verbose {
            let at = String(format: "%.1f", utterance.end)
            let line = "  box asked about '\(match.matchedPhrase)' at \(at) s, heard '\(text)': \(heard ? "yes" : "no")"
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        return heard
    }
}
