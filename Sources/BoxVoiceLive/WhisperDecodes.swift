/// The decodes the utterance-end road asked of Whisper, by why, and how much audio each kind was given: where its
/// CPU goes (a decode's cost grows with the audio it encodes).
public struct WhisperDecodes: Sendable {
    /// How many decodes of one kind, and the seconds of audio they were given.
    public struct Tally: Sendable, Equatable {
        public var count = 0
        public var seconds = 0.0
        public init() {}

        mutating func add(_ samples: Int) {
            count += 1
            seconds += Double(samples) / Double(WhisperModel.sampleRate)
        }
    }

    /// Decodes started when an utterance settled (`UtteranceCutter.Rule.settle`), used or dropped.
    public var speculative = Tally()
    /// Of `speculative`, those an ended utterance's words came from.
    public var settled = 0
    /// Of `speculative`, those dropped: speech came back, or the utterance was heard to another sample.
    public var dropped = 0
    /// Decodes started when an utterance ended: it never settled, or not where it was cut.
    public var atEnd = Tally()
    /// A short utterance decoded again with the seconds before it (`LiveTranscriber.Context`).
    public var context = Tally()
    /// Commands checked in the language Whisper heard (`UtteranceEnds.inItsOwnLanguage`), each with the decodes
    /// below.
    public var languageChecks = 0
    /// A command's language judged again over the seconds before it (`UtteranceEnds.inItsOwnLanguage`).
    public var language = Tally()
    /// A command decoded again in the language Whisper heard.
    public var ownLanguage = Tally()
    /// Decodes whose last words a command phrase replaced (`WhisperHearing.endings`): how much likelier the phrase
    /// was than the words Whisper had written (`WhisperModel.Transcript.rewrittenFrom`). What was said is not kept.
    public var rewritten: [Float] = []
    /// The own-language decodes: in which language, and how surely Whisper wrote them (`HeardPieces.sureness`).
    public var inOwnLanguage: [(language: String, sureness: Float)] = []
    /// An utterance decoded again in English without the prompt, its own-language words unsure
    /// (`WhisperHearing.accentBelow`).
    public var accent = Tally()
    /// Whether those decodes held the commands the utterance was checked for, and how surely Whisper wrote them
    /// (`HeardPieces.sureness`).
    public var inEnglishWithoutPrompt: [(holds: Bool, sureness: Float)] = []

    public init() {}

    /// Seconds of audio Whisper was given in all.
    public var seconds: Double {
        [speculative, atEnd, context, language, ownLanguage, accent].reduce(0) { $0 + $1.seconds }
    }
}
