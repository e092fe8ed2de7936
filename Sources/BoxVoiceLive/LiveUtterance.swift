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
    /// Heard through a microphone judged band-limited (`InputBand`): the spotter's and the sound-alike checks'
    /// narrowband thresholds applied.
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
    /// What was decided of the command `text` ends with (nil: none was decided, or it acts as pocketsphinx heard
    /// it). Asked: it acts only when the box confirms it, and `recognized` is the text without it.
    public var commandVerdict: CommandDecision.Verdict?
    /// Why the command `text` ends with cannot act by itself (nil: it can).
    public var commandDoubt: CommandDoubt? { commandVerdict?.doubt }
    /// A command that cannot act by itself is worth asking the box about; false: it is not taken, and nobody is
    /// asked (`CommandDecision.Verdict.refuse`).
    public var commandWorthAsking: Bool { commandVerdict?.worthAsking ?? true }
    /// The command in `text` needs the box's yes (`commandDoubt`).
    public var commandIsUnsure: Bool { commandDoubt != nil }
    /// How the command in `text` was weighed against the audio (nil: none was, or pocketsphinx heard it).
    public var commandWeighing: CommandWeighing?

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
