import BoxVoiceAudio
import BoxVoiceKeywords
import Foundation

/// A phrase the command spotter fired on.
public struct SpottedPhrase: Sendable, Equatable {
    public var phrase: String
    /// Where the spotter fired, in seconds from the start of the stream.
    public var end: Double
    /// It was written into the utterance's text: the language model's words lack it, and it ended the utterance
    /// (a phrase inside running speech is taken for ordinary words the spotter mistook).
    public var accepted: Bool
    /// How long the speaker had been quiet (`SpeakerPause`) when the spotter fired; nil where the pause is not heard.
    public var quietBefore: Double?

    public init(phrase: String, end: Double, accepted: Bool, quietBefore: Double? = nil) {
        self.phrase = phrase
        self.end = end
        self.accepted = accepted
        self.quietBefore = quietBefore
    }
}

/// One utterance as the live path heard it.
public struct LiveUtterance: Sendable, Equatable {
    /// What the dictation sees: the language model's text, plus any command the spotter heard that the text lacks.
    public var text: String
    /// The language model's own text.
    public var recognized: String
    /// What the command spotter fired on during this utterance.
    public var spots: [SpottedPhrase]
    /// Where it ends in the audio, in seconds from the start.
    public var end: Double
    /// Heard through a microphone judged band-limited (`InputBand`).
    public var narrowband: Bool
    /// The speaker went on talking right after the command only the spotter heard, so it was refused (`CommandHold`).
    public var speechWentOn: Bool
    /// Whose text this is.
    public var heardBy: HeardBy
    /// The utterance ended where the speaker paused (or stopped: the stream ended, a key was pressed), not at a
    /// breath or at the longest cut: only then can the words it ends with be a command.
    public var endsAtPause = true

    public init(
        text: String, recognized: String, spots: [SpottedPhrase], end: Double, narrowband: Bool = false,
        speechWentOn: Bool = false,
        heardBy: HeardBy = .pocketsphinx
    ) {
        self.text = text
        self.recognized = recognized
        self.spots = spots
        self.end = end
        self.narrowband = narrowband
        self.speechWentOn = speechWentOn
        self.heardBy = heardBy
    }

    /// The phrases the spotter fired on.
    public var spotted: [String] { spots.map(\.phrase) }
    /// A command in `text` comes from the spotter alone (the language model's words do not hold it): weaker evidence.
    public var commandIsSpottedOnly: Bool { spots.contains(where: \.accepted) }
    /// Why the command `text` ends with cannot act by itself (nil: it can): it acts only when the box confirms it,
    /// and `recognized` is the text without it.
    public var commandDoubt: CommandDoubt?
    /// A command that cannot act by itself is worth asking the box about; false: it is not taken, and nobody is
    /// asked (`CommandDecision.Verdict.refuse`).
    public var commandWorthAsking = true
    /// The command in `text` needs the box's yes (`commandDoubt`).
    public var commandIsUnsure: Bool { commandDoubt != nil }
    /// How sure Whisper was of the command in `text` (`HeardPieces.sureness`, 0 to 1); nil without one.
    public var commandSureness: Float?
    /// The command weighed as the utterance's last words against Whisper's own best words over the same audio,
    /// without the prompt: the mean log-ratio per token (0: Whisper would write it and stop; below: further off).
    public var commandScore: Float?
    /// How likely Whisper found the utterance holding that command English (`HeardPieces.Piece.english`).
    public var commandEnglish: Float?
    /// The language Whisper found likeliest for that utterance (`HeardPieces.Piece.language`).
    public var commandLanguage: String?
    /// Whisper left the command in `text` unsure for the language it judged, and the spotter heard it too as it
    /// ended (`SpotterAgreement`): it stands.
    public var commandConfirmedBySpotter = false

    /// The command this utterance ends with, if one can act: the last words before the speaker's pause.
    public func endingCommand(_ detector: KeywordDetector) -> KeywordMatch? {
        endsAtPause ? detector.endingCommand(in: text) : nil
    }
}

public enum LiveUpdate: Sendable, Equatable {
    /// The language model's running hypothesis for the utterance in progress.
    case partial(String)
    /// An utterance whose command only the spotter heard, held until the speaker has paused after it
    /// (`CommandHold`): the same utterance follows as `utterance` once decided — with its command, or without it if
    /// speech went on. Whoever checks such a command elsewhere (the box's second opinion) can start now.
    case holding(LiveUtterance)
    case utterance(LiveUtterance)
}

/// The live recognition path: 48 kHz Float32 in, resampled to 16 kHz, decoded by pocketsphinx with its language
/// model (utterance ends from its own speech/silence detection) while a second decoder spots command phrases in
/// keyword-search mode. A spotted phrase the language model's text does not already hold is written into that
/// utterance's text, so the contract's keyword detector — not a second rule set — decides the action.
public final class LiveTranscriber {
    public struct Options: Sendable {
        public var model: PocketSphinxModel = .debianEnglish
        /// `phrase /threshold/` per line (Models/command-spotter.en.txt); nil turns the spotter off.
        public var spotterPhrases: String?
        /// Judge the microphone's band (`InputBand`): while it is band-limited the spotter uses the list's narrowband
        /// thresholds (`SpotterPhrase.narrowbandThreshold`; a list without any, like a calibrated one, is used as it
        /// is) and sound-alikes forgive lost fricatives (`SoundsLikeCommand.match(_:narrowband:)`).
        public var followsInputBand = true
        /// Off: the spotter alone (for measuring it); each spotted phrase becomes an utterance.
        public var useLanguageModel = true
        /// The most HMMs the language model's search keeps alive per frame (nil: pocketsphinx's 30,000). Speech the
        /// model fits poorly — a noisy room, an accent, another language — keeps the search wide and slow; capped, it
        /// decoded the Russian stream about a quarter faster, the English one with no more word errors (BENCHMARKS.md).
        public var activeHMMLimit: Int? = 5_000
        /// pocketsphinx's second, flat-lexicon pass over each ended utterance, which re-scores every frame of it to
        /// polish its final text (nil: only where that text is the utterance's, without `whisper`). On the
        /// utterance-end road Whisper's text replaces it: without the pass the held-out clips gave the same commands
        /// in all nine conditions (137 of 144) for 9 % less CPU, while on the pocketsphinx road it hears 3 more of
        /// the 144 (76 against 73) (BENCHMARKS.md, "The test suite's cost ... fifth session").
        public var languageModelSecondPass: Bool?
        var secondPassIsOn: Bool { languageModelSecondPass ?? (whisper == nil) }
        /// The language model's search as these options set it, as pocketsphinx arguments.
        public var languageModelSearch: [String] {
            PocketSphinxRecognizer.searchArguments(activeHMMLimit: activeHMMLimit, secondPass: secondPassIsOn)
        }
        /// Decides whether a spotted phrase is already in the recognized text (by the action it means).
        public var sameCommand: @Sendable (_ recognized: String, _ phrase: String) -> Bool = { recognized, phrase in
            recognized.lowercased().contains(phrase.lowercased())
        }

        /// A spotted phrase counts only when the utterance ends this soon after the spotter fired (`SpotTails`):
        /// people pause after a command, and a phrase inside running speech is text (nil: wherever it fired).
        public var spotTails: SpotTails? = .measured
        /// Whether a phrase's command throws the message away (it needs the clearest pause, `SpotTails.discarding`).
        public var discards: @Sendable (String) -> Bool = { _ in false }

        /// With the spotter and the language model on: an utterance whose last words only sound like a spotter phrase
        /// ("sun message") ends with that phrase, as weak evidence like a spotter hit (a second opinion from the box
        /// is asked for it when one is configured). Measured in BENCHMARKS.md.
        public var hearsSoundAlikes = false
        /// Whether a text already holds a command (the contract's detector): then no spotter hit or sound-alike is
        /// added.
        public var holdsCommand: @Sendable (String) -> Bool = { _ in false }
        /// Where the command ending a text is (`KeywordDetector.endingPlace`), as a list of none or one: the only
        /// command an utterance can carry is the one its speaker ended on.
        public var commandPlaces: @Sendable (String) -> [KeywordDetector.Place] = { _ in [] }
        /// The command vocabulary: where Whisper writes one of its words as two (`WrittenApart`), and the phrases a
        /// decode's last words may be weighed against (`WhisperHearing.endings`).
        public var vocabulary: Vocabulary?

        /// With a spotter hit waiting for its utterance to end: this many seconds of quiet after it (`SpeakerPause`)
        /// end the utterance, where the language model's speech detector would keep it open through noise (nil: its
        /// detector alone ends utterances).
        public var commandPauseSeconds: Double? = 0.5

        /// An utterance whose command only the spotter heard (or only sounds like one) is held back until the speaker
        /// has stayed quiet this long after it, and given as text when speech goes on instead (`CommandHold`); it needs
        /// `commandPauseSeconds` to hear the pause (nil: given at once).
        public var spottedCommandHold: CommandHold.Rule? = .measured

        /// Cleans what the recognizers hear (speexdsp noise suppression and gain); nil hears the audio as it is.
        public var frontEnd: SpeechFrontEnd.Settings? = nil
        /// With `frontEnd`: clean only while the room is noisy (`RoomNoise`), hear the audio as it is otherwise.
        public var frontEndOnlyInNoise = false

        /// Seconds of opening audio the decoders are primed with (their feature normalization adapted) before
        /// decoding starts; the first words appear this much later. 0 decodes cold.
        public var primeSeconds = 2.0

        /// Where the language-model decoder keeps its dictionary cut to the model's words between runs (nil: made
        /// afresh each time, a fraction of a second).
        public var dictionaryCache: String?

        /// The utterance-end road (`UtteranceEnds`): Silero VAD cuts utterances and Whisper's text of each replaces
        /// pocketsphinx's; pocketsphinx still gives the words while speaking, and its text stands in for an
        /// utterance Whisper misses. nil: pocketsphinx's utterances as they are.
        public var whisper: WhisperHearing?

        public init(spotterPhrases: String?) {
            self.spotterPhrases = spotterPhrases
        }
    }

    /// When a short utterance is decoded a second time, with the audio before it (Whisper hears a second or two alone
    /// badly): only if its first decode holds no command, and only a command-holding second decode is taken.
    public struct Context: Sendable, Equatable {
        /// Seconds of audio from before the utterance (0: none). Three, not two: with two, a command said alone
        /// after its sentence was still misheard alone ("Send no.", "Start listening."), where the last three
        /// seconds of the sentence gave Whisper enough of the voice; clean, it also lost two that two seconds heard
        /// (BENCHMARKS.md, "A narrower careful look, a longer context").
        public var seconds = 3.0
        /// Only an utterance shorter than this many seconds.
        public var below = 3.0
        /// Only when the last utterance's speech ended at most this many seconds before this one's began.
        public var after = 1.5
        /// Only when Whisper gave one of the utterance's words alone less than this probability (or wrote none), or
        /// something else suggests a command there (`UtteranceEnds.transcribe`'s `suspects`): on ordinary speech the
        /// second decodes were 45 % of the audio given to Whisper, and none of them turned words Whisper was sure of
        /// into a command the speaker said. Every command the second decode gave on the development clips (sets d and
        /// e, 14) came from words alone whose least sure one was under 0.49; the floor leaves a margin over that
        /// (BENCHMARKS.md, "A second decode only where the first was unsure"). nil: always.
        public var unsureBelow: Float? = 0.6
        public init() {}
    }

    /// How the utterance-end road hears.
    public struct WhisperHearing: Sendable {
        public var models: HearingModels
        /// Text Whisper takes as what came before each utterance: the command phrases, spelled as the keyword
        /// detector expects them.
        public var prompt: String?
        /// Wall-clock seconds an ended utterance waits for Whisper's words before pocketsphinx's stand in (whose
        /// commands never act alone: `CommandDoubt.lateDecode`). Hearing and recording go on meanwhile (only the
        /// utterances after it wait with it), so the wait is as long as a decode on a machine whose cores are shared
        /// with busy threads can take: the load changes when a command acts, not whether. It bounds only a machine
        /// that cannot keep up at all, whose backlog would otherwise grow without end.
        public var deadline = 30.0
        /// Wall-clock seconds the checks after the first decode (`UtteranceEnds.transcribe`) may take together: they
        /// hold the hearing loop, and are few.
        public var checksDeadline = 6.0
        public var cutting = UtteranceCutter.Rule.measured
        public var threads = 2
        /// How Whisper searches each utterance for its words: greedily. A beam of five heard more commands on the
        /// development clips (80 of 80 in telephone, laptop, pink, white and babble conditions against 77) and wrote
        /// fewer wrong words (7.9 % against 8.3 % on the English prompts), but on a quarter of the Russian prompts it
        /// wrote the send command five times where greedy did once, and it took a command 1.01 s after its utterance
        /// (median) against 0.77 s, for a quarter more CPU (BENCHMARKS.md, "Hearing"). A false send is worse than a
        /// missed one: the beam stays for the probe.
        public var search = WhisperModel.Search.greedy
        /// What a short utterance is decoded with (`UtteranceEnds.transcribe`).
        public var context = Context()
        /// Whisper's own no-speech estimate over which an utterance is taken for noise.
        public var noSpeechCeiling: Float = 0.6
        /// How a command the utterance ends with is decided on its evidence (`CommandDecision.evidence`): chosen on
        /// the curve of false actions per hour against missed commands (docs/command-decision.md).
        public var decision = CommandDecision.measured
        /// How an utterance is decoded again when its quick words hold no sure command but something else in the same
        /// audio suggests one (`UtteranceEnds.transcribe`); nil: never. Two beams, not five: whisper.cpp sizes its
        /// text cache for a beam search at (beams + 2) × 512 places and keeps it for the life of the decoding state,
        /// so the first careful look of five beams added 36 MB to `dictate` for good (42 MB against greedy's 6), two
        /// add 18; on the development sets two heard as many commands as five.
        public var carefulSearch: WhisperModel.Search? = .beam(2)
        /// How likely Whisper must find an utterance English (`WhisperModel.Transcript.englishProbability`, a
        /// multilingual model only) for a command in it to act by itself; under it the box is asked first, and the
        /// careful second look is not taken. Told to write English, the multilingual model translates what it hears:
        /// French *pour envoyer un message* was written as the send command's words (sureness 0.58, 0.38 without
        /// the prompt, English 0.00019). The development clips' synthetic voices, in noise, are judged English by as
        /// little as 0.0032, so the floor sits between (BENCHMARKS.md, "Whisper base"). nil: not asked.
        public var englishFloor: Float? = 0.001
        /// Under how likely English a sure command's utterance is checked in the language Whisper hears likeliest
        /// (`UtteranceEnds.inItsOwnLanguage`): the translations over the English floor, 0.0029 on the Spanish prompts
        /// and up to 0.11 on the telephone French and Spanish ones. The development clips' English commands go from
        /// 0.0032 to 0.99, and the check passed all but one of those under 0.3 (a laptop-chain clip at 0.24 waits for
        /// the box); a lower bound would check fewer, but a command waiting for the box costs a round trip, a
        /// translation taken a message sent too soon (BENCHMARKS.md, "own language"). nil: never checked.
        public var ownLanguageBelow: Float? = 0.3
        /// Languages the own-language check leaves out (`SpokenLanguages.leavingOut`): Whisper judged the held-out
        /// command clips' synthetic English voices in noise Latin (9 of the 17 commands the check rejected) or Welsh
        /// (7), with English close behind, and nobody dictates to the box in Latin. Welsh is spoken; a Welsh speaker's
        /// command translated into English would act by itself, where a Spanish one waits for the box. Chosen on
        /// held-out set d, which became a development set with it (BENCHMARKS.md, "Latin and Welsh").
        public var englishLookalikes: Set<String> = ["la", "cy"]
        /// Under how sure Whisper was of the own-language check's words (`HeardPieces.sureness`) a command it did not
        /// find there is taken for English said with an accent, and stands if Whisper writes it again in English
        /// without the prompt, or words that sound like it at the end (`UtteranceEnds.saidWithAnAccent`). The
        /// development sets' accented voices came out 0.045–0.22 sure in the language Whisper took them for, real
        /// Spanish 0.34–0.64 (BENCHMARKS.md, "An accent check"). nil: never.
        public var accentBelow: Float? = 0.3
        /// A sure command in audio the own-language check judged foreign stands when the words written in that
        /// language end by spelling it (`SpelledAlike`): heavy accents come out so ("kanseumessage"), translations
        /// as their own language's words. The accent check's English decode holds it the same way ("send
        /// Cakepoint"). Development set k: 7 of the 26 commands the own-language check left for the box were spelled
        /// 0–0.30 of their letters away; no real foreign stream's decode came within 0.38 of any command
        /// (BENCHMARKS.md, "Spelled alike"). nil: only a command written whole, or sounding alike, counts.
        public var spelledAlike: SpelledAlike? = .measured
        /// Command phrases weighed against the last words of a decode that holds no command, where those words sound
        /// like one (`CommandEndings`, `WhisperModel.Rewriting`): within 0.4 of the phrase's phones, and at most
        /// 3 (natural log) less likely than Whisper's own words. The commands this made on development sets g and h
        /// came from endings weighed −4.4 to +2.0 against Whisper's words, all but one over −3; on the real foreign
        /// streams every command an ending made was left for the box. Held-out set i: 88 → 91 of 144
        /// commands, 0 wrong (BENCHMARKS.md, "Command endings"). nil: never.
        public var endings: Endings? = Endings(tolerance: 0.4, margin: 3)
        /// A command whose evidence would act but left unsure because Whisper judged the audio another language
        /// stands when the command spotter heard the same command in the last second before it ended
        /// (`SpotterAgreement`): on development set k (English in Finnish and Czech accents) the agreeing hits landed
        /// 0.1–0.8 s before the command's end but for one (1.3 s), and no hit agreed with a command the clip did not
        /// hold; on the real foreign streams one hit agreed, with a command the prompt had made (BENCHMARKS.md, "The
        /// spotter agreeing"). nil: the spotter's hits stay notes.
        public var spotterAgreement: SpotterAgreement? = SpotterAgreement(tail: 1.0, after: 0.3)

        /// How close a command phrase must sound to Whisper's last words to be weighed against them, and how much
        /// less likely than them it may be and still replace them.
        public struct Endings: Sendable, Equatable {
            /// The largest phone distance, as a share of the phrase's phones (`SoundsLikeCommand.tolerance`).
            public var tolerance: Double
            /// Natural log: the ending's tokens and the end of the text after them, against Whisper's own.
            public var margin: Float
            public init(tolerance: Double, margin: Float) {
                self.tolerance = tolerance
                self.margin = margin
            }
        }

        public init(models: HearingModels, prompt: String?) {
            self.models = models
            self.prompt = prompt
        }
    }

    private var options: Options
    private let language: LiveRecognizer?
    private var spotter: LiveRecognizer?
    /// Judges the microphone's band (`Options.followsInputBand`).
    private var band: InputBand?
    /// Whether the spotter's phrases list thresholds for a band-limited microphone to switch to.
    private let spotterHasNarrowband: Bool
    private var spotterIsNarrowband = false
    private var bandCarry: [Int16] = []
    /// The last seconds the decoders heard, to prime a spotter swapped in mid-stream with.
    private var recentHeard: [Int16] = []
    private let resampler: Resampler
    private let frontEnd: SpeechFrontEnd?
    /// Judges the room when the front end cleans only in noise.
    private var room: RoomNoise?
    /// The opening audio as it came in, beside `priming` (cleaned), until the room is first judged.
    private var primingRaw: [Int16] = []
    private var fed: Int64 = 0
    /// What `feed` takes: the capture's rate.
    public static let inputRate = AudioRate.hertz
    /// Samples taken at the input rate, before any resampling: where the stream ends, to the sample.
    private var received: Int64 = 0
    private var pendingSpots: [SpotterHit] = []
    private let evidence: CommandEvidence
    /// Hears the speaker pause (`Options.commandPauseSeconds`), from what the recognizers hear.
    private var speakerPause = SpeakerPause()
    /// The end of the last chunk that did not fill a 20 ms frame.
    private var pauseCarry: [Int16] = []
    /// The opening audio, held until there is enough to prime the decoders with (nil once primed).
    private var priming: [Int16]? = []
    /// An utterance held until the speaker has paused after its command (`Options.spottedCommandHold`).
    private var held: CommandHold?
    /// The utterance-end road (`Options.whisper`).
    private let ends: UtteranceEnds?
    /// pocketsphinx's utterances since the last utterance end the VAD cut: what stands in if Whisper misses it.
    private var standIns: [LiveUtterance] = []

    public init(options: Options) throws {
        self.options = options
        language =
            options.useLanguageModel
            ? try PocketSphinxRecognizer(
                model: options.model, dictionaryCache: options.dictionaryCache, activeHMMLimit: options.activeHMMLimit,
                secondPass: options.secondPassIsOn)
            : nil
        spotter = try options.spotterPhrases.map { try CommandSpotter(phrases: $0, model: options.model) }
        evidence = try CommandEvidence(options)
        guard language != nil || spotter != nil else {
            throw PocketSphinxError(
                operation: "configuring", detail: "neither the language model nor the spotter is on")
        }
        resampler = try Resampler(from: Double(Self.inputRate), to: Double(PocketSphinxDecoder.sampleRate))
        ends = try options.whisper.map {
            try UtteranceEnds(
                settings: $0, holdsCommand: options.holdsCommand, commandPlaces: options.commandPlaces,
                vocabulary: options.vocabulary, dictionary: options.model.dictionary)
        }
        frontEnd = try self.options.frontEnd.map { try SpeechFrontEnd(settings: $0) }
        room = self.options.frontEnd != nil && options.frontEndOnlyInNoise ? RoomNoise() : nil
        spotterHasNarrowband =
            try options.spotterPhrases.map { try SpotterPhrases.load($0).contains { $0.narrowbandThreshold != nil } }
            ?? false
        band = options.followsInputBand ? InputBand() : nil
    }

    /// Whether the microphone is judged band-limited now (the spotter then uses its narrowband thresholds).
    public var hearsNarrowband: Bool { band?.isNarrow ?? false }

    /// Whether the recognizers hear the audio cleaned now.
    public var cleansNow: Bool { frontEnd != nil && (room?.cleans ?? true) }

    /// Position of what has been fed, in seconds.
    public var seconds: Double { Double(fed) / Double(PocketSphinxDecoder.sampleRate) }

    /// The decodes asked of Whisper so far, by why (nil: the utterance-end road is off).
    public var whisperDecodes: WhisperDecodes? { ends?.decodes }

    /// Feeds 48 kHz mono Float32.
    public func feed(_ samples: [Float]) throws -> [LiveUpdate] {
        received += Int64(samples.count)
        let heard = try resampler.process(samples)
        return ends == nil ? try feed16k(heard) : try feed16k(heard) + hearEnds(heard)
    }

    /// Decides every ended utterance now, waiting for Whisper's words (each up to its deadline). For audio fed
    /// faster than it was spoken (a file): there hearing goes on far ahead of Whisper, the wall-clock deadline runs
    /// out on utterances still queued, and the stand-in's words would be measured instead of Whisper's.
    public func decideWaiting() -> [LiveUpdate] { ends == nil ? [] : decideInOrder(all: true) }

    /// Ends the stream: flushes the resampler and closes the utterance in progress.
    public func finish() throws -> [LiveUpdate] {
        options.primeSeconds = 0  // whatever was held back for priming is decoded now
        guard let ends else {
            let updates = try feed16k(try resampler.flush())
            // The stream ended after the command: nothing went on.
            let closed = closing(spotted: try spotter?.finish() ?? [], heard: try language?.finish() ?? [])
            return endingAtStreamEnd(updates + release() + closed + release())
        }
        let tail = try resampler.flush()
        var updates = try feed16k(tail) + hearEnds(tail)
        updates += closing(spotted: try spotter?.finish() ?? [], heard: try language?.finish() ?? [])
        ends.finish().forEach(waitForWords)
        updates += decideInOrder(all: true)
        // Words pocketsphinx made of what the VAD never took for speech are noise.
        standIns = []
        return endingAtStreamEnd(updates)
    }

    /// The last utterance, when its speech ran into the end of the stream, ends where the stream does: the
    /// recognizers' ends are rounded to their frames and windows, and a message ending with it keeps every sample
    /// up to its command (the input ended there).
    private func endingAtStreamEnd(_ updates: [LiveUpdate]) -> [LiveUpdate] {
        let streamEnd = Double(received) / Double(Self.inputRate)
        guard let last = updates.lastIndex(where: { if case .utterance = $0 { true } else { false } }),
            case .utterance(var utterance) = updates[last], streamEnd - utterance.end < Self.endsWithStream
        else {
            return updates
        }
        utterance.end = max(utterance.end, streamEnd)
        var updated = updates
        updated[last] = .utterance(utterance)
        return updated
    }

    /// How close to the stream's end an utterance's end must be to count as running into it (less than the quiet
    /// either recognizer needs to end an utterance itself).
    static let endsWithStream = 0.25

    /// Hears 16 kHz audio on the utterance-end road: each utterance the VAD ends waits for Whisper's words while
    /// hearing goes on, and those whose words are in are decided, in order.
    private func hearEnds(_ pcm: [Float]) throws -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        for cut in ends!.hear(pcm) {
            // pocketsphinx closes its utterance where the VAD did: its text is what stands in if Whisper misses.
            if priming == nil { updates += try closing(heard: language?.endUtterance() ?? []) }
            waitForWords(cut)
        }
        return updates + decideInOrder(all: false)
    }

    /// An ended utterance waiting for Whisper's words, with pocketsphinx's words of the same audio.
    private struct Undecided {
        let cut: UtteranceCutter.Cut
        let standIns: [LiveUtterance]
        /// When Whisper's words stop being waited for.
        let due: Date
    }

    /// The utterances ended and not yet decided, in order: a late decode holds up only the utterances after it, never
    /// the hearing of the audio, and never hands its utterance to another recognizer before `due`.
    private var undecided: [Undecided] = []

    /// Where the audio of the first utterance still waiting for Whisper's words starts, in seconds of what was fed
    /// (nil: none waits): a message can still end inside it, so the recording from there on is not final yet.
    public var firstUndecidedStart: Double? {
        undecided.first.map { $0.cut.end - Double($0.cut.samples.count) / Double(WhisperModel.sampleRate) }
    }

    /// Starts waiting for `cut`'s words (its decode runs on Whisper's thread).
    private func waitForWords(_ cut: UtteranceCutter.Cut) {
        ends!.startDecode(cut)
        undecided.append(
            Undecided(
                cut: cut, standIns: standIns, due: Date().addingTimeInterval(options.whisper?.deadline ?? 0)))
        standIns = []
    }

    /// Decides the waiting utterances whose words are in (or are due), in order; `all`: every one, waiting for each.
    private func decideInOrder(all: Bool) -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        while let next = undecided.first {
            let left = next.due.timeIntervalSinceNow
            guard all || left <= 0 || ends!.isDecoded(next.cut) else { break }
            undecided.removeFirst()
            updates += decide(next.cut, standIns: next.standIns, wait: max(0, left))
        }
        return updates
    }

    /// One ended utterance: Whisper's text if it comes within the deadline, else pocketsphinx's, saying why.
    private func decide(_ cut: UtteranceCutter.Cut, standIns: [LiveUtterance], wait: Double) -> [LiveUpdate] {
        // What suggests a command in this audio besides Whisper's quick words: pocketsphinx's text or the spotter
        // held one, or Whisper's last words sound like a command phrase.
        let heardElsewhere = standIns.contains { options.holdsCommand($0.text) || !$0.spots.isEmpty }
        let suspects = { (words: String) in
            heardElsewhere || self.evidence.soundAlikes?.match(words, narrowband: self.hearsNarrowband) != nil
        }
        switch ends!.transcribe(cut, wait: wait, suspects: suspects) {
        case .success(let heard):
            // What the spotter fired on is kept as a note; Whisper's words alone carry a command now.
            let spots = standIns.flatMap(\.spots).map {
                SpottedPhrase(phrase: $0.phrase, end: $0.end, accepted: false, quietBefore: $0.quietBefore)
            }
            // One utterance a cut: only a command ending it can act (`Options.commandPlaces` finds no other), so an
            // utterance is never split after command words in its middle.
            guard let piece = heard.pieces.first else { return [] }
            let agreed = spotterAgrees(with: piece, endingAt: cut.end, hits: standIns.flatMap(\.spots))
            var utterance = LiveUtterance(
                text: piece.text, recognized: agreed ? piece.text : piece.recognized, spots: spots, end: cut.end,
                narrowband: hearsNarrowband, heardBy: .whisper)
            utterance.endsAtPause = cut.endsAtPause
            utterance.commandDoubt = agreed ? nil : piece.doubt
            utterance.commandWorthAsking = piece.worthAsking
            utterance.commandConfirmedBySpotter = agreed
            utterance.commandSureness = piece.sureness
            utterance.commandScore = piece.score
            utterance.commandEnglish = piece.english
            utterance.commandLanguage = piece.language
            return [.utterance(utterance)]
        case .failure(let error):
            return standIns.map { utterance in
                var standIn = utterance
                standIn.heardBy = .pocketsphinxInstead(error.code)
                standIn.endsAtPause = cut.endsAtPause
                // The command waits for Whisper's words or the box's: another recognizer's never decide one alone.
                if options.holdsCommand(standIn.text) { standIn.commandDoubt = .lateDecode }
                return .utterance(standIn)
            }
        }
    }

    /// Whether the spotter confirms the unsure command of `piece`, ending at `end`, in the utterance being decided.
    private func spotterAgrees(with piece: HeardPieces.Piece, endingAt end: Double, hits: [SpottedPhrase]) -> Bool {
        guard let agreement = options.whisper?.spotterAgreement else { return false }
        return agreement.confirms(piece, endingAt: end, hits: hits) {
            self.options.commandPlaces($0).first?.action
        }
    }

    /// Closes the utterance in progress now, without waiting for silence (Enter was pressed), and keeps listening.
    public func endUtterance() throws -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        if priming != nil {
            // Enter before the priming audio filled up: decode what there is now.
            let wanted = options.primeSeconds
            options.primeSeconds = 0
            updates = try feed16k([])
            options.primeSeconds = wanted
        }
        // The user ended the utterance: a command held for the pause after it counts now.
        updates += release() + closing(heard: try language?.endUtterance() ?? []) + release()
        guard let ends else { return updates }
        let cuts = ends.finish()
        cuts.forEach(waitForWords)
        // What was said before the key is decided before the key acts.
        updates += decideInOrder(all: true)
        if !cuts.isEmpty { return updates }
        // The user ended words the VAD did not take for speech: pocketsphinx's text is all there is of them.
        defer { standIns = [] }
        return updates + standIns.map { .utterance($0) }
    }

    private func feed16k(_ samples: [Float]) throws -> [LiveUpdate] {
        var pcm = samples.map(SampleSanitizer.int16)
        if band != nil { judgeBand(pcm) }
        var raw: [Int16] = []
        if let frontEnd {
            if room != nil {
                (raw, pcm) = frontEnd.processKeepingRaw(pcm)
                if priming == nil { pcm = chooseByRoom(raw: raw, cleaned: pcm) }
            } else {
                pcm = frontEnd.process(pcm)
            }
        }
        if let waiting = priming {
            // The decoders' cepstral mean starts from the model's defaults; a first pass over the opening seconds
            // adapts it to this microphone and voice before anything is decoded for real.
            let wanted = Int(options.primeSeconds * Double(PocketSphinxDecoder.sampleRate))
            priming = waiting + pcm
            if room != nil { primingRaw += raw }
            guard priming!.count >= wanted else { return [] }
            pcm = priming!
            if room != nil {
                // The opening seconds decide how the room is first heard, all of them the same way.
                for start in stride(
                    from: 0, to: primingRaw.count - SpeechFrontEnd.frameSamples + 1, by: SpeechFrontEnd.frameSamples)
                {
                    room!.add(frameLevel: RoomNoise.level(primingRaw[start..<start + SpeechFrontEnd.frameSamples]))
                }
                room!.judge()
                if !room!.cleans { pcm = primingRaw }
                primingRaw = []
            }
            // Exactly the opening `primeSeconds` (however the audio was chunked), then everything is decoded.
            let opening = Array(pcm.prefix(max(wanted, 0)))
            band?.judge()
            try useSpotterForBand(primedWith: [])
            try language?.prime(opening)
            try spotter?.prime(opening)
            priming = nil
        }
        try useSpotterForBand(primedWith: recentHeard)
        if spotterHasNarrowband { recentHeard = Array((recentHeard + pcm).suffix(Self.recentSamples)) }
        fed += Int64(pcm.count)
        // The levels first: a hit in this chunk is then stamped with how long the speaker had been quiet, and a held
        // command is judged on the frames before anything later is given.
        var updates: [LiveUpdate] = []
        if options.commandPauseSeconds != nil { updates += hearLevels(pcm) }
        let spotted = try spotter?.feed(pcm) ?? []
        let heard = try language?.feed(pcm) ?? []
        updates += combine(spotted: spotted, heard: heard)
        if let pause = options.commandPauseSeconds { updates += try endAtPause(lasting: pause) }
        return updates
    }

    /// Feeds the speaker's pause whole 20 ms frames of what the recognizers hear, and a held command what they tell
    /// of the speaker: the held utterance once it is decided.
    private func hearLevels(_ pcm: [Int16]) -> [LiveUpdate] {
        var verdict = CommandHold.Verdict.waiting
        Self.wholeFrames(of: pcm, carry: &pauseCarry) { frame in
            speakerPause.add(frameLevel: RoomNoise.level(frame))
            guard held != nil, verdict == .waiting else { return }
            verdict = held!.hear(quiet: speakerPause.lastFrameIsQuiet)
        }
        if verdict == .refused, let hold = held {
            held = nil
            return [.utterance(hold.utterance.refusingSpottedCommand)]
        }
        if let hold = held, hold.expired(at: seconds) { return release() }
        return []
    }

    /// Gives the held utterance, its command standing.
    private func release() -> [LiveUpdate] {
        defer { held = nil }
        return held.map { [.utterance($0.utterance)] } ?? []
    }

    /// Gives an utterance the language model closed, or holds it while its command waits for the speaker's pause.
    private func deliver(_ utterance: LiveUtterance) -> [LiveUpdate] {
        if ends != nil {
            // The utterance-end road decides what is said; pocketsphinx's utterance waits as its stand-in.
            standIns.append(utterance)
            return []
        }
        // Another utterance closing while one is held: the earlier one is given first, its command standing (the
        // pause detector heard no speech going on).
        var updates = release()
        if let rule = options.spottedCommandHold, options.commandPauseSeconds != nil, CommandHold.holds(utterance) {
            held = CommandHold(utterance, rule: rule, quietNow: speakerPause.quietSeconds > 0)
            updates.append(.holding(utterance))
        } else {
            updates.append(.utterance(utterance))
        }
        return updates
    }

    /// Calls `body` with each whole 20 ms frame of `carry + pcm`, keeping the rest in `carry` for the next chunk.
    private static func wholeFrames(of pcm: [Int16], carry: inout [Int16], _ body: (ArraySlice<Int16>) -> Void) {
        let frames = carry + pcm
        var start = 0
        while start + SpeechFrontEnd.frameSamples <= frames.count {
            body(frames[start..<start + SpeechFrontEnd.frameSamples])
            start += SpeechFrontEnd.frameSamples
        }
        carry = Array(frames[start...])
    }

    /// Ends the utterance holding a spotter hit once the speaker has paused after it, when the language model's
    /// speech detector has not (noise it takes for speech keeps its utterance open).
    private func endAtPause(lasting pause: Double) throws -> [LiveUpdate] {
        guard let hit = pendingSpots.last, let language, language.inUtterance, speakerPause.quietSeconds >= pause,
            seconds - speakerPause.quietSeconds >= hit.end - Self.pauseLead
        else { return [] }
        return closing(heard: try language.endUtterance())
    }

    /// How long before the spotter fired the pause may have begun: it fires a little after the phrase's end.
    static let pauseLead = 0.5

    /// Feeds the band judgement whole 20 ms frames of the audio as it came in.
    private func judgeBand(_ pcm: [Int16]) {
        Self.wholeFrames(of: pcm, carry: &bandCarry) { band!.add(frame: $0) }
    }

    /// How much recent audio a spotter swapped in mid-stream is primed with: 2 s, as at the start.
    static let recentSamples = 2 * PocketSphinxDecoder.sampleRate

    /// Swaps the spotter for the one with the other thresholds when the band judgement changed. Its search starts
    /// afresh (a phrase half-heard when the judgement flips is lost), its feature normalization primed on `recent`.
    private func useSpotterForBand(primedWith recent: [Int16]) throws {
        guard spotterHasNarrowband, let band, band.isNarrow != spotterIsNarrowband, let phrases = options.spotterPhrases
        else { return }
        let swapped = try CommandSpotter(
            phrases: phrases, model: options.model, narrowband: band.isNarrow, position: seconds)
        if !recent.isEmpty { try swapped.prime(recent) }
        spotter = swapped
        spotterIsNarrowband = band.isNarrow
    }

    /// Frame by frame, the audio as it came in or as cleaned, as the room is judged at that frame.
    private func chooseByRoom(raw: [Int16], cleaned: [Int16]) -> [Int16] {
        var heard = cleaned
        for start in stride(from: 0, to: raw.count, by: SpeechFrontEnd.frameSamples) {
            let frame = start..<min(start + SpeechFrontEnd.frameSamples, raw.count)
            room!.add(frameLevel: RoomNoise.level(raw[frame]))
            if !room!.cleans { heard.replaceSubrange(frame, with: raw[frame]) }
        }
        return heard
    }

    /// Spotted phrases wait for the language model's next utterance end, which takes those its text lacks.
    private func combine(spotted: [RecognizerEvent], heard: [RecognizerEvent]) -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        for case .final(let phrase, let end) in spotted {
            if language == nil {
                // The spotter alone (measuring it): each hit is its utterance, given at once.
                updates.append(
                    .utterance(
                        LiveUtterance(
                            text: phrase, recognized: "",
                            spots: [SpottedPhrase(phrase: phrase, end: end, accepted: true)], end: end)))
            } else {
                pendingSpots.append(
                    SpotterHit(
                        phrase: phrase, end: end,
                        quietBefore: options.commandPauseSeconds == nil ? nil : speakerPause.quietSeconds))
            }
        }
        for event in heard {
            switch event {
            case .partial(let text):
                // What follows a held utterance is not shown before it (the next partial after it is).
                if held == nil { updates.append(.partial(text)) }
            case .final(let text, let end):
                // Noise the detector took for speech ends an "utterance" with no words: nothing to show.
                if text.isEmpty && pendingSpots.isEmpty { continue }
                updates += deliver(close(recognized: text, end: end))
            }
        }
        return updates
    }

    /// The last events of an utterance ended now (the stream ended, a key was pressed, the speaker paused): hits the
    /// spotter made after the language model's last words still count, as an utterance of their own.
    private func closing(spotted: [RecognizerEvent] = [], heard: [RecognizerEvent]) -> [LiveUpdate] {
        var updates = combine(spotted: spotted, heard: heard)
        if !pendingSpots.isEmpty { updates += deliver(close(recognized: "", end: seconds)) }
        return updates
    }

    private func close(recognized: String, end: Double) -> LiveUtterance {
        defer { pendingSpots.removeAll() }
        return evidence.utterance(recognized: recognized, hits: pendingSpots, end: end, narrowband: hearsNarrowband)
    }
}
