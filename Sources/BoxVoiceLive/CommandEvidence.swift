/// How soon after a spotter hit its utterance must end for the hit to count: people pause after a command, and a
/// phrase inside running speech is text. Measured on real speech and degraded command clips (BENCHMARKS.md at 7c182fc,
/// "Spoken commands"): a true hit lands 0.1–0.9 s before its utterance ends; the short send phrase firing on the
/// start of a longer command, 1.1–1.2 s.
public struct SpotTails: Sendable, Equatable {
    /// Any command.
    public var command: Double
    /// A command that throws the message away (erase, cancel): the costliest to mistake, so it needs the clearest
    /// pause; every true one measured ended its utterance within 0.5 s.
    public var discarding: Double

    public init(command: Double, discarding: Double) {
        self.command = command
        self.discarding = min(discarding, command)
    }

    public static let measured = SpotTails(command: 1.0, discarding: 0.8)
}

/// One spotter hit waiting for its utterance to end.
public struct SpotterHit: Sendable, Equatable {
    public var phrase: String
    /// Where the spotter fired, in seconds from the start of the stream.
    public var end: Double
    /// How long the speaker had been quiet then (`SpeakerPause`); nil where the pause is not heard. Kept with the
    /// hit for the bench's record, not judged: a true hit came as late into the quiet as a false one did
    /// (BENCHMARKS.md at 7c182fc, "Spoken commands").
    public var quietBefore: Double?

    public init(phrase: String, end: Double, quietBefore: Double? = nil) {
        self.phrase = phrase
        self.end = end
        self.quietBefore = quietBefore
    }
}

/// The live path's judgement of what an utterance says when the spotter and the language model disagree: which
/// spotter hits become the utterance's last words, and whether words that only sound like a command count as one.
/// It is pure — the recognizers' output in, an utterance out — so the bench applies exactly this judgement to
/// stored decodes (BENCHMARKS.md at 7c182fc).
public struct CommandEvidence: Sendable {
    /// Nil: a hit counts wherever it fired.
    public var tails: SpotTails?
    /// Whether a phrase's command throws the message away.
    public var discards: @Sendable (String) -> Bool
    /// An utterance whose last words sound like a command phrase ends with that phrase (nil: off).
    public var soundAlikes: SoundsLikeCommand?
    /// Whether a spotted phrase means the command the recognized text already holds.
    public var sameCommand: @Sendable (_ recognized: String, _ phrase: String) -> Bool
    /// Whether a text holds a command (the contract's detector).
    public var holdsCommand: @Sendable (String) -> Bool

    public init(
        tails: SpotTails?, discards: @escaping @Sendable (String) -> Bool = { _ in false },
        soundAlikes: SoundsLikeCommand? = nil, sameCommand: @escaping @Sendable (String, String) -> Bool,
        holdsCommand: @escaping @Sendable (String) -> Bool = { _ in false }
    ) {
        self.tails = tails
        self.discards = discards
        self.soundAlikes = soundAlikes
        self.sameCommand = sameCommand
        self.holdsCommand = holdsCommand
    }

    /// The judgement a live path with these options makes.
    public init(_ options: LiveTranscriber.Options) throws {
        let soundAlikes =
            options.hearsSoundAlikes && options.useLanguageModel
            ? try options.spotting.map {
                try SoundsLikeCommand(
                    phrases: SpotterPhrases.load($0).map(\.phrase), dictionary: options.model.dictionary)
            }
            : nil
        self.init(
            tails: options.spotTails, discards: options.discards,
            soundAlikes: soundAlikes, sameCommand: options.sameCommand, holdsCommand: options.holdsCommand)
    }

    /// The utterance the language model closed with `recognized` at `end`, given the spotter's hits since the last.
    /// - Parameters:
    ///   - narrowband: heard through a band-limited microphone (`InputBand`).
    ///   - speechWentOn: the speaker went on talking right after the hits (`CommandHold`): none of them counts.
    public func utterance(
        recognized: String, hits: [SpotterHit], end: Double, narrowband: Bool = false, speechWentOn: Bool = false
    ) -> LiveUtterance {
        // Judged as the live path judged it before the hold refused it, then refused the same way.
        if speechWentOn {
            return utterance(recognized: recognized, hits: hits, end: end, narrowband: narrowband)
                .refusingSpottedCommand
        }
        var text = recognized
        var spots: [SpottedPhrase] = []
        // Both recognizers heard a command when the language model's own words hold one: the strongest evidence
        // there is. A hit naming another command is then the spotter hearing the same sounds differently (the
        // close phrase on the echo of the erase phrase).
        let heardOne = holdsCommand(recognized)
        for hit in hits {
            let accepted = !heardOne && end - hit.end <= tail(hit.phrase) && !sameCommand(text, hit.phrase)
            if accepted { text = text.isEmpty ? hit.phrase : text + " " + hit.phrase }
            spots.append(
                SpottedPhrase(phrase: hit.phrase, end: hit.end, accepted: accepted, quietBefore: hit.quietBefore))
        }
        // A longer command the last words sound like wins over a shorter one the spotter heard on the same sounds
        // (§4's longest match): ‘sun and clothes’ with the spotter’s short send phrase is the close phrase said whole.
        // A
        // command was heard either way; this only picks which: a longer one starting as the spotted phrase does, when
        // the words sound closer to it than to the phrase the spotter named, and not too far (`choosingTolerance`).
        if let soundAlikes, !recognized.isEmpty, let last = spots.lastIndex(where: \.accepted) {
            let scores = soundAlikes.scores(recognized, narrowband: narrowband)
            let named = spots[last].phrase
            let spotted = scores.first { $0.phrase == named }?.score ?? .infinity
            let firstWord = named.split(separator: " ").first
            let candidates = scores.filter {
                Self.words($0.phrase) > Self.words(named) && $0.phrase.split(separator: " ").first == firstWord
                    && $0.score < spotted && $0.score <= Self.choosingTolerance
            }
            if let longer = candidates.min(by: { $0.score < $1.score })?.phrase,
                !sameCommand(longer, spots[last].phrase)
            {
                spots[last].accepted = false
                spots.append(SpottedPhrase(phrase: longer, end: end, accepted: true))
                text = ([recognized] + spots.filter(\.accepted).map(\.phrase)).joined(separator: " ")
            }
        }
        if let soundAlikes, !recognized.isEmpty, !spots.contains(where: \.accepted), !holdsCommand(text),
            let phrase = soundAlikes.match(recognized, narrowband: narrowband)
        {
            text += " " + phrase
            spots.append(SpottedPhrase(phrase: phrase, end: end, accepted: true))
        }
        return LiveUtterance(text: text, recognized: recognized, spots: spots, end: end, narrowband: narrowband)
    }

    private static func words(_ phrase: String) -> Int { phrase.split(separator: " ").count }

    /// The sound-alike distance (a share of the phrase's phones) within which a longer command can win over a
    /// spotter hit: half its phones, since a command was heard and the other phrase must sound closer still.
    static let choosingTolerance = 0.5

    /// The longest a hit of `phrase` may come before its utterance's end.
    public func tail(_ phrase: String) -> Double {
        guard let tails else { return .infinity }
        return discards(phrase) ? tails.discarding : tails.command
    }
}
