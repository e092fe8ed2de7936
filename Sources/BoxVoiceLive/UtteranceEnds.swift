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

    /// Whisper's words for one utterance, or why there are none in time. No words: Whisper judged it no speech.
    func transcribe(_ cut: UtteranceCutter.Cut) -> Result<[WhisperModel.TimedWord], HearingError> {
        worker.transcribe(cut.samples, prompt: settings.prompt, deadline: settings.deadline).map { transcript in
            transcript.noSpeechProbability > settings.noSpeechCeiling ? [] : Self.plain(transcript.words)
        }
    }

    /// The same text as `plain(_:)` of words, for text without times.
    static func plain(_ text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace).map {
            WhisperModel.TimedWord(text: String($0), start: 0, end: 0)
        }
        return plain(words).map(\.text).joined(separator: " ")
    }

    /// Whisper writes what it cannot make out as bracketed notes ("[BLANK_AUDIO]", "(wind blowing)"); they are not
    /// words anyone said. And it sometimes loops, writing what was said once again and again.
    static func plain(_ words: [WhisperModel.TimedWord]) -> [WhisperModel.TimedWord] {
        var kept: [WhisperModel.TimedWord] = []
        var depth = 0
        for word in words {
            var text = ""
            for character in word.text {
                switch character {
                case "[", "(": depth += 1
                case "]", ")": depth = max(0, depth - 1)
                default: if depth == 0 { text.append(character) }
                }
            }
            text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { kept.append(WhisperModel.TimedWord(text: text, start: word.start, end: word.end)) }
        }
        return withoutRepeats(kept)
    }

    /// Drops a run of sentences that only repeats the run just before it ("A. B. A. B." is "A. B."), and an
    /// unfinished last sentence that begins to repeat once a loop was seen ("A. B. A. B. A" is "A. B.").
    static func withoutRepeats(_ words: [WhisperModel.TimedWord]) -> [WhisperModel.TimedWord] {
        var sentences: [[WhisperModel.TimedWord]] = [[]]
        for word in words {
            sentences[sentences.count - 1].append(word)
            if let last = word.text.last, ".!?".contains(last) { sentences.append([]) }
        }
        if sentences.last?.isEmpty == true { sentences.removeLast() }
        func key(_ sentence: [WhisperModel.TimedWord]) -> String {
            sentence.map(\.text).joined().lowercased().filter { $0.isLetter || $0.isNumber }
        }
        let keys = sentences.map(key)
        var kept: [Int] = []
        var looped = false
        var index = 0
        while index < sentences.count {
            let repeated = (1...max(1, kept.count)).first { length in
                index + length <= keys.count && kept.count >= length
                    && (0..<length).allSatisfy { offset in
                        let key = keys[index + offset]
                        return key == keys[kept[kept.count - length + offset]] && !key.isEmpty
                    }
            }
            if let repeated {
                looped = true
                index += repeated
                continue
            }
            let finished = sentences[index].last?.text.last.map { ".!?".contains($0) } ?? false
            let unfinished = index == sentences.count - 1 && !finished
            let startsARepeat = kept.contains { keys[$0].hasPrefix(keys[index]) }
            if unfinished, looped, !keys[index].isEmpty, startsARepeat { break }
            kept.append(index)
            index += 1
        }
        return kept.flatMap { sentences[$0] }
    }
}
