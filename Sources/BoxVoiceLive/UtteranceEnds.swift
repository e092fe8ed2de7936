import BoxVoiceKeywords
import Foundation

/// Which recognizer's text an utterance carries.
public enum HeardBy: Sendable, Equatable {
    /// pocketsphinx alone (the Whisper road is off).
    case pocketsphinx
    /// Whisper, at the utterance's end.
    case whisper
    /// pocketsphinx, because Whisper missed this utterance (late on a loaded machine, or failed).
    case pocketsphinxInstead(HearingError.Code)

    /// As `listen --json` names it.
    public var name: String {
        switch self {
        case .pocketsphinx: "pocketsphinx"
        case .whisper: "whisper"
        case .pocketsphinxInstead: "pocketsphinx-instead"
        }
    }
}

/// The utterance-end road of the live path: Silero VAD cuts the audio as captured into utterances, and Whisper
/// decodes each one as it ends, on its own thread, within a deadline.
final class UtteranceEnds {
    let settings: LiveTranscriber.WhisperHearing
    private let activity: VoiceActivity
    private let worker: WhisperWorker
    private var cutter: UtteranceCutter
    private var carry: [Float] = []
    /// The last seconds heard (`remember`), from stream sample `recentStart` on: a short utterance is decoded with
    /// what was said just before it.
    private var recent: [Float] = []
    private var recentStart = 0
    /// Where the last utterance's speech ended, in seconds of the stream, and the words it was given.
    private var lastSpeechEnd: Double?
    private var lastWords: [String] = []
    /// Whether a text holds a command (the contract's detector).
    private let holdsCommand: @Sendable (String) -> Bool
    /// The decodes asked of Whisper so far, by why.
    private(set) var decodes = WhisperDecodes()
    /// Which decodes are weighed again without the prompt and for their language: those ending with a command, as
    /// the live path takes the words (a sentence Whisper looped on, cut off by the token ceiling, ends where the
    /// loop began), which the decision scores. A command made by joining words Whisper wrote apart (`WrittenApart`)
    /// is weighed like one it wrote whole.
    private var weighsCommands: @Sendable (String) -> Bool {
        { [holdsCommand, writtenApart] text in
            let plain = UtteranceEnds.plain(text)
            return holdsCommand(plain) || holdsCommand(writtenApart.joined(plain))
        }
    }
    /// The decode started when the utterance in progress settled (`UtteranceCutter.settled`), and how many samples
    /// it was given.
    private var speculation: (count: Int, decode: WhisperWorker.Started)?
    /// Decodes started for utterances that have ended, by where they ended (`Cut.end`), until they are decided;
    /// `settled`: started when the utterance settled (`speculation`), not once it had ended.
    private var decodesStarted: [Double: (decode: WhisperWorker.Started, settled: Bool)] = [:]
    /// Where the commands in a text are (`KeywordDetector.commandPlaces`).
    private let commandPlaces: @Sendable (String) -> [KeywordDetector.Place]
    /// The vocabulary's words Whisper writes as two, joined back where that makes a command.
    private let writtenApart: WrittenApart
    /// Command phrases weighed against a decode's last words (`WhisperHearing.endings`), when on.
    private let rewriting: WhisperModel.Rewriting?
    /// How last words sound against the vocabulary's phrases (the endings' tolerance), when endings are on: the
    /// accent check's English decode is read through it too.
    private let sounds: SoundsLikeCommand?

    init(
        settings: LiveTranscriber.WhisperHearing, holdsCommand: @escaping @Sendable (String) -> Bool,
        commandPlaces: @escaping @Sendable (String) -> [KeywordDetector.Place], vocabulary: Vocabulary? = nil,
        dictionary: String? = nil
    ) throws {
        self.settings = settings
        self.holdsCommand = holdsCommand
        self.commandPlaces = commandPlaces
        writtenApart = WrittenApart(vocabulary: vocabulary?.words ?? []) { commandPlaces($0).count }
        if let endings = settings.endings, let vocabulary, let dictionary {
            let phrases = vocabulary.phrases.map { $0.joined(separator: " ") }
            let ends = CommandEndings(
                sounds: try SoundsLikeCommand(phrases: phrases, dictionary: dictionary, tolerance: endings.tolerance),
                holdsCommand: holdsCommand, spelling: settings.spelledAlike.map { ($0, phrases) })
            rewriting = WhisperModel.Rewriting(margin: endings.margin) { ends.endings($0) }
            sounds = ends.sounds
        } else {
            rewriting = nil
            sounds = nil
        }
        activity = try VoiceActivity(path: settings.models.voiceActivity)
        worker = try WhisperWorker(
            modelPath: settings.models.whisper, threads: settings.threads,
            search: settings.search)
        cutter = UtteranceCutter(rule: settings.cutting, sampleRate: Double(WhisperModel.sampleRate))
    }

    /// Hears 16 kHz audio; returns the utterances it ended.
    func hear(_ samples: [Float]) -> [UtteranceCutter.Cut] {
        let pending = carry + samples
        let whole = pending.count / VoiceActivity.window * VoiceActivity.window
        carry = Array(pending[whole...])
        let probabilities = activity.probabilities(Array(pending[..<whole]))
        remember(pending[..<whole])
        var cuts: [UtteranceCutter.Cut] = []
        for (index, probability) in probabilities.enumerated() {
            if let heard = hearAfterBreath(probability) { cuts.append(heard) }
            let start = index * VoiceActivity.window
            if let cut = cutter.add(window: pending[start..<start + VoiceActivity.window], probability: probability) {
                if cut.ending == .breath {
                    afterBreath = (ended(cut), 0)
                } else {
                    cuts.append(ended(cut))
                }
            } else {
                speculate()
            }
        }
        return cuts
    }

    /// An utterance cut at one quiet window (`UtteranceCutter.Ending.breath`), while the windows after it tell
    /// whether the speaker paused there, and how many quiet ones came so far.
    private var afterBreath: (cut: UtteranceCutter.Cut, quiet: Int)?

    /// The utterance cut at a breath, once the next window decides it: a pause when the quiet has lasted
    /// `longEndSilence` (the shortest pause that ends an utterance), a breath when speech came back before.
    private func hearAfterBreath(_ probability: Float) -> UtteranceCutter.Cut? {
        guard var (cut, quiet) = afterBreath else { return nil }
        let rule = cutter.rule
        if probability >= rule.offset {
            afterBreath = nil
            return cut
        }
        quiet += 1
        // The cut's own quiet window counts.
        guard Double(quiet + 1) * Double(VoiceActivity.window) / Double(WhisperModel.sampleRate) >= rule.longEndSilence
        else {
            afterBreath = (cut, quiet)
            return nil
        }
        afterBreath = nil
        cut.ending = .pause
        return cut
    }

    /// Ends the utterance in progress now; an utterance cut at a breath just before is one the speaker ended.
    func finish() -> [UtteranceCutter.Cut] {
        var cuts: [UtteranceCutter.Cut] = []
        if var (cut, _) = afterBreath {
            cut.ending = .finished
            cuts.append(cut)
            afterBreath = nil
        }
        return cuts + (cutter.finish().map { [ended($0)] } ?? [])
    }

    /// Starts the decode of the utterance in progress once it has settled, while the cutter waits to be sure it has
    /// ended (a command is acted on that much sooner); drops it when speech comes back.
    private func speculate() {
        guard cutter.isSettled else {
            if let speculation {
                speculation.decode.abandon()
                decodes.dropped += 1
            }
            speculation = nil
            return
        }
        guard speculation == nil, let audio = cutter.settled else { return }
        decodes.speculative.add(audio.count)
        speculation = (
            audio.count,
            worker.start(audio, prompt: settings.prompt, scoringWithoutPrompt: weighsCommands, rewriting: rewriting)
        )
    }

    /// Starts the decode of an ended utterance now, unless the one started when it settled serves: its words are
    /// then waited for while the live path hears on (`isDecoded`).
    @discardableResult
    func startDecode(_ cut: UtteranceCutter.Cut) -> (decode: WhisperWorker.Started, settled: Bool) {
        if let started = decodesStarted[cut.end] { return started }
        decodes.atEnd.add(cut.heardCount)
        let started = (
            decode: worker.start(
                cut.heard, prompt: settings.prompt, scoringWithoutPrompt: weighsCommands, rewriting: rewriting),
            settled: false
        )
        decodesStarted[cut.end] = started
        return started
    }

    /// Whether the first decode of `cut` has answered (true when none was started: nothing to wait for).
    func isDecoded(_ cut: UtteranceCutter.Cut) -> Bool { decodesStarted[cut.end]?.decode.isAnswered ?? true }

    /// Keeps the decode started for `cut`, if it was given the audio `cut` is heard by.
    private func ended(_ cut: UtteranceCutter.Cut) -> UtteranceCutter.Cut {
        if let speculation {
            if speculation.count == cut.heardCount {
                decodesStarted[cut.end] = (speculation.decode, true)
            } else {
                speculation.decode.abandon()
                decodes.dropped += 1
            }
        }
        speculation = nil
        return cut
    }

    /// Whisper's words for one utterance, or why there are none in time. No words: Whisper judged it no speech.
    ///
    /// A short utterance right after speech whose words hold no command (a command said alone after its sentence)
    /// is decoded a second time with the seconds before it: alone, a second of audio is often too little for
    /// Whisper to make out. Only when Whisper was unsure of a word (`Context.unsureBelow`) or `suspects` the words:
    /// a command it could not make out alone was written with an unsure word every time measured. The second
    /// decode's words are taken only when they hold a command: given context, Whisper also writes some of the
    /// context's words again, which ordinary text must not get (BENCHMARKS.md, "Hearing").
    ///
    /// When the words hold no command Whisper is sure of (`HeardPieces`) but something suggests one was said —
    /// `suspects` says so of the words (pocketsphinx's text or the spotter held a command in the same audio, or the
    /// last words sound like a command phrase) — the utterance is decoded once more with the careful search
    /// (`WhisperHearing.carefulSearch`), whose words are taken only when they hold a command it is sure of.
    ///
    /// Words holding a sure command, in audio Whisper finds unlikely to be English, are checked in the language it
    /// hears (`inItsOwnLanguage`).
    ///
    /// - Parameter wait: how long the first decode may still be waited for (nil: `WhisperHearing.deadline`); the
    ///   checks after it share `WhisperHearing.checksDeadline` from now.
    func transcribe(_ cut: UtteranceCutter.Cut, wait: Double? = nil, suspects: (String) -> Bool = { _ in false })
        -> Result<Judged, HearingError>
    {
        let started = Date()
        let quick = quickly(cut, started: started, wait: wait ?? settings.deadline, suspects: suspects).map(judged)
        guard let careful = settings.carefulSearch, case .success(let first) = quick, !first.holdsSureCommand,
            !first.foreign, suspects(Self.text(first.words))
        else { return remembered(quick.map { inItsOwnLanguage($0, cut: cut, started: started) }) }
        let left = settings.checksDeadline - Date().timeIntervalSince(started)
        decodes.careful.add(cut.heardCount)
        let second = worker.transcribe(
            cut.heard, prompt: settings.prompt, deadline: left, search: careful, scoringWithoutPrompt: weighsCommands,
            rewriting: rewriting)
        guard case .success(let transcript) = second else { return remembered(quick) }
        let better = judged(heard(transcript, of: cut.heard))
        return remembered(
            better.holdsSureCommand ? .success(inItsOwnLanguage(better, cut: cut, started: started)) : quick)
    }

    /// Told to write English, Whisper translates: Spanish *para enviar un mensaje* can come out as the send command,
    /// in audio it still judges English by more than the English floor (0.0029 on the bench's Spanish prompts, where
    /// English commands in noise go down to 0.0032). So a sure command in audio Whisper finds less likely English
    /// than `WhisperHearing.ownLanguageBelow`, and likeliest another language, is checked (`languageVerdict`: the
    /// languages Whisper hands unclear English to are left out of both):
    /// - The language is judged again over the seconds before the utterance too (`languageSeconds` in all): a command
    ///   said alone is a second of audio, too little to tell a language by (the development clips' *send checkpoint*
    ///   was judged Polish), and the message before it says what the speaker speaks. English there: it stands.
    /// - Otherwise the utterance is decoded again in that language, without the prompt: a command the speaker said
    ///   is written there too (nobody says *send message* in Spanish), whole or spelled as a heavy accent says it
    ///   (`SpelledAlike`), a translation is not.
    /// Without the command there, or without an answer in time, the utterance is judged foreign and its commands
    /// wait for the box.
    private func inItsOwnLanguage(_ judged: Judged, cut: UtteranceCutter.Cut, started: Date) -> Judged {
        guard let below = settings.ownLanguageBelow, judged.holdsSureCommand, !judged.foreign,
            let languages = judged.decoded.languages,
            case .other(var language) = Self.languageVerdict(
                languages, englishBelow: below, leavingOut: settings.englishLookalikes)
        else { return judged }
        decodes.languageChecks += 1
        let foreign = self.judged(judged.decoded, foreign: true)
        if let lead = leadIn(for: cut) {
            let left = settings.checksDeadline - Date().timeIntervalSince(started)
            decodes.language.add(lead.count + cut.heardCount)
            guard case .success(let wider) = worker.spokenLanguage(of: lead + cut.heard, deadline: left),
                let widerLanguages = wider.languages
            else { return foreign }
            switch Self.languageVerdict(widerLanguages, englishBelow: below, leavingOut: settings.englishLookalikes) {
            case .english: return judged
            case .unjudged: return foreign
            case .other(let wider): language = wider
            }
        }
        let left = settings.checksDeadline - Date().timeIntervalSince(started)
        decodes.ownLanguage.add(judged.decoded.audio.count)
        let own = worker.transcribe(judged.decoded.audio, prompt: nil, deadline: left, language: language)
        guard case .success(let transcript) = own else { return foreign }
        let ownSureness = HeardPieces.sureness(of: transcript.words)
        let ownText = Self.text(asTaken(transcript.words))
        let spelled = Self.spells(judged.sureActions, in: ownText, spelling: spelling(of: judged))
        decodes.inOwnLanguage.append((language, transcript.text, ownSureness, spelled))
        if holdsCommand(ownText) || spelled { return judged }
        return saidWithAnAccent(judged, ownSureness: ownSureness, started: started) ? judged : foreign
    }

    /// How near a decode must spell the last command Whisper was sure of in English, and that command's words
    /// (`WhisperHearing.spelledAlike`): a heavy accent comes out written as it sounds. nil: spelling is off.
    private func spelling(of judged: Judged) -> (SpelledAlike, command: String)? {
        guard let spelling = settings.spelledAlike, let command = judged.lastSureCommand else { return nil }
        return (spelling, command)
    }

    /// English said with an accent Whisper takes for another language comes out of the own-language check as words
    /// it can barely write (sureness 0.045–0.22 on the development sets' accents), where a translation comes out as
    /// that language's sentence, written surely (0.34 and up on real Spanish). Under `WhisperHearing.accentBelow`,
    /// the utterance is decoded once more in English without the prompt, as the box's second opinion hears it: the
    /// commands the speaker said are written there too, or sound or are spelled alike at its end (`holds`); a command
    /// the prompt made over foreign speech is not (the held-out French telephone prompts' *Tu vas crocher ?*, written
    /// 0.12 sure, came out "I have a question.").
    private func saidWithAnAccent(_ judged: Judged, ownSureness: Float, started: Date) -> Bool {
        guard let below = settings.accentBelow, ownSureness < below else { return false }
        let said = judged.sureActions
        guard !said.isEmpty else { return false }
        let left = settings.checksDeadline - Date().timeIntervalSince(started)
        decodes.accent.add(judged.decoded.audio.count)
        guard case .success(let plain) = worker.transcribe(judged.decoded.audio, prompt: nil, deadline: left)
        else { return false }
        let text = Self.text(asTaken(plain.words))
        let holds = Self.holds(said, in: text, places: commandPlaces, sounds: sounds, spelling: spelling(of: judged))
        decodes.inEnglishWithoutPrompt.append((text, holds, HeardPieces.sureness(of: plain.words)))
        return holds
    }

    /// Whether English `text` holds every command `said`: written there, or, for the one its last words sound like
    /// (`sounds`), said in an accent Whisper spells near the phrase (the development sets' "same that checkpoint",
    /// "Send the check byte."), or, where one command was said, its last words spell it (`spelling`: the command as
    /// Whisper wrote it with the prompt, and how near; "send Cakepoint", a word the dictionary has no sound for).
    /// A command the prompt added that the text lacks keeps the utterance waiting.
    static func holds(
        _ said: Set<KeywordAction>, in text: String, places: (String) -> [KeywordDetector.Place],
        sounds: SoundsLikeCommand?, spelling: (SpelledAlike, command: String)? = nil
    ) -> Bool {
        var heard = Set(places(text).map(\.action))
        if let phrase = sounds?.match(text) { heard.formUnion(places(phrase).map(\.action)) }
        return (!said.isEmpty && said.isSubset(of: heard)) || spells(said, in: text, spelling: spelling)
    }

    /// Whether `text` ends by spelling the one command `said` (`spelling`: how near, and the command as Whisper wrote
    /// it with the prompt). Where more than one was said, spelling the last does not vouch for the others.
    static func spells(
        _ said: Set<KeywordAction>, in text: String, spelling: (SpelledAlike, command: String)?
    ) -> Bool {
        guard said.count == 1, let spelling else { return false }
        return spelling.0.spells(spelling.command, atEndOf: text)
    }

    /// What the own-language check takes an audio's language to be.
    enum LanguageVerdict: Equatable {
        /// English is likeliest, or at least as likely as the check's bound: a command in it stands.
        case english
        /// Another language is likeliest and English under the bound: a command is checked in that language.
        case other(String)
        /// No language is left to judge by.
        case unjudged
    }

    /// How the own-language check judges `languages`: among the languages not in `lookalikes`
    /// (`WhisperHearing.englishLookalikes`), English's share against `englishBelow` and the likeliest of them.
    static func languageVerdict(
        _ languages: SpokenLanguages, englishBelow: Float, leavingOut lookalikes: Set<String>
    ) -> LanguageVerdict {
        let others = languages.leavingOut(lookalikes)
        guard let likeliest = others.likeliest else { return .unjudged }
        return likeliest == "en" || others.share(of: "en") >= englishBelow ? .english : .other(likeliest)
    }

    /// Seconds of audio a command's language is judged over, with what was heard before its utterance.
    static let languageSeconds = 8.0

    /// The audio heard just before `cut`, to make it `languageSeconds` long; nil when none is kept.
    private func leadIn(for cut: UtteranceCutter.Cut) -> [Float]? {
        Self.leadRange(for: cut, kept: recentStart..<(recentStart + recent.count)).map {
            Array(recent[($0.lowerBound - recentStart)..<($0.upperBound - recentStart)])
        }
    }

    /// The stream samples `leadIn(for:)` gives (nil: none), of those `kept`.
    static func leadRange(for cut: UtteranceCutter.Cut, kept: Range<Int>) -> Range<Int>? {
        let rate = Double(WhisperModel.sampleRate)
        let first = Int((cut.end * rate).rounded()) - cut.samples.count
        let wanted = Int(languageSeconds * rate) - cut.samples.count
        let from = max(kept.lowerBound, first - wanted)
        guard wanted > 0, first > from, first <= kept.upperBound else { return nil }
        return from..<first
    }

    /// An utterance's words and the pieces they were judged as, worked out once: the second look decides on the
    /// pieces, and the transcriber places their ends.
    struct Judged {
        var decoded: Decoded
        /// The utterance was judged spoken in another language (`HeardPieces.soundsForeign`, `inItsOwnLanguage`).
        var foreign: Bool
        var pieces: [HeardPieces.Piece]
        var words: [WhisperModel.TimedWord] { decoded.words }
        /// The words hold a command Whisper was sure of.
        var holdsSureCommand: Bool { pieces.contains(where: Self.isSureCommand) }
        /// What the commands Whisper was sure of do.
        var sureActions: Set<KeywordAction> { Set(pieces.filter(Self.isSureCommand).compactMap(\.action)) }
        /// The words of the last command Whisper was sure of, as it wrote them.
        var lastSureCommand: String? { pieces.last(where: Self.isSureCommand)?.command }

        private static func isSureCommand(_ piece: HeardPieces.Piece) -> Bool {
            piece.lastCommandWord != nil && !piece.unsure
        }
    }

    private func judged(_ decoded: Decoded) -> Judged {
        judged(decoded, foreign: HeardPieces.soundsForeign(english: decoded.english, floor: settings.englishFloor))
    }

    private func judged(_ decoded: Decoded, foreign: Bool) -> Judged {
        Judged(
            decoded: decoded, foreign: foreign,
            pieces: HeardPieces.pieces(
                of: decoded.words, places: commandPlaces, decision: settings.decision, english: decoded.english,
                language: decoded.language, foreign: foreign, endShortfall: decoded.endShortfall))
    }

    /// One decode's words as the live path takes them, the audio they were decoded from, and how likely Whisper
    /// found it English (and which language likeliest).
    struct Decoded: CustomStringConvertible {
        var words: [WhisperModel.TimedWord]
        var audio: [Float]
        /// How Whisper shares the audio's language among those it knows, where it was weighed so.
        var languages: SpokenLanguages?
        /// What Whisper wrote itself, when a command ending replaced its last words (`WhisperHearing.endings`).
        var ownText: String? = nil
        /// Weighed without the prompt, how far ending the words here fell short of Whisper's likeliest token.
        var endShortfall: Float? = nil
        var english: Float? { languages?.share(of: "en") }
        var language: String? { languages?.likeliest }

        /// The words and the audio's length, not its samples (a failed test prints this).
        var description: String {
            let seconds = String(format: "%.2f s", Double(audio.count) / Double(WhisperModel.sampleRate))
            return "\(UtteranceEnds.text(words)) (\(seconds), English \(english.map { "\($0)" } ?? "not weighed")"
                + "\(language.map { ", likeliest \($0)" } ?? ""))"
        }
    }

    /// The one greedy decode, and for a short utterance after speech, the one with context.
    private func quickly(
        _ cut: UtteranceCutter.Cut, started: Date, wait: Double, suspects: (String) -> Bool
    ) -> Result<Decoded, HearingError> {
        let context = self.context(for: cut)
        lastSpeechEnd = cut.speechEnd
        let audio = cut.heard
        let first = startDecode(cut)
        decodesStarted[cut.end] = nil
        if first.settled { decodes.settled += 1 }
        let answer = first.decode.answer(deadline: wait)
        let alone = answer.map { heard($0, of: audio) }
        // A command ending Whisper was weighed into is as unsure as a word it wrote unsure: what it wrote itself
        // decides whether the context is heard, and a command the context decode writes comes first.
        guard case .success(let decoded) = alone, !context.isEmpty,
            !holdsCommand(decoded.ownText ?? Self.text(decoded.words)),
            decoded.ownText != nil || Self.unsure(decoded.words, below: settings.context.unsureBelow)
                || suspects(Self.text(decoded.words))
        else {
            return alone
        }
        let left = settings.checksDeadline - Date().timeIntervalSince(started)
        let withContext = context + audio
        decodes.context.add(withContext.count)
        let second = worker.transcribe(
            withContext, prompt: settings.prompt, deadline: left, scoringWithoutPrompt: weighsCommands,
            rewriting: rewriting)
        guard case .success(let transcript) = second else {
            return alone
        }
        let shift = Double(context.count) / Double(WhisperModel.sampleRate)
        var whole = heard(transcript, of: withContext)
        whole.words = Self.withoutOverlap(
            Self.ownWords(whole.words, after: shift, lead: settings.cutting.lead),
            of: lastWords)
        return holdsCommand(Self.text(whole.words)) ? .success(whole) : alone
    }

    /// Whether Whisper gave one of `words` less than `floor` probability, or wrote none (a nil floor: always).
    static func unsure(_ words: [WhisperModel.TimedWord], below floor: Float?) -> Bool {
        guard let floor, let leastSure = words.map(\.probability).min() else { return true }
        return leastSure < floor
    }

    /// Whisper's words as the live path takes them: plain (`plain`), with vocabulary words written apart joined.
    private func asTaken(_ words: [WhisperModel.TimedWord]) -> [WhisperModel.TimedWord] {
        writtenApart.joined(Self.plain(words))
    }

    /// A decode's words as the live path takes them, or none when Whisper judged the audio no speech.
    private func heard(_ transcript: WhisperModel.Transcript, of audio: [Float]) -> Decoded {
        if let from = transcript.rewrittenFrom { decodes.rewritten.append((from.text, transcript.text, from.gain)) }
        let words =
            transcript.noSpeechProbability > settings.noSpeechCeiling
            ? [] : asTaken(transcript.words)
        return Decoded(
            words: words, audio: audio, languages: transcript.languages, ownText: transcript.rewrittenFrom?.text,
            endShortfall: transcript.promptFreeEndShortfall)
    }

    /// Keeps the words given, for the next utterance's `withoutOverlap`.
    private func remembered(_ result: Result<Judged, HearingError>) -> Result<Judged, HearingError> {
        if case .success(let heard) = result { lastWords = heard.words.map(\.text) }
        return result
    }

    static func text(_ words: [WhisperModel.TimedWord]) -> String { words.map(\.text).joined(separator: " ") }

    /// How the loop and overlap checks compare words: case and punctuation aside.
    static func wordKey(_ text: String) -> String { text.lowercased().filter { $0.isLetter || $0.isNumber } }

    /// `words` without a beginning that repeats the end of the last utterance's words (the context's last word
    /// placed after the boundary).
    static func withoutOverlap(_ words: [WhisperModel.TimedWord], of last: [String]) -> [WhisperModel.TimedWord] {
        let longest = min(words.count, last.count)
        guard longest > 0 else { return words }
        for length in stride(from: longest, through: 1, by: -1)
        where (0..<length).allSatisfy({ wordKey(words[$0].text) == wordKey(last[last.count - length + $0]) }) {
            return Array(words[length...])
        }
        return words
    }

    /// The words of a decode given `context` seconds of audio before the utterance, in the utterance's own times.
    /// The utterance's audio starts with `lead` of quiet before its speech: a word Whisper places in the first half
    /// of that quiet or earlier belongs to the context (the last utterance, already given).
    static func ownWords(_ words: [WhisperModel.TimedWord], after context: Double, lead: Double)
        -> [WhisperModel.TimedWord]
    {
        guard context > 0 else { return words }
        return words.filter { $0.end >= context + lead / 2 }.map {
            var word = $0
            word.start = max(0, $0.start - context)
            word.end = max(0, $0.end - context)
            return word
        }
    }

    /// The audio just before `cut` that its decode is given: `settings.context.seconds` of it when the cut is
    /// shorter than `settings.context.below` and the last utterance's speech ended within `settings.context.after`
    /// of the cut's start; none otherwise.
    private func context(for cut: UtteranceCutter.Cut) -> [Float] {
        let range = Self.contextRange(
            for: cut, lastSpeechEnd: lastSpeechEnd, rule: settings.context,
            kept: recentStart..<(recentStart + recent.count))
        return range.map { Array(recent[($0.lowerBound - recentStart)..<($0.upperBound - recentStart)]) } ?? []
    }

    /// The stream samples `context(for:)` gives (nil: none), of those `kept`.
    static func contextRange(
        for cut: UtteranceCutter.Cut, lastSpeechEnd: Double?, rule: LiveTranscriber.Context,
        kept: Range<Int>
    ) -> Range<Int>? {
        let rate = Double(WhisperModel.sampleRate)
        guard rule.seconds > 0, Double(cut.samples.count) / rate < rule.below, let lastSpeechEnd,
            cut.start - lastSpeechEnd <= rule.after
        else { return nil }
        let first = Int((cut.end * rate).rounded()) - cut.samples.count
        let from = max(kept.lowerBound, first - Int(rule.seconds * rate))
        guard first > from, first <= kept.upperBound else { return nil }
        return from..<first
    }

    /// Keeps the audio heard for `context(for:)` and `leadIn(for:)`. Only a cut shorter than `context.below` gets
    /// context, the lead-in makes a cut `languageSeconds` long, and every cut ends within the samples handed in now:
    /// those samples and, before them, that length (and a second) are all that is ever read.
    private func remember(_ samples: ArraySlice<Float>) {
        let forContext = settings.context.seconds > 0 ? settings.context.below + settings.context.seconds + 1 : 0
        let forLanguage = settings.ownLanguageBelow == nil ? 0 : Self.languageSeconds + 1
        guard forContext + forLanguage > 0 else { return }
        // Plus the deadline: an utterance is decided up to that long after it ended, while hearing goes on.
        let keep = Int((max(forContext, forLanguage) + settings.deadline) * Double(WhisperModel.sampleRate))
        if recent.count > keep + keep / 4 {
            recentStart += recent.count - keep
            recent.removeFirst(recent.count - keep)
        }
        recent += samples
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
            if !text.isEmpty {
                var plainWord = word
                plainWord.text = text
                kept.append(plainWord)
            }
        }
        return withoutRepeats(withoutStutters(kept))
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
            wordKey(sentence.map(\.text).joined())
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

    /// Whisper's other loop: a word or a few words written over and over within a sentence ("November November
    /// November …", "eleven eleven eleven …"), which a single greedy pass does on a short utterance. Three or more
    /// repeats in a row are one; a person who says a word twice ("no, no") keeps both. An unfinished repeat after a
    /// collapsed run goes too.
    static func withoutStutters(_ words: [WhisperModel.TimedWord]) -> [WhisperModel.TimedWord] {
        let keys = words.map { wordKey($0.text) }
        func same(_ a: Int, _ b: Int, _ length: Int) -> Bool {
            (0..<length).allSatisfy { keys[a + $0] == keys[b + $0] && !keys[a + $0].isEmpty }
        }
        var kept: [WhisperModel.TimedWord] = []
        var index = 0
        while index < words.count {
            var collapsed = false
            for length in 1...6 where index + 3 * length <= words.count {
                var repeats = 1
                while index + (repeats + 1) * length <= words.count, same(index, index + repeats * length, length) {
                    repeats += 1
                }
                guard repeats >= 3 else { continue }
                kept += words[index..<index + length]
                index += repeats * length
                // What follows may be the loop cut short by the token ceiling: the n-gram's beginning again.
                var tail = 0
                while tail < length, index + tail < words.count, !keys[index + tail].isEmpty,
                    keys[index - length + tail].hasPrefix(keys[index + tail])
                { tail += 1 }
                if index + tail == words.count { index = words.count }
                collapsed = true
                break
            }
            if !collapsed {
                kept.append(words[index])
                index += 1
            }
        }
        return kept
    }
}
