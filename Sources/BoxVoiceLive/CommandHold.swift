/// Holds back an utterance whose command only the spotter heard (or only sounds like one) until the speaker has
/// stayed quiet for a while after it: people stop after a command, and go on after ordinary words the spotter
/// mistook for one. In the 150 s meeting dictation under white noise and babble, the close phrase was spotted at the
/// end of a sentence the speaker followed with the next one 1.44 s and 0.54 s later (BENCHMARKS.md at 7c182fc, "Spoken
/// commands"): both were acted on before this.
/// Pure: the live path feeds it whether each 20 ms frame is quiet (`SpeakerPause`) and the stream's position.
public struct CommandHold: Sendable {
    public struct Rule: Sendable, Equatable {
        /// How long after the command's hit the speaker must stay quiet.
        public var seconds: Double
        /// A run of sound at least this long after the speaker went quiet is speech going on (shorter runs are a
        /// click, a breath, a tap on the desk).
        public var resumingSpeech: Double

        public init(seconds: Double, resumingSpeech: Double) {
            self.seconds = seconds
            self.resumingSpeech = resumingSpeech
        }

        /// 2 s: more than the 1.44 s the meeting's speaker paused after the false close in white noise. 0.2 s: in
        /// babble the room after a true command showed runs of sound up to 0.08 s, the speaker going on 0.2 s and more.
        public static let measured = Rule(seconds: 2.0, resumingSpeech: 0.2)
    }

    public enum Verdict: Sendable, Equatable {
        /// No speech going on yet: the command counts once the hold `expired`.
        case waiting
        /// Speech went on: the hit was ordinary words.
        case refused
    }

    public let rule: Rule
    /// The utterance held, as judged with the command in it.
    public let utterance: LiveUtterance
    /// Where the command was heard, in seconds from the start of the stream.
    public let from: Double
    private var sawQuiet = false
    private var loud = 0.0

    /// - Parameter quietNow: the speaker is quiet as the utterance closes (its close usually took a pause).
    public init(_ utterance: LiveUtterance, rule: Rule, quietNow: Bool) {
        self.utterance = utterance
        self.rule = rule
        from = utterance.spots.filter(\.accepted).map(\.end).max() ?? utterance.end
        sawQuiet = quietNow
    }

    /// Whether `utterance` needs holding: its command rests on the spotter (or on sound-alike words) alone.
    public static func holds(_ utterance: LiveUtterance) -> Bool { utterance.commandIsSpottedOnly }

    /// One 20 ms frame heard after the hit: quiet, louder than the quiet line, or nil where nothing tells speech
    /// from the room (steady noise, or too little heard yet).
    public mutating func hear(quiet: Bool?) -> Verdict {
        switch quiet {
        case true?:
            sawQuiet = true
            loud = 0
        case false?:
            if sawQuiet { loud += 0.02 }
        case nil:
            loud = 0
        }
        return sawQuiet && loud >= rule.resumingSpeech - 1e-9 ? .refused : .waiting
    }

    /// Whether the hold is over at `position` (seconds in the stream) with no speech heard going on.
    public func expired(at position: Double) -> Bool { position >= from + rule.seconds }
}

extension LiveUtterance {
    /// The utterance as the language model heard it, every spotter hit and sound-alike ending refused.
    public var refusingSpottedCommand: LiveUtterance {
        LiveUtterance(
            text: recognized, recognized: recognized,
            spots: spots.map {
                var spot = $0; spot.accepted = false; return spot
            },
            end: end, narrowband: narrowband, speechWentOn: true)
    }
}
