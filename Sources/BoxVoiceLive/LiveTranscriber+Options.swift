import BoxVoiceKeywords
import Foundation

extension LiveTranscriber {
    public struct Options: Sendable {
        public var model: PocketSphinxModel = .debianEnglish
        /// `phrase /threshold/` per line (Models/command-spotter.en.txt); nil turns the spotter off. Heard on the
        /// pocketsphinx road only (`spotting`).
        public var spotterPhrases: String?
        /// The phrases a spotter and the sound-alike check listen for: none on the Whisper road, where they gained
        /// no command on the held-out sets and cost a second decoder (docs/command-decision.md, "What else feeds
        /// the decision").
        public var spotting: String? { whisper == nil ? spotterPhrases : nil }
        /// Judge the microphone's band (`InputBand`): while it is band-limited the spotter uses the list's narrowband
        /// thresholds (`SpotterPhrase.narrowbandThreshold`; a list without any, like a calibrated one, is used as it
        /// is) and sound-alikes forgive lost fricatives (`SoundsLikeCommand.match(_:narrowband:)`).
        public var followsInputBand = true
        /// Off: the spotter alone (for measuring it); each spotted phrase becomes an utterance.
        public var useLanguageModel = true
        /// The most HMMs the language model's search keeps alive per frame (nil: pocketsphinx's 30,000). Speech the
        /// model fits poorly — a noisy room, an accent, another language — keeps the search wide and slow; capped, it
        /// decoded the Russian stream about a quarter faster, the English one with no more word errors (BENCHMARKS.md
        /// at 7c182fc).
        public var activeHMMLimit: Int? = 5_000
        /// pocketsphinx's second, flat-lexicon pass over each ended utterance, which re-scores every frame of it to
        /// polish its final text (nil: only where that text is the utterance's, without `whisper`). On the
        /// utterance-end road Whisper's text replaces it: without the pass the held-out clips gave the same commands
        /// in all nine conditions (137 of 144) for 9 % less CPU, while on the pocketsphinx road it hears 3 more of
        /// the 144 (76 against 73) (BENCHMARKS.md at 7c182fc, "The test suite's cost").
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
        /// is asked for it when one is configured). Measured in BENCHMARKS.md at 7c182fc.
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
        /// Seconds of audio from before the utterance (0: none): enough of the sentence before a command said alone
        /// for Whisper to know the voice (docs/command-decision.md, "Other settings").
        public var seconds = 3.0
        /// Only an utterance shorter than this many seconds.
        public var below = 3.0
        /// Only when the last utterance's speech ended at most this many seconds before this one's began.
        public var after = 1.5
        /// Only when Whisper gave one of the utterance's words alone less than this probability (or wrote none), or
        /// something else suggests a command there (`UtteranceEnds.transcribe`'s `suspected`): a command Whisper could
        /// not make out alone comes with an unsure word, and ordinary speech mostly does not, so most second decodes
        /// are saved (docs/command-decision.md, "Other settings"). nil: always.
        public var unsureBelow: Float? = 0.6
        public init() {}
    }

    /// How the utterance-end road hears.
    public struct WhisperHearing: Sendable {
        public var models: HearingModels
        /// Text Whisper takes as what came before each utterance: the command phrases, spelled as the keyword
        /// detector expects them.
        public var prompt: String?
        /// Wall-clock seconds an ended utterance waits for Whisper's words, the checks after its first decode
        /// included, before pocketsphinx's stand in (whose commands never act alone: `CommandDoubt.lateDecode`).
        /// Recording goes on meanwhile (only the utterances after it wait with it), so the wait is as long as a
        /// decode on a machine whose cores are shared with busy threads can take: the load changes when a command
        /// acts, not whether. It bounds only a machine that cannot keep up at all, whose backlog would otherwise grow
        /// without end. No check has a shorter clock: one did (6 s), and with the CPU busy it cut the context and
        /// language checks short and lost commands a quiet machine heard (`make bench AREAS=latency`).
        public var deadline = 30.0
        public var cutting = UtteranceCutter.Rule.measured
        public var threads = 2
        /// How Whisper searches each utterance for its words: greedily. A beam hears a few more commands but writes
        /// more false sends over foreign speech, later and for more CPU; a false send is worse than a missed one
        /// (docs/command-decision.md, "Other settings"). The beam stays for the probe.
        public var search = WhisperModel.Search.greedy
        /// What a short utterance is decoded with (`UtteranceEnds.transcribe`).
        public var context = Context()
        /// Whisper's own no-speech estimate over which an utterance is taken for noise.
        public var noSpeechCeiling: Float = 0.6
        /// How a command the utterance ends with is decided on its evidence (`CommandDecision.evidence`): chosen on
        /// the curve of false actions per hour against missed commands (docs/command-decision.md).
        public var decision = CommandDecision.measured
        /// How likely Whisper must find an utterance English (`WhisperModel.Transcript.englishProbability`, a
        /// multilingual model only) for a command in it to act by itself; under it the box is asked first. Told to
        /// write English, the multilingual model translates what it hears:
        /// French *pour envoyer un message* comes out as the send command's words, in audio it judges far less likely
        /// English than any English command in noise (docs/command-decision.md, "Other settings"). nil: not asked.
        public var englishFloor: Float? = 0.001
        /// Under how likely English a sure command's utterance is checked in the language Whisper hears likeliest
        /// (`UtteranceEnds.inItsOwnLanguage`): the translations the English floor lets through. A command waiting for
        /// the box costs a round trip, a translation taken a message sent too soon (docs/command-decision.md, "Other
        /// settings"). nil: never checked.
        public var ownLanguageBelow: Float? = 0.3
        /// Languages the own-language check leaves out (`SpokenLanguages.leavingOut`): Whisper takes English in noise
        /// for Latin or Welsh with English close behind, and nobody dictates to the box in Latin. A Welsh speaker's
        /// command translated into English would act by itself, where a Spanish one waits for the box.
        public var englishLookalikes: Set<String> = ["la", "cy"]
        /// Under how sure Whisper was of the own-language check's words (`HeardPieces.sureness`) a command it did not
        /// find there is taken for English said with an accent, and stands if Whisper writes it again in English
        /// without the prompt, or words that sound like it at the end (`UtteranceEnds.saidWithAnAccent`): an accent
        /// comes out as words Whisper can barely write, a real foreign sentence surely (docs/command-decision.md,
        /// "Other settings"). nil: never.
        public var accentBelow: Float? = 0.3
        /// Command phrases weighed against the last words of a decode that holds no command, where those words sound
        /// like one (`CommandEndings`, `WhisperModel.Rewriting`): within 0.4 of the phrase's phones, and at most
        /// 3 (natural log) less likely than Whisper's own words. It gains 6.6 points of recall on the held-out sets
        /// with no wrong action (docs/command-decision.md, "What else feeds the decision"). nil: never.
        public var endings: Endings? = Endings(tolerance: 0.4, margin: 3)

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
}
