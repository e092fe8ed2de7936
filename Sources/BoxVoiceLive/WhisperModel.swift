import CWhisper
import Foundation
import Synchronization

/// Where the neural hearing parts are: the files `make setup` builds into `.build/hearing/models` and
/// `make install` copies beside Models.
public struct HearingModels: Sendable, Equatable {
    /// Whisper's weights in ggml format (base, multilingual, converted by scripts/whisper-ggml.py and quantized to
    /// 8 bits by whisper.cpp's own tool).
    public var whisper: String
    /// Silero VAD v6.2 in ggml format.
    public var voiceActivity: String

    public init(whisper: String, voiceActivity: String) {
        self.whisper = whisper
        self.voiceActivity = voiceActivity
    }

    /// The two files in one folder, under the names `make setup` gives them.
    public init(folder: String) {
        self.init(whisper: folder + "/ggml-base-q8_0.bin", voiceActivity: folder + "/silero-v6.2.0.bin")
    }

    /// Where a program finds them: installed beside its binary (`<prefix>/share/boxvoice/Models`, `make install`),
    /// or in the build folder of the checkout it was built in (`.build/hearing/models`, `make setup`).
    public static func besideThisProgram() -> HearingModels? {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let installed = HearingModels(
            folder: directory.deletingLastPathComponent().appendingPathComponent("share/boxvoice/Models").path)
        if installed.arePresent { return installed }
        while directory.path != "/" {
            let built = HearingModels(folder: directory.appendingPathComponent(".build/hearing/models").path)
            if built.arePresent { return built }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    /// Whether both are there.
    public var arePresent: Bool {
        [whisper, voiceActivity].allSatisfy { FileManager.default.isReadableFile(atPath: $0) }
    }
}

/// A failure of a neural hearing part (Whisper, the VAD or the noise filter), with a code a caller can switch on.
public struct HearingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The model file is missing or is not a model the library can load.
        case modelUnusable
        /// Decoding ran and failed.
        case decodeFailed
        /// Decoding was stopped because its deadline passed.
        case abandoned
    }
    public let code: Code
    public let detail: String
    public var description: String { "hearing: \(detail)" }
}

/// whisper.cpp and ggml write their progress to stderr unless given a callback; the live path's own events say
/// what matters.
private let quietLog: @convention(c) (ggml_log_level, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
    _, _, _ in
}

/// Called before any whisper.cpp context is made (the model's, the VAD's).
func silenceWhisperLogs() { whisper_log_set(quietLog, nil) }

/// Whisper's weights, loaded once per process for each model file and shared by every `WhisperModel` decoding with
/// them: each transcriber (every dictation, each of the daemon's turns, each of boxsim's HQ requests) would
/// otherwise read and lay out the 82 MB again. whisper.cpp only reads a context's weights while decoding, each
/// decoder with a state of its own, so one context serves any number of threads.
final class WhisperWeights: Sendable {
    // Safe to share: after loading, whisper.cpp only reads the context (decodes write to their own states).
    nonisolated(unsafe) let context: OpaquePointer

    private init(context: OpaquePointer) { self.context = context }

    deinit { whisper_free(context) }

    /// The weights of the model at `path`, loaded now if this process has not yet.
    static func of(_ path: String) throws -> WhisperWeights {
        try loaded.value(of: path) {
            var parameters = whisper_context_default_params()
            parameters.use_gpu = false
            parameters.flash_attn = false
            // Word times from the alignment heads' attention (dynamic time warping): a decode given the seconds before
            // its utterance keeps only the words said after them (`UtteranceEnds.ownWords`). The token-probability
            // times whisper.cpp also offers are not set without timestamp tokens.
            parameters.dtw_token_timestamps = true
            parameters.dtw_aheads_preset = try ModelShape(path).alignmentHeads
            guard let context = whisper_init_from_file_with_params_no_state(path, parameters) else {
                throw HearingError(
                    code: .modelUnusable,
                    detail: "\(path) is not a Whisper model whisper.cpp can load; run `make setup` again")
            }
            return WhisperWeights(context: context)
        }
    }

    private static let loaded = ModelFileMemo<WhisperWeights>(limit: 2)
}

/// The size of a Whisper model, read from its ggml header before loading: word timing needs the model's own
/// alignment heads (the attention heads that follow the audio), and whisper.cpp is told which set before it loads.
struct ModelShape: Equatable {
    var vocabulary: Int32
    var textState: Int32
    var textLayers: Int32

    init(vocabulary: Int32, textState: Int32, textLayers: Int32) {
        self.vocabulary = vocabulary
        self.textState = textState
        self.textLayers = textLayers
    }

    init(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw HearingError(code: .modelUnusable, detail: "\(path) cannot be read; run `make setup` again")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 40)) ?? Data()
        let fields = header.count == 40 ? header.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) } : []
        guard fields.count == 10, UInt32(bitPattern: fields[0].littleEndian) == 0x6767_6D6C else {
            throw HearingError(
                code: .modelUnusable, detail: "\(path) is not a Whisper model in ggml format; run `make setup` again")
        }
        self.init(
            vocabulary: fields[1].littleEndian, textState: fields[7].littleEndian, textLayers: fields[9].littleEndian)
    }

    /// Multilingual models have the language tokens (51,865 tokens and more); English-only ones 51,864.
    var isMultilingual: Bool { vocabulary >= 51_865 }

    /// whisper.cpp's alignment heads for this size; a size it has none for uses its top text layers' heads.
    var alignmentHeads: whisper_alignment_heads_preset {
        switch (textState, textLayers) {
        case (384, 4): isMultilingual ? WHISPER_AHEADS_TINY : WHISPER_AHEADS_TINY_EN
        case (512, 6): isMultilingual ? WHISPER_AHEADS_BASE : WHISPER_AHEADS_BASE_EN
        case (768, 12): isMultilingual ? WHISPER_AHEADS_SMALL : WHISPER_AHEADS_SMALL_EN
        case (1024, 24): isMultilingual ? WHISPER_AHEADS_MEDIUM : WHISPER_AHEADS_MEDIUM_EN
        default: WHISPER_AHEADS_N_TOP_MOST
        }
    }
}

/// Whisper over 16 kHz mono Float32: one utterance in, its text out. This file is the only place that calls
/// whisper.cpp's decoder. One decode at a time (it holds one decoding state over the shared weights);
/// `WhisperWorker` gives it a thread of its own.
public final class WhisperModel {
    public static let sampleRate = 16_000
    private let weights: WhisperWeights
    private let state: OpaquePointer
    private var context: OpaquePointer { weights.context }

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

    /// One word as Whisper wrote it, with where it was said, in seconds from the start of the audio decoded.
    /// Whisper's times are estimates (its tokens' shares of the audio, adjusted to its energy): a caller that cuts
    /// audio at them looks for the pause nearby.
    public struct TimedWord: Sendable, Equatable {
        public var text: String
        public var start: Double
        public var end: Double
        /// How sure Whisper was of the word: the lowest probability it gave any of the word's tokens.
        public var probability: Float
        /// Had Whisper been given no prompt (`transcribe`'s `scoringWithoutPrompt`: each token given the audio and
        /// the tokens before it but not the prompt), how far each of the word's tokens fell short of the token
        /// Whisper found likeliest at that step (natural log, summed over the tokens; 0: every token was its first
        /// choice): the word against Whisper's own best words over the same audio. nil when not weighed so.
        public var promptFreeShortfall: Float?
        /// How many tokens the word was written with.
        public var tokenCount: Int

        public init(
            text: String, start: Double, end: Double, probability: Float = 1, promptFreeShortfall: Float? = nil,
            tokenCount: Int = 1
        ) {
            self.text = text
            self.start = start
            self.end = end
            self.probability = probability
            self.promptFreeShortfall = promptFreeShortfall
            self.tokenCount = tokenCount
        }
    }

    /// What one decode gives.
    public struct Transcript: Sendable {
        public var text: String
        /// The same words with their times.
        public var words: [TimedWord]
        /// Whisper's own estimate that the audio held no speech (0...1).
        public var noSpeechProbability: Float
        /// How Whisper shares the audio's language among the languages it knows; nil for an English-only model, or
        /// a decode not weighed (`transcribe`'s `scoringWithoutPrompt`).
        public var languages: SpokenLanguages? = nil
        /// How likely Whisper finds it that the audio is English (0...1), when weighed as above.
        public var englishProbability: Float? { languages?.share(of: "en") }
        /// The language Whisper finds likeliest for the audio (its code: `es` for Spanish), when weighed as above.
        public var likeliestLanguage: String? { languages?.likeliest }
        /// Whisper's own text, when an ending weighed after the decode replaced its last words (`Rewriting`), and
        /// how much likelier (natural log) the ending was than the words it replaced (negative: less likely).
        public var rewrittenFrom: (text: String, gain: Float)? = nil
        /// Weighed without the prompt, how far ending the text where it ends fell short of Whisper's likeliest
        /// token there (`TimedWord.promptFreeShortfall`): 0 when Whisper would stop there itself.
        public var promptFreeEndShortfall: Float? = nil
    }

    /// Another ending for a decoded utterance, weighed against Whisper's own over the same audio.
    public struct Ending: Sendable, Equatable {
        /// How many of the decoded words (as `Transcript.words` has them) stay before it.
        public var keeping: Int
        /// What is written in place of the words after them.
        public var text: String

        public init(keeping: Int, text: String) {
            self.keeping = keeping
            self.text = text
        }
    }

    /// Endings weighed after a decode (`transcribe`): a greedy decode takes the likeliest token at each step, and a
    /// command phrase Whisper found nearly as likely as what it wrote ("dress my message" where *erase my message*
    /// was said) is lost at the one step where it came second. Weighed over the whole ending, with the end of the
    /// text after it, the phrase can win back.
    public struct Rewriting: Sendable {
        /// Given the decoded words, the endings to weigh (none: the decode stands).
        public var endings: @Sendable ([String]) -> [Ending]
        /// How much less likely (natural log) than Whisper's own words an ending may be and still replace them.
        public var margin: Float

        public init(margin: Float, endings: @escaping @Sendable ([String]) -> [Ending]) {
            self.margin = margin
            self.endings = endings
        }
    }

    /// How an utterance is searched for its words.
    public enum Search: Sendable, Equatable {
        /// The likeliest token each step, and nothing else: the cheapest.
        case greedy
        /// The likeliest few sequences kept side by side (this many), the best one taken at the end.
        case beam(Int)
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
            // 30 s window: a 4 s utterance decodes in about a quarter of the time (BENCHMARKS.md, "Hearing"). A
            // recording of one window (an HQ segment under 30 s) likewise; longer ones keep whole windows.
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
    private struct Token {
        var id: whisper_token
        var bytes: [UInt8]
        var probability: Float
        /// Seconds from the start of the audio decoded.
        var time: Double
    }

    /// The last decode's text tokens, in order (its special tokens left out).
    private func textTokens() -> [Token] {
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
    private static func words(of tokens: [Token], promptFree: [Weighed]?) -> [TimedWord] {
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
    private static func text(of tokens: ArraySlice<Token>) -> String {
        String(decoding: tokens.flatMap(\.bytes), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The log-probability Whisper gives each of `tokens` in turn over the audio it last encoded, given the tokens
    /// before it and `prompt` as whisper.cpp lays a prompt out (nil: none): the decoder run forward over the words,
    /// the encoder's work reused. nil if whisper.cpp fails a step.
    private func forcedWeights(_ tokens: [whisper_token], prompt: String?, threads: Int) -> [Weighed]? {
        guard !tokens.isEmpty else { return [] }
        guard let lead = lead(prompt: prompt) else { return nil }
        return weigh(tokens, after: lead, threads: threads)
    }

    /// One token as the decoder weighed it: its log-probability, and how far its logit fell short of the highest
    /// there (natural log; 0 when it was the decoder's first choice).
    private struct Weighed {
        var logProbability: Float
        var shortfall: Float
    }

    /// What comes before an English transcript's first text token: `prompt` as whisper.cpp lays a prompt out (its
    /// last tokens that fit in half the text context, after the "previous" mark), the start of the transcript, the
    /// language and task on a multilingual model, and no timestamps. nil if the prompt cannot be tokenized.
    private func lead(prompt: String?) -> [whisper_token]? {
        var feed: [whisper_token] = []
        if let prompt, !prompt.isEmpty {
            guard let promptTokens = tokenized(prompt) else { return nil }
            let room = Int(whisper_n_text_ctx(context)) / 2 - 1
            feed = [whisper_token_prev(context)] + promptTokens.suffix(room)
        }
        feed.append(whisper_token_sot(context))
        if whisper_is_multilingual(context) != 0 {
            feed += [whisper_token_lang(context, whisper_lang_id("en")), whisper_token_transcribe(context)]
        }
        feed.append(whisper_token_not(context))
        return feed
    }

    private func tokenized(_ text: String) -> [whisper_token]? {
        var tokens = [whisper_token](repeating: 0, count: 1_024)
        let count = whisper_tokenize(context, text, &tokens, Int32(tokens.count))
        return count >= 0 ? Array(tokens[..<Int(count)]) : nil
    }

    /// The log-probability of each of `tokens` in turn after `feed` (`lead` and text tokens), over the audio last
    /// encoded. When `feed` is the one last weighed after, its keys and values are still in the decoding state
    /// (whisper.cpp drops those past the position a decode starts at), so only its last token is decoded again.
    private func weigh(
        _ tokens: [whisper_token], after feed: [whisper_token], threads: Int, reusing lastFeed: [whisper_token]? = nil
    ) -> [Weighed]? {
        guard let lastToken = feed.last else { return nil }
        let vocabulary = Int(whisper_n_vocab(context))
        var input = feed
        var past: Int32 = 0
        if lastFeed == feed {
            input = [lastToken]
            past = Int32(feed.count - 1)
        }
        var scores: [Weighed] = []
        for token in tokens {
            let status = input.withUnsafeBufferPointer {
                whisper_decode_with_state(context, state, $0.baseAddress, Int32($0.count), past, Int32(threads))
            }
            guard status == 0, let logits = whisper_get_logits_from_state(state) else { return nil }
            let last = UnsafeBufferPointer(start: logits + (input.count - 1) * vocabulary, count: vocabulary)
            let highest = last.max() ?? 0
            let total = last.reduce(0.0) { $0 + exp(Double($1 - highest)) }
            let logit = last[Int(token)]
            scores.append(Weighed(logProbability: logit - highest - Float(log(total)), shortfall: highest - logit))
            past += Int32(input.count)
            input = [token]
        }
        return scores
    }

    /// `tokens` with their last words replaced by the ending `rewriting` offers that Whisper finds likeliest
    /// against its own words, each weighed with the end of the text after it; nil when none comes within the
    /// margin (or whisper.cpp fails a step). The ending's tokens carry the probabilities they were weighed with, so
    /// the decision judges them as any decode, and the times of the words they replace.
    private func rewritten(
        _ tokens: [Token], by rewriting: Rewriting, prompt: String?, threads: Int
    ) -> (tokens: [Token], gain: Float)? {
        let ranges = Self.wordRanges(of: tokens)
        let written = ranges.map { Self.text(of: tokens[$0]) }
        let endings = rewriting.endings(written).filter { $0.keeping >= 0 && $0.keeping < ranges.count }
        guard !endings.isEmpty, let lead = lead(prompt: prompt) else { return nil }
        let endOfText = whisper_token_eot(context)
        var own: [Int: Float] = [:]
        var lastFeed: [whisper_token]?
        var best: (gain: Float, tokens: [Token])?
        for ending in endings {
            let cut = ranges[ending.keeping].lowerBound
            let feed = lead + tokens[..<cut].map(\.id)
            if own[ending.keeping] == nil {
                guard let scores = weigh(tokens[cut...].map(\.id) + [endOfText], after: feed, threads: threads)
                else { return nil }
                own[ending.keeping] = scores.map(\.logProbability).reduce(0, +)
                lastFeed = feed
            }
            guard let ids = tokenized(" " + ending.text), !ids.isEmpty,
                let scores = weigh(ids + [endOfText], after: feed, threads: threads, reusing: lastFeed)
            else { continue }
            lastFeed = feed
            let gain = scores.map(\.logProbability).reduce(0, +) - own[ending.keeping, default: 0]
            guard gain >= -rewriting.margin, gain > best?.gain ?? -.infinity else { continue }
            let first = tokens[cut].time, last = tokens.last?.time ?? first
            let replacement = ids.enumerated().map { index, id in
                let piece = whisper_token_to_str(context, id)
                return Token(
                    id: id, bytes: piece.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? [],
                    probability: exp(scores[index].logProbability),
                    time: ids.count == 1 ? last : first + (last - first) * Double(index) / Double(ids.count - 1))
            }
            best = (gain, Array(tokens[..<cut]) + replacement)
        }
        return best.map { ($0.tokens, $0.gain) }
    }

    /// Which tokens make each word: a token starting with a space starts one, as does any token after tokens that
    /// wrote nothing.
    private static func wordRanges(of tokens: [Token]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for (index, token) in tokens.enumerated()
        where index > start
            && (token.bytes.first == UInt8(ascii: " ") || tokens[start..<index].allSatisfy(\.bytes.isEmpty))
        {
            ranges.append(start..<index)
            start = index
        }
        if start < tokens.count { ranges.append(start..<tokens.count) }
        return ranges
    }

    /// The last decode's text tokens weighed again under `prompt`, as probabilities, beside the probabilities the
    /// decode itself gave them: for tests that pin the weighing to whisper.cpp's own search.
    func lastDecodeWeighed(prompt: String?) -> (weighed: [Float], decoded: [Float])? {
        let tokens = textTokens()
        return forcedWeights(tokens.map(\.id), prompt: prompt, threads: 2).map {
            ($0.map { exp($0.logProbability) }, tokens.map(\.probability))
        }
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
