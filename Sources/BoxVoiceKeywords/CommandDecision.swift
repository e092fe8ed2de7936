import Foundation

/// How a command the speaker ended on is decided, as a keyword spotter decides: one figure of evidence that the phrase
/// is what was said, and two lines. At or above `act` the command acts; from `ask` up to `act` the box is asked (its
/// HQ hearing of the same audio) and the command acts only on its yes; under `ask` the command is refused unasked.
/// A command not taken leaves its words out of the text: they are what the prompt wrote, not what was heard.
///
/// The evidence adds two log-likelihoods Whisper gives the phrase as the utterance's last words:
/// - `score`: weighed without the command prompt, the mean per-token shortfall (natural log, 0 at best) of the phrase
///   and the end of the text after it from what Whisper found likeliest there. The prompt is what makes Whisper write
///   a command over speech it cannot make out; without it those words fall far short of its own.
/// - `sureness`: how sure Whisper was of the phrase with the prompt (geometric mean of its words' probabilities). In
///   heavy noise a command a person said can score low without the prompt yet be written surely with it.
///
/// The three numbers are chosen on a curve of false actions per hour of keyword-free speech against missed commands
/// on development sets (docs/command-decision.md): the weight and the act line where misses stop falling faster than
/// false commands rise, the ask line under every command said on those sets but one.
public struct CommandDecision: Sendable, Equatable {
    /// How much the prompted sureness's log counts beside the prompt-free score.
    public var surenessWeight: Double
    public var act: Double
    public var ask: Double

    /// The figures chosen on the curve (docs/command-decision.md).
    public static let measured = CommandDecision(surenessWeight: 0.5, act: -2.5, ask: -4.0)

    public init(surenessWeight: Double, act: Double, ask: Double) {
        self.surenessWeight = surenessWeight
        self.act = act
        self.ask = min(ask, act)
    }

    public enum Verdict: Sendable, Equatable {
        case act
        /// The box is asked; without its yes the command's words stay text.
        case ask(CommandDoubt)
        /// Too far from the audio to be worth asking the box about: not taken.
        case refuse(CommandDoubt)

        /// Why the command does not act by itself; nil when it does.
        public var doubt: CommandDoubt? {
            switch self {
            case .act: nil
            case .ask(let doubt), .refuse(let doubt): doubt
            }
        }

        /// A command that does not act by itself is worth asking the box about (false: refused unasked).
        public var worthAsking: Bool {
            if case .refuse = self { false } else { true }
        }
    }

    /// The evidence for a phrase scored `score` and written with `sureness` (a sureness under a millionth counts as
    /// a millionth).
    public func evidence(score: Double, sureness: Double) -> Double {
        score + surenessWeight * log(max(sureness, 1e-6))
    }

    /// The verdict on a command; one not weighed (`score` nil) is asked of the box, never acted on alone.
    public func verdict(score: Double?, sureness: Double) -> Verdict {
        guard let score else { return .ask(.unscored) }
        let evidence = evidence(score: score, sureness: sureness)
        if evidence >= act { return .act }
        let doubt = CommandDoubt.unsure(score: evidence, threshold: act)
        return evidence >= ask ? .ask(doubt) : .refuse(doubt)
    }
}
