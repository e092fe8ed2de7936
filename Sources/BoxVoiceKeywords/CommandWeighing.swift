/// How the command an utterance ends with was weighed against the audio, kept with the utterance so `listen` can say
/// why a command acted or not.
public struct CommandWeighing: Sendable, Equatable {
    /// `CommandDecision.evidence` (nil: the phrase could not be scored, and the box is asked).
    public var evidence: Double?
    /// Where the command acts (`CommandDecision.act`).
    public var actLine: Double
    /// How sure Whisper was of the phrase with the prompt (geometric mean of its words' probabilities).
    public var sureness: Float
    /// The phrase as the utterance's last words, weighed without the prompt (mean log-ratio per token, 0 at best).
    public var score: Float?
    /// How likely Whisper found the utterance English, where it was weighed so.
    public var english: Float?
    /// The language Whisper found likeliest for the utterance.
    public var language: String?

    public init(
        evidence: Double?, actLine: Double, sureness: Float, score: Float?, english: Float? = nil,
        language: String? = nil
    ) {
        self.evidence = evidence
        self.actLine = actLine
        self.sureness = sureness
        self.score = score
        self.english = english
        self.language = language
    }
}

extension CommandDecision {
    /// The figures behind `verdict(score:sureness:)`, to be shown beside it.
    public func weighing(score: Float?, sureness: Float, english: Float? = nil, language: String? = nil)
        -> CommandWeighing
    {
        CommandWeighing(
            evidence: score.map { evidence(score: Double($0), sureness: Double(sureness)) }, actLine: act,
            sureness: sureness, score: score, english: english, language: language)
    }
}
