import Foundation

extension WhisperModel {
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
}
