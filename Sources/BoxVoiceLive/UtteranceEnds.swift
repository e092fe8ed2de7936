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
    let worker: WhisperWorker
    private var cutter: UtteranceCutter
    private var carry: [Float] = []
    /// The last seconds heard (`remember`), from stream sample `recentStart` on: a short utterance is decoded with
    /// what was said just before it.
    var recent: [Float] = []
    var recentStart = 0
    /// Where the last utterance's speech ended, in seconds of the stream, and the words it was given.
    var lastSpeechEnd: Double?
    private var lastWords: [String] = []
    /// Whether a text holds a command (the contract's detector).
    let holdsCommand: @Sendable (String) -> Bool
    /// The decodes asked of Whisper so far, by why.
    var decodes = WhisperDecodes()
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
    let commandPlaces: @Sendable (String) -> [KeywordDetector.Place]
    /// The vocabulary's words Whisper writes as two, joined back where that makes a command.
    private let writtenApart: WrittenApart
    /// Command phrases weighed against a decode's last words (`WhisperHearing.endings`), when on.
    private let rewriting: WhisperModel.Rewriting?
    /// How last words sound against the vocabulary's phrases (the endings' tolerance), when endings are on: the
    /// accent check's English decode is read through it too.
    let sounds: SoundsLikeCommand?

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
                holdsCommand: holdsCommand)
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
    /// Whisper to make out. Only when Whisper was unsure of a word (`Context.unsureBelow`) or a command is
    /// `suspected`: a command it could not make out alone was written with an unsure word every time measured. The
    /// second decode's words are taken only when they hold a command: given context, Whisper also writes some of the
    /// context's words again, which ordinary text must not get.
    ///
    /// Words holding a sure command, in audio Whisper finds unlikely to be English, are checked in the language it
    /// hears (`inItsOwnLanguage`).
    ///
    /// - Parameter wait: how long the utterance's words may still be waited for (nil: `WhisperHearing.deadline`):
    ///   the first decode and every check after it share it. No check has a shorter clock of its own, so a busy
    ///   machine decides the same as an idle one, later.
    /// - Parameter suspected: something else suggests a command in the audio (pocketsphinx's words of it hold one).
    func transcribe(_ cut: UtteranceCutter.Cut, wait: Double? = nil, suspected: Bool = false)
        -> Result<Judged, HearingError>
    {
        let due = Date().addingTimeInterval(wait ?? settings.deadline)
        let quick = quickly(cut, due: due, suspected: suspected).map(judged)
        return remembered(quick.map { inItsOwnLanguage($0, cut: cut, due: due) })
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

    func judged(_ decoded: Decoded) -> Judged {
        judged(decoded, foreign: HeardPieces.soundsForeign(english: decoded.english, floor: settings.englishFloor))
    }

    func judged(_ decoded: Decoded, foreign: Bool) -> Judged {
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
        _ cut: UtteranceCutter.Cut, due: Date, suspected: Bool
    ) -> Result<Decoded, HearingError> {
        let context = self.context(for: cut)
        lastSpeechEnd = cut.speechEnd
        let audio = cut.heard
        let first = startDecode(cut)
        decodesStarted[cut.end] = nil
        if first.settled { decodes.settled += 1 }
        let answer = first.decode.answer(deadline: due.timeIntervalSinceNow)
        let alone = answer.map { heard($0, of: audio) }
        // A command ending Whisper was weighed into is as unsure as a word it wrote unsure: what it wrote itself
        // decides whether the context is heard, and a command the context decode writes comes first.
        guard case .success(let decoded) = alone, !context.isEmpty,
            !holdsCommand(decoded.ownText ?? Self.text(decoded.words)),
            decoded.ownText != nil || Self.unsure(decoded.words, below: settings.context.unsureBelow)
                || suspected
        else {
            return alone
        }
        let left = due.timeIntervalSinceNow
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
    func asTaken(_ words: [WhisperModel.TimedWord]) -> [WhisperModel.TimedWord] {
        writtenApart.joined(Self.plain(words))
    }

    /// A decode's words as the live path takes them, or none when Whisper judged the audio no speech.
    private func heard(_ transcript: WhisperModel.Transcript, of audio: [Float]) -> Decoded {
        if let from = transcript.rewrittenFrom { decodes.rewritten.append(from.gain) }
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
}
