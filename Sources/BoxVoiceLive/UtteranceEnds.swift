import Foundation

/// Which recognizer's text an utterance carries.
public enum HeardBy: Sendable, Equatable {
    /// pocketsphinx alone (the Whisper road is off).
    case pocketsphinx
    /// Whisper, at the utterance's end.
    case whisper
    /// pocketsphinx, because Whisper missed this utterance (late on a loaded machine, or failed).
    case pocketsphinxInstead(HearingError.Code)
}

/// The utterance-end road of the live path: DeepFilterNet3 cleans what is heard, Silero VAD cuts utterances, and
/// Whisper decodes each one as it ends, on its own thread, within a deadline.
final class UtteranceEnds {
    let settings: LiveTranscriber.WhisperHearing
    private let filter: NoiseFilter?
    private let activity: VoiceActivity
    private let worker: WhisperWorker
    private var cutter: UtteranceCutter
    private var carry: [Float] = []

    init(settings: LiveTranscriber.WhisperHearing) throws {
        self.settings = settings
        filter = settings.cleans ? try NoiseFilter(path: settings.models.noiseFilter) : nil
        activity = try VoiceActivity(path: settings.models.voiceActivity)
        worker = try WhisperWorker(modelPath: settings.models.whisper, threads: settings.threads)
        cutter = UtteranceCutter(rule: settings.cutting, sampleRate: Double(WhisperModel.sampleRate))
    }

    /// 48 kHz audio as the recognizers hear it: cleaned when the filter is on.
    func clean(_ samples: [Float]) -> [Float] { filter?.process(samples) ?? samples }

    /// What the filter still holds at the end of the stream.
    func flushClean() -> [Float] { filter?.flush() ?? [] }

    /// Hears 16 kHz audio; returns the utterances it ended.
    func hear(_ samples: [Float]) -> [UtteranceCutter.Cut] {
        let pending = carry + samples
        let whole = pending.count / VoiceActivity.window * VoiceActivity.window
        carry = Array(pending[whole...])
        let probabilities = activity.probabilities(Array(pending[..<whole]))
        var cuts: [UtteranceCutter.Cut] = []
        for (index, probability) in probabilities.enumerated() {
            let start = index * VoiceActivity.window
            if let cut = cutter.add(window: pending[start..<start + VoiceActivity.window], probability: probability) { cuts.append(cut) }
        }
        return cuts
    }

    /// Ends the utterance in progress now.
    func finish() -> UtteranceCutter.Cut? { cutter.finish() }

    /// Whisper's text for one utterance, or why there is none in time. Empty text: Whisper judged it no speech.
    func transcribe(_ cut: UtteranceCutter.Cut) -> Result<String, HearingError> {
        worker.transcribe(cut.samples, prompt: settings.prompt, deadline: settings.deadline).map { transcript in
            transcript.noSpeechProbability > settings.noSpeechCeiling ? "" : Self.plain(transcript.text)
        }
    }

    /// Whisper writes what it cannot make out as bracketed notes ("[BLANK_AUDIO]", "(wind blowing)"); they are not
    /// words anyone said.
    static func plain(_ text: String) -> String {
        var result = ""
        var depth = 0
        for character in text {
            switch character {
            case "[", "(": depth += 1
            case "]", ")": depth = max(0, depth - 1)
            default: if depth == 0 { result.append(character) }
            }
        }
        return withoutRepeats(result.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " "))
    }

    /// Whisper sometimes loops, writing one sentence again and again where it was said once; a sentence that only
    /// repeats the one before it is dropped.
    static func withoutRepeats(_ text: String) -> String {
        var sentences: [String] = []
        var current = ""
        for character in text {
            current.append(character)
            if ".!?".contains(character) {
                sentences.append(current)
                current = ""
            }
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { sentences.append(current) }
        func key(_ sentence: String) -> String { sentence.lowercased().filter { $0.isLetter || $0.isNumber } }
        var kept: [String] = []
        for sentence in sentences where kept.last.map({ key($0) != key(sentence) || key(sentence).isEmpty }) ?? true {
            kept.append(sentence)
        }
        return kept.joined().trimmingCharacters(in: .whitespaces)
    }
}
