import CWhisper
import Foundation
import Synchronization

/// Whisper over 16 kHz mono Float32: one utterance in, its text out. This type (with its forced scoring, in
/// WhisperModel+Scoring) is the only caller of whisper.cpp's decoder. One decode at a time (it holds one decoding
/// state over the shared weights); `WhisperWorker` gives it a thread of its own.
public final class WhisperModel {
    public static let sampleRate = 16_000
    private let weights: WhisperWeights
    let state: OpaquePointer
    var context: OpaquePointer { weights.context }

    public init(path: String) throws {
        silenceWhisperLogs()
        try Self.requireFile(path)
        weights = try WhisperWeights.of(path)
        guard let state = whisper_init_state(weights.context) else {
            throw HearingError(code: .modelUnusable, detail: "whisper.cpp could not make a decoding state for \(path)")
        }
        self.state = state
    }

    deinit { whisper_free_state(state) }

    /// The last prompt given and its sentences: the live path gives the same prompt to every decode.
    private var lastPrompt: (text: String?, sentences: PromptSentences)?

    /// `prompt`'s sentences for the loop check (`SentenceLoop.sentenceKeys`), worked out once per prompt.
    private func sentences(of prompt: String?) -> PromptSentences {
        if let last = lastPrompt, last.text == prompt { return last.sentences }
        let sentences = PromptSentences(Set(prompt.map(SentenceLoop.sentenceKeys) ?? []))
        lastPrompt = (prompt, sentences)
        return sentences
    }

    /// A missing model file, said as the user can fix it (checked before loading, and where loading comes later).
    static func requireFile(_ path: String) throws {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw HearingError(
                code: .modelUnusable, detail: "the Whisper model \(path) is missing; run `make setup` (it builds it)")
        }
    }

    /// The audio as whisper.cpp can align it: silence is added so no 30 s window it decodes is shorter than a second.
    /// Its word alignment (dynamic time warping) aborts the whole process on a window under 0.14 s (a median filter
    /// seven audio frames wide asserts it has more): a 0.12 s utterance, or a recording 30.1 s long, once did.
    static func paddedForAlignment(_ samples: [Float]) -> [Float] {
        let window = 30 * sampleRate
        let rest = samples.count % window
        guard samples.isEmpty || (rest > 0 && rest < sampleRate) else { return samples }
        return samples + [Float](repeating: 0, count: sampleRate - rest)
    }

    /// The most tokens an utterance this long can be: six a second, and eight more.
    static func tokenCeiling(seconds: Double) -> Int { Int((seconds * 6).rounded(.up)) + 8 }

    /// Encoder frames (50 a second) for an utterance this long: a second more than it holds, rounded up to 64,
    /// within Whisper's 1,500.
    static func audioContext(seconds: Double) -> Int {
        let frames = Int(((seconds + 1) * 50).rounded(.up))
        return min(1_500, max(128, (frames + 63) / 64 * 64))
    }

    /// Decodes `samples` (at most 30 s) as one segment of English, or of `language`.
    /// - Parameters:
    ///   - language: the language Whisper writes (a code whisper.cpp knows); a multilingual model told to write
    ///     English translates speech in another language.
    ///   - prompt: text the decoder takes as what came before: the command phrases, so it spells them as the
    ///     keyword detector expects.
    ///   - threads: CPU threads for this decode.
    ///   - search: how the words are searched for (utterances only; longer recordings are decoded greedily).
    ///   - shouldStop: polled while decoding; true abandons it (`HearingError.Code.abandoned`).
    ///   - oneSegment: an utterance (at most 30 s) as one piece; false for longer recordings (HQ), decoded window
    ///     by window.
    ///   - scoringWithoutPrompt: given the decoded text, whether to weigh its words again as if there had been no
    ///     prompt (`TimedWord.promptFreeShortfall`): the command phrases in the prompt are what Whisper writes
    ///     into speech it cannot make out, and then it is the prompt, not the audio, that makes them likely. A
    ///     multilingual model also says then how likely the audio is English (`Transcript.englishProbability`).
    public func transcribe(
        _ samples: [Float], prompt: String?, threads: Int = 2, search: Search = .greedy,
        oneSegment: Bool = true, shouldStop: (@Sendable () -> Bool)? = nil,
        scoringWithoutPrompt: ((String) -> Bool)? = nil, language: String = "en", rewriting: Rewriting? = nil
    ) throws -> Transcript {
        let samples = Self.paddedForAlignment(samples)
        var parameters = Self.quietParameters(
            search: oneSegment ? search : .greedy, threads: threads, oneSegment: oneSegment, samples: samples.count)
        if oneSegment {
            // Over babble Whisper can loop on one sentence; nobody says more than about six tokens a second.
            parameters.max_tokens = Int32(Self.tokenCeiling(seconds: Double(samples.count) / Double(Self.sampleRate)))
            // And a sentence loop is ended at its third writing, or the second of the prompt's sentences
            // (`SentenceLoop`), not at the ceiling.
            parameters.logits_filter_callback = endingSentenceLoops
        }
        parameters.suppress_nst = true
        // Kept alive through the decode: whisper.cpp hands it to the loop check as an unretained pointer.
        let promptSentences = oneSegment ? sentences(of: prompt) : nil
        parameters.logits_filter_callback_user_data = promptSentences.map { Unmanaged.passUnretained($0).toOpaque() }
        try withExtendedLifetime(promptSentences) {
            try run(
                samples, parameters: parameters, language: language, prompt: prompt, shouldStop: shouldStop,
                doing: "decode the utterance")
        }
        var text = ""
        var noSpeech: Float = 0
        for segment in 0..<whisper_full_n_segments_from_state(state) {
            if let piece = whisper_full_get_segment_text_from_state(state, segment) { text += String(cString: piece) }
            noSpeech = max(noSpeech, whisper_full_get_segment_no_speech_prob_from_state(state, segment))
        }
        text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        var tokens = textTokens()
        var rewrittenFrom: (text: String, gain: Float)?
        if let rewriting, prompt != nil, oneSegment, language == "en",
            let better = rewritten(tokens, by: rewriting, prompt: prompt, threads: Int(parameters.n_threads))
        {
            rewrittenFrom = (text, better.gain)
            tokens = better.tokens
            text = String(decoding: tokens.flatMap(\.bytes), as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
        var promptFree: [Weighed]?
        var spoken: SpokenLanguages?
        if prompt != nil, oneSegment, language == "en", let scoringWithoutPrompt, scoringWithoutPrompt(text) {
            // The end of the text is weighed too: a command counts as the utterance's last words.
            promptFree = forcedWeights(
                tokens.map(\.id) + [whisper_token_eot(context)], prompt: nil, threads: Int(parameters.n_threads))
            spoken = spokenLanguage(threads: Int(parameters.n_threads))
        }
        return Transcript(
            text: text, words: Self.words(of: tokens, promptFree: promptFree.map { Array($0.dropLast()) }),
            noSpeechProbability: noSpeech, languages: spoken, rewrittenFrom: rewrittenFrom,
            promptFreeEndShortfall: promptFree?.last?.shortfall)
    }

    /// How likely `samples` (at most 30 s) are English, and which language Whisper finds likeliest, without their
    /// words (`Transcript.text` is empty): one encoding and a decoder step. nil fields for an English-only model.
    /// `shouldStop` is polled as in `transcribe`: an encoding of 8 s is worth abandoning at a deadline too.
    public func spokenLanguage(
        of samples: [Float], threads: Int = 2, shouldStop: (@Sendable () -> Bool)? = nil
    ) throws -> Transcript {
        let samples = Self.paddedForAlignment(Array(samples.suffix(30 * Self.sampleRate)))
        var parameters = Self.quietParameters(
            search: .greedy, threads: threads, oneSegment: true, samples: samples.count)
        // The encoder's work is what is wanted; the decoder writes one token, and the language is read after it.
        parameters.max_tokens = 1
        try run(
            samples, parameters: parameters, language: "en", prompt: nil, shouldStop: shouldStop,
            doing: "encode the audio")
        return Transcript(
            text: "", words: [], noSpeechProbability: 0, languages: spokenLanguage(threads: Int(parameters.n_threads)))
    }

    /// The setup every decode here starts from: nothing printed, no timestamps, no text carried over from the last
    /// decode, and the encoder fitted to the audio.
    private static func quietParameters(
        search: Search, threads: Int, oneSegment: Bool, samples: Int
    ) -> whisper_full_params {
        var parameters: whisper_full_params
        switch search {
        case .greedy:
            parameters = whisper_full_default_params(WHISPER_SAMPLING_GREEDY)
        case .beam(let width):
            parameters = whisper_full_default_params(WHISPER_SAMPLING_BEAM_SEARCH)
            parameters.beam_search.beam_size = Int32(max(2, width))
        }
        parameters.n_threads = Int32(max(1, threads))
        parameters.print_progress = false
        parameters.print_realtime = false
        parameters.print_timestamps = false
        parameters.print_special = false
        parameters.no_timestamps = true
        parameters.no_context = true
        parameters.single_segment = oneSegment
        if samples <= 30 * sampleRate {
            // The encoder attends over as much audio as the utterance holds (and a second more), not Whisper's whole
            // 30 s window: a 4 s utterance decodes in about a quarter of the time (BENCHMARKS.md at 7c182fc,
            // "Hearing"). A recording of one window (an HQ segment under 30 s) likewise; longer ones keep whole
            // windows.
            parameters.audio_ctx = Int32(audioContext(seconds: Double(samples) / Double(sampleRate)))
        }
        if oneSegment {
            // One pass, never decoded again warmer: a warmer re-decode samples five candidates a step and took 2.05 s
            // on a 6.6 s utterance (past the live deadline), where the first pass answered in 0.47 s. A sentence
            // loop is ended by `SentenceLoop`, a word loop by the token ceiling, and
            // `UtteranceEnds.plain` drops what either wrote again.
            parameters.temperature_inc = 0
        }
        return parameters
    }

    /// Runs whisper.cpp over `samples` with `parameters`, in `language`, after `prompt`, polling `shouldStop`
    /// between its steps; throws `abandoned` when that stopped it, and `decodeFailed` (saying it could not do
    /// `doing`) when whisper.cpp failed, so no caller reads a failed decode's state.
    private func run(
        _ samples: [Float], parameters: whisper_full_params, language: String, prompt: String?,
        shouldStop: (@Sendable () -> Bool)?, doing: String
    ) throws {
        var parameters = parameters
        let stopBox = shouldStop.map { StopCheck($0) }
        let abortCallback: ggml_abort_callback = { data in
            guard let data else { return false }
            return Unmanaged<StopCheck>.fromOpaque(data).takeUnretainedValue().check()
        }
        if let stopBox {
            parameters.abort_callback = abortCallback
            parameters.abort_callback_user_data = Unmanaged.passUnretained(stopBox).toOpaque()
        }
        let status = withExtendedLifetime(stopBox) {
            language.withCString { language in
                parameters.language = language
                return (prompt ?? "").withCString { promptText in
                    parameters.initial_prompt = prompt == nil ? nil : promptText
                    return samples.withUnsafeBufferPointer {
                        whisper_full_with_state(context, state, parameters, $0.baseAddress, Int32($0.count))
                    }
                }
            }
        }
        if let stopBox, stopBox.check() {
            throw HearingError(code: .abandoned, detail: "Whisper's decode was abandoned at its deadline")
        }
        guard status == 0 else {
            throw HearingError(
                code: .decodeFailed, detail: "Whisper could not \(doing) (whisper_full returned \(status))")
        }
    }

    /// How Whisper shares the probability of the audio it last encoded among the languages it knows: the decoder's
    /// first step after the start-of-transcript token (how whisper.cpp detects a language), the encoder's work
    /// reused. nil for an English-only model, or when whisper.cpp fails the step.
    private func spokenLanguage(threads: Int) -> SpokenLanguages? {
        guard whisper_is_multilingual(context) != 0 else { return nil }
        let start = [whisper_token_sot(context)]
        let status = start.withUnsafeBufferPointer {
            whisper_decode_with_state(context, state, $0.baseAddress, 1, 0, Int32(threads))
        }
        guard status == 0, let logits = whisper_get_logits_from_state(state) else { return nil }
        var codes: [String] = []
        var values: [Float] = []
        for id in 0...whisper_lang_max_id() {
            guard let code = whisper_lang_str(id) else { continue }
            codes.append(String(cString: code))
            values.append(logits[Int(whisper_token_lang(context, id))])
        }
        guard let highest = values.max() else { return nil }
        // Exponents relative to the highest logit, so none overflows; `SpokenLanguages` scales them to sum to 1.
        let weights = values.map { Float(exp(Double($0 - highest))) }
        return SpokenLanguages(shares: Dictionary(zip(codes, weights), uniquingKeysWith: +))
    }

    /// One text token of the last decode.
    struct Token {
        var id: whisper_token
        var bytes: [UInt8]
        var probability: Float
        /// Seconds from the start of the audio decoded.
        var time: Double
    }

    /// The last decode's text tokens, in order (its special tokens left out).
    func textTokens() -> [Token] {
        let endOfText = whisper_token_eot(context)
        var tokens: [Token] = []
        for segment in 0..<whisper_full_n_segments_from_state(state) {
            for index in 0..<whisper_full_n_tokens_from_state(state, segment) {
                let token = whisper_full_get_token_data_from_state(state, segment, index)
                guard token.id < endOfText,
                    let piece = whisper_full_get_token_text_from_state(context, state, segment, index)
                else { continue }
                tokens.append(
                    Token(
                        id: token.id, bytes: Array(UnsafeRawBufferPointer(start: piece, count: strlen(piece))),
                        probability: token.p, time: Double(max(0, token.t_dtw)) / 100))
            }
        }
        return tokens
    }

    /// Tokens joined into words (`wordRanges`), their bytes decoded as UTF-8 once a word is whole (a token can hold
    /// part of a character). `promptFree`: each token weighed without the prompt, when scored.
    static func words(of tokens: [Token], promptFree: [Weighed]?) -> [TimedWord] {
        var words: [TimedWord] = []
        var end = 0.0
        for range in wordRanges(of: tokens) {
            end = max(end, tokens[range].map(\.time).max() ?? end)
            let word = text(of: tokens[range])
            guard !word.isEmpty else { continue }
            let weighed = promptFree.map { scores in range.filter { $0 < scores.count }.map { scores[$0] } }
            words.append(
                TimedWord(
                    text: word, start: tokens[range.lowerBound].time, end: end,
                    probability: tokens[range].map(\.probability).reduce(Float(1)) { min($0, $1) },
                    promptFreeShortfall: weighed.map { $0.map(\.shortfall).reduce(0, +) }, tokenCount: range.count))
        }
        return words
    }

    /// A word's text: its tokens' bytes as UTF-8, without the space that starts it.
    static func text(of tokens: ArraySlice<Token>) -> String {
        String(decoding: tokens.flatMap(\.bytes), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// whisper.cpp's hook before each token is chosen: when the text so far ends in a sentence loop
/// (`SentenceLoop.endsInLoop`, given the prompt's sentences as user data), only the end of the text may come next.
private let endingSentenceLoops: whisper_logits_filter_callback = { context, _, tokens, count, logits, data in
    guard let context, let tokens, let logits, count > 0 else { return }
    let endOfText = whisper_token_eot(context)
    func bytes(of token: whisper_token) -> UnsafeRawBufferPointer? {
        guard token < endOfText, let piece = whisper_token_to_str(context, token) else { return nil }
        return UnsafeRawBufferPointer(start: piece, count: strlen(piece))
    }
    // Only a token ending a sentence can end a loop; most tokens are checked by this alone.
    guard let last = bytes(of: tokens[Int(count) - 1].id), last.contains(where: { ".!?".utf8.contains($0) }) else {
        return
    }
    var text: [UInt8] = []
    for index in 0..<Int(count) { text += bytes(of: tokens[index].id) ?? UnsafeRawBufferPointer(start: nil, count: 0) }
    let prompt = data.map { Unmanaged<PromptSentences>.fromOpaque($0).takeUnretainedValue().keys } ?? []
    guard SentenceLoop.endsInLoop(String(decoding: text, as: UTF8.self), prompt: prompt) else { return }
    for token in 0..<Int(whisper_n_vocab(context)) where token != Int(endOfText) { logits[token] = -.infinity }
}

/// The prompt's sentences (`SentenceLoop.sentenceKeys`) handed through whisper.cpp's C callback.
private final class PromptSentences: Sendable {
    let keys: Set<String>
    init(_ keys: Set<String>) { self.keys = keys }
}

/// The stop predicate handed through whisper.cpp's C callback.
private final class StopCheck: Sendable {
    let check: @Sendable () -> Bool
    init(_ check: @escaping @Sendable () -> Bool) { self.check = check }
}
