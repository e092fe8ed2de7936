/// Cuts a stream into utterances from the VAD's per-window speech probability. Pure: windows of audio and their
/// probabilities in, finished utterances out.
///
/// Speech starts where `onset` is reached for `minimumSpeech`; it ends after `endSilence` under `offset` (two
/// thresholds, so a word that dips does not end it). An utterance keeps `lead` of audio from before its start
/// (the first consonant is often judged silence). Speech that goes on past `dipAfter` ends at its first window under
/// `offset` (a breath between words), and at `longest` even mid-speech: Whisper's encoder takes memory with the
/// square of the audio it is given, and `dictate` stays under its bound only with utterances that short.
///
/// After `settle` of that quiet the utterance has *settled*: what Whisper hears of it is fixed (its audio up to
/// there, `Cut.heard`), so its decode can start while the cutter waits out the rest of `endSilence`. Speech that
/// comes back before the end unsettles it.
///
/// Speech already `long` seconds long ends after only `longEndSilence` of quiet: the pause at a sentence's end. What
/// is said after it (often the command, said after the message) is then an utterance of its own, decoded in a
/// fraction of the time the whole would take, and the sentence's decode runs while it is spoken.
public struct UtteranceCutter: Sendable {
    public struct Rule: Sendable, Equatable {
        public var onset: Float = 0.5
        public var offset: Float = 0.35
        public var minimumSpeech = 0.1
        public var endSilence = 0.3
        public var settle = 0.1
        /// nil: every utterance waits `endSilence`.
        public var long: Double? = 3
        public var longEndSilence = 0.15
        public var lead = 0.3
        /// Seconds of speech after which one window under `offset` ends it, so that the cut at `longest` seldom
        /// falls inside a word.
        public var dipAfter = 6.0
        /// The longest utterance, in seconds: `dictate` peaked at 412–421 MB on 27.5 s of speech without a pause
        /// with 28 (Whisper's window), 348–351 MB with 12 and 331–334 MB with 8, against the 350 MB
        /// (BENCHMARKS.md at 7c182fc, "the longest utterance cut to 8 s").
        public var longest = 8.0
        public init() {}
        /// The rule measured in BENCHMARKS.md at 7c182fc ("Hearing").
        public static let measured = Rule()
    }

    /// What ended an utterance: only a pause, or the end of what is heard, ends it where a speaker stops. A command
    /// counts only as the last words before one of those (`LiveUtterance.endsAtPause`).
    public enum Ending: Sendable, Equatable {
        /// Quiet as long as the rule asks (`endSilence`, or `longEndSilence` after a long utterance).
        case pause
        /// One quiet window after `dipAfter` of speech: a breath, or the start of a pause. Whoever hears on decides
        /// which (`UtteranceEnds` listens `longEndSilence` further).
        case breath
        /// Cut at `longest` while speech went on.
        case forced
        /// The stream ended, or the user pressed Enter.
        case finished
    }

    /// One utterance the stream held.
    public struct Cut: Sendable, Equatable {
        /// Its audio, `lead` included.
        public var samples: [Float]
        /// Where its speech starts in the stream, in seconds.
        public var start: Double
        /// Where it ends: where the cut was decided (the quiet after the speech is its own; a word's fading tail is
        /// never cut off the message's recording).
        public var end: Double
        /// Where its last speech window ends.
        public var speechEnd: Double
        /// How many of `samples` Whisper hears: those up to where it settled (all when it never did).
        public var heardCount: Int
        /// The audio Whisper hears (`heardCount` samples).
        public var heard: [Float] { Array(samples.prefix(heardCount)) }
        /// Cut at `longest` while speech went on.
        public var forced: Bool { ending == .forced }
        public var ending: Ending
        /// Ended where the speaker stopped (a pause, or the end of what is heard): its last words may be a command.
        public var endsAtPause: Bool { ending == .pause || ending == .finished }

        /// - Parameter heardCount: nil: Whisper hears all of `samples`.
        public init(
            samples: [Float], start: Double, end: Double, speechEnd: Double, heardCount: Int? = nil, ending: Ending
        ) {
            self.samples = samples
            self.start = start
            self.end = end
            self.speechEnd = speechEnd
            self.heardCount = heardCount ?? samples.count
            self.ending = ending
        }
    }

    public let rule: Rule
    public let sampleRate: Double
    /// Audio before speech, `lead` long at most.
    private var before: [Float] = []
    /// The utterance being heard (nil between utterances).
    private var current: [Float]?
    private var currentStart = 0.0
    /// Windows over `onset` in a row, before an utterance starts.
    private var loudRun = 0
    /// Windows under `offset` in a row, inside an utterance.
    private var quietRun = 0
    private var position = 0
    private var lastSpeechEnd = 0.0
    /// The utterance's sample count when it settled (nil: not settled).
    private var settledCount: Int?

    public init(rule: Rule = .measured, sampleRate: Double = 16_000) {
        self.rule = rule
        self.sampleRate = sampleRate
    }

    /// Seconds heard so far.
    public var seconds: Double { Double(position) / sampleRate }

    /// Whether speech is going on (an utterance has started and not ended).
    public var inUtterance: Bool { current != nil }

    /// The audio Whisper will hear of the utterance in progress, once it has settled (`Rule.settle`); nil before,
    /// and after speech comes back.
    public var settled: [Float]? { settledCount.map { Array(current!.prefix($0)) } }
    /// Whether the utterance in progress has settled: `settled` without copying its audio.
    public var isSettled: Bool { settledCount != nil }

    /// Hears one window; returns the utterance it ends, if any.
    public mutating func add(window: ArraySlice<Float>, probability: Float) -> Cut? {
        let windowSeconds = Double(window.count) / sampleRate
        position += window.count
        guard current != nil else {
            before.append(contentsOf: window)
            loudRun = probability >= rule.onset ? loudRun + 1 : 0
            if Double(loudRun) * windowSeconds >= rule.minimumSpeech {
                // Speech began `loudRun` windows ago; the utterance keeps `lead` before that.
                let speechSamples = loudRun * window.count
                let keep = min(before.count, speechSamples + Int(rule.lead * sampleRate))
                current = Array(before.suffix(keep))
                currentStart = seconds - Double(speechSamples) / sampleRate
                lastSpeechEnd = seconds
                before = []
                loudRun = 0
                quietRun = 0
            } else if before.count > Int((rule.lead + rule.minimumSpeech) * sampleRate) + window.count {
                before.removeFirst(before.count - Int((rule.lead + rule.minimumSpeech) * sampleRate))
            }
            return nil
        }
        current!.append(contentsOf: window)
        if probability < rule.offset {
            quietRun += 1
            if settledCount == nil, Double(quietRun) * windowSeconds >= rule.settle { settledCount = current!.count }
        } else {
            quietRun = 0
            settledCount = nil
            lastSpeechEnd = seconds
        }
        let isLong = rule.long.map { lastSpeechEnd - currentStart >= $0 } ?? false
        let quietNeeded =
            seconds - currentStart >= rule.dipAfter ? windowSeconds : isLong ? rule.longEndSilence : rule.endSilence
        if quietRun > 0, Double(quietRun) * windowSeconds >= quietNeeded {
            let paused = Double(quietRun) * windowSeconds >= min(rule.endSilence, rule.longEndSilence)
            return end(paused ? .pause : .breath)
        }
        if seconds - currentStart >= rule.longest { return end(.forced) }
        return nil
    }

    /// Ends the utterance in progress now (the stream ended, or the user pressed Enter).
    public mutating func finish() -> Cut? {
        guard current != nil else { return nil }
        if quietRun == 0 { lastSpeechEnd = seconds }
        return end(.finished)
    }

    private mutating func end(_ ending: Ending) -> Cut {
        let forced = ending == .forced
        let cut = Cut(
            samples: current!, start: currentStart, end: seconds, speechEnd: forced ? seconds : lastSpeechEnd,
            heardCount: forced ? nil : settledCount, ending: ending)
        settledCount = nil
        current = nil
        quietRun = 0
        before = []
        return cut
    }
}
