import BoxVoiceLive
import Testing

/// The VAD's per-window probabilities turned into utterances (pure: no model).
@Suite struct UtteranceCutterTests {
    /// 32 ms windows at 16 kHz; each window's samples hold its index so a cut's audio can be checked.
    private static let window = 512

    private func run(_ probabilities: [Float], rule: UtteranceCutter.Rule = .measured, finishing: Bool = true)
        -> [UtteranceCutter.Cut]
    {
        var cutter = UtteranceCutter(rule: rule)
        var cuts: [UtteranceCutter.Cut] = []
        for (index, probability) in probabilities.enumerated() {
            let samples = [Float](repeating: Float(index), count: Self.window)
            if let cut = cutter.add(window: samples[...], probability: probability) { cuts.append(cut) }
        }
        if finishing, let cut = cutter.finish() { cuts.append(cut) }
        return cuts
    }

    private static func seconds(_ windows: Int) -> Double { Double(windows * window) / 16_000 }

    @Test func silenceIsNoUtterance() {
        #expect(run([Float](repeating: 0.1, count: 200)).isEmpty)
    }

    /// Speech, then quiet as long as `endSilence`: one cut, its speech ending where the speech did, the utterance
    /// where the quiet decided it, with the lead before it.
    @Test func speechThenQuietIsOneUtteranceEndingWhereTheQuietDecidedIt() throws {
        let probabilities =
            [Float](repeating: 0, count: 40) + [Float](repeating: 0.9, count: 50) + [Float](repeating: 0, count: 40)
        let cuts = run(probabilities, finishing: false)
        let cut = try #require(cuts.first)
        #expect(cuts.count == 1)
        #expect(abs(cut.start - Self.seconds(40)) < 1e-9)
        #expect(abs(cut.speechEnd - Self.seconds(90)) < 1e-9)
        let quietWindows = Int((UtteranceCutter.Rule.measured.endSilence * 16_000 / Double(Self.window)).rounded(.up))
        #expect(abs(cut.end - Self.seconds(90 + quietWindows)) < 1e-9)
        #expect(cut.ending == .pause)
        // Its audio starts `lead` (0.3 s: 9.4 windows, so inside the tenth) before the speech.
        let leadWindows = Int((UtteranceCutter.Rule.measured.lead * 16_000 / Double(Self.window)).rounded(.up))
        #expect(Int(cut.samples.first!) == 40 - leadWindows)
    }

    /// A dip under `offset` shorter than `endSilence` does not end it; between the thresholds counts as speech.
    @Test func aShortDipOrAMiddlingProbabilityDoesNotEndIt() {
        let shorterThanTheEnd = Int(UtteranceCutter.Rule.measured.endSilence * 16_000 / Double(Self.window)) - 1
        let dip =
            [Float](repeating: 0.9, count: 20) + [Float](repeating: 0.1, count: shorterThanTheEnd)
            + [Float](repeating: 0.4, count: 30)
            + [Float](repeating: 0.9, count: 20) + [Float](repeating: 0, count: 20)
        #expect(run(dip, finishing: false).count == 1)
    }

    /// A click (shorter than `minimumSpeech`) starts nothing.
    @Test func aClickShorterThanMinimumSpeechStartsNothing() {
        #expect(run([Float](repeating: 0, count: 10) + [0.99, 0.99] + [Float](repeating: 0, count: 30)).isEmpty)
    }

    /// Two sentences with a pause longer than `endSilence`: two cuts, in order.
    @Test func twoSentencesApartAreTwoUtterances() {
        let sentence = [Float](repeating: 0.95, count: 40)
        let cuts = run(
            sentence + [Float](repeating: 0, count: 30) + sentence + [Float](repeating: 0, count: 30), finishing: false)
        #expect(cuts.count == 2)
        #expect(cuts.count == 2 && cuts[0].end < cuts[1].start)
    }

    /// Speech longer than `longest` is cut there, marked forced, and the rest is a new utterance.
    @Test func speechLongerThanTheLongestIsCutAndGoesOn() {
        var rule = UtteranceCutter.Rule()
        rule.longest = 2
        let cuts = run([Float](repeating: 0.9, count: 100), rule: rule)
        #expect(cuts.count >= 2)
        #expect(cuts.first?.forced == true)
        #expect(cuts.first.map { $0.end - $0.start >= 2 && $0.end - $0.start < 2.1 } == true)
    }

    /// Past `dipAfter`, one window under `offset` ends the utterance (not forced) where a shorter utterance goes on
    /// through the same dip; without a dip it is cut at `longest`.
    @Test func speechPastDipAfterEndsAtItsFirstDip() {
        let rule = UtteranceCutter.Rule.measured
        let windowSeconds = Double(Self.window) / 16_000
        let beforeDip = Int(rule.dipAfter / windowSeconds) + 2
        let cuts = run(
            [Float](repeating: 0.9, count: beforeDip) + [0.1] + [Float](repeating: 0.9, count: 20)
                + [Float](repeating: 0, count: 20), finishing: false)
        // Plain values, so that a failure prints them and not the cut's samples.
        let endings = cuts.map(\.ending), ends = cuts.map(\.end)
        #expect(endings == [.breath, .pause], "one quiet window is a breath, not a pause")
        #expect(abs((ends.first ?? 0) - Self.seconds(beforeDip + 1)) < 1e-9, "it ends with the dip's window")
        let early = Int(rule.dipAfter / windowSeconds) - 20
        let shorter = run(
            [Float](repeating: 0.9, count: early) + [0.1] + [Float](repeating: 0.9, count: 20)
                + [Float](repeating: 0, count: 20), finishing: false)
        #expect(shorter.count == 1, "before dipAfter a dip is speech")
        let unbroken = run([Float](repeating: 0.9, count: Int(rule.longest / windowSeconds) + 20), finishing: false)
        let unbrokenForced = unbroken.first?.forced
        let unbrokenLength = unbroken.first.map { $0.end - $0.start } ?? 0
        #expect(unbrokenForced == true)
        #expect(abs(unbrokenLength - rule.longest) < windowSeconds)
    }

    /// The stream ending mid-speech gives the utterance in progress, ending at the stream's end.
    @Test func theStreamEndingMidSpeechGivesTheUtteranceInProgress() throws {
        let cut = try #require(run([Float](repeating: 0, count: 10) + [Float](repeating: 0.9, count: 30)).first)
        #expect(abs(cut.end - Self.seconds(40)) < 1e-9)
        #expect(cut.ending == .finished)
    }

    /// An utterance settles after `settle` of quiet: from that window on the cutter offers the audio Whisper will
    /// hear, and the cut that ends it carries the same count, up to the last speech window and `settle` more.
    @Test func anUtteranceSettlesAfterSettleOfQuietAndItsCutIsHeardToThere() throws {
        let rule = UtteranceCutter.Rule.measured
        let settleWindows = Int((rule.settle * 16_000 / Double(Self.window)).rounded(.up))
        var cutter = UtteranceCutter(rule: rule)
        var offered: [Float]?
        var cut: UtteranceCutter.Cut?
        let probabilities =
            [Float](repeating: 0, count: 20) + [Float](repeating: 0.9, count: 30) + [Float](repeating: 0, count: 30)
        for (index, probability) in probabilities.enumerated() {
            let samples = [Float](repeating: Float(index), count: Self.window)
            cut = cutter.add(window: samples[...], probability: probability) ?? cut
            if index == 49 + settleWindows - 1 { #expect(cutter.settled == nil && !cutter.isSettled) }
            if index == 49 + settleWindows {
                offered = cutter.settled
                #expect(cutter.isSettled)
            }
        }
        let heard = try #require(offered)
        let ended = try #require(cut)
        // The last window heard is the `settle`-th quiet one after the last speech window (index 49).
        #expect(heard.last == Float(49 + settleWindows))
        #expect(ended.heardCount == heard.count)
        #expect(ended.heard == heard)
        #expect(ended.samples.count > heard.count)
        #expect(cutter.settled == nil && !cutter.isSettled)
    }

    /// Speech coming back after the utterance settled unsettles it: its cut is heard to where it settled again.
    @Test func speechComingBackUnsettlesTheUtterance() throws {
        let rule = UtteranceCutter.Rule.measured
        let settleWindows = Int((rule.settle * 16_000 / Double(Self.window)).rounded(.up))
        let endWindows = Int((rule.endSilence * 16_000 / Double(Self.window)).rounded(.up))
        var cutter = UtteranceCutter(rule: rule)
        let probabilities =
            [Float](repeating: 0.9, count: 20) + [Float](repeating: 0, count: settleWindows)
            + [Float](repeating: 0.9, count: 10) + [Float](repeating: 0, count: endWindows)
        var cuts: [UtteranceCutter.Cut] = []
        var settledAfterComingBack: [Float]?
        for (index, probability) in probabilities.enumerated() {
            let samples = [Float](repeating: Float(index), count: Self.window)
            if let cut = cutter.add(window: samples[...], probability: probability) { cuts.append(cut) }
            if index == 20 + settleWindows {
                settledAfterComingBack = cutter.settled
                #expect(!cutter.isSettled)
            }
        }
        #expect(settledAfterComingBack == nil)
        let cut = try #require(cuts.first)
        #expect(cuts.count == 1)
        #expect(cut.heard.last == Float(20 + settleWindows + 10 - 1 + settleWindows))
    }

    /// An utterance ended before it settled (Enter, or the stream's end mid-speech) is heard whole.
    @Test func anUtteranceEndedBeforeItSettledIsHeardWhole() throws {
        let cut = try #require(run([Float](repeating: 0, count: 10) + [Float](repeating: 0.9, count: 30)).first)
        #expect(cut.heardCount == cut.samples.count)
    }

    /// Speech already `long` seconds long ends at a pause of `longEndSilence`, which would not end a shorter one:
    /// the sentence before a command is an utterance of its own.
    @Test func longSpeechEndsAtAShorterPause() throws {
        let rule = UtteranceCutter.Rule.measured
        let long = try #require(rule.long)
        let pauseWindows = Int((rule.longEndSilence * 16_000 / Double(Self.window)).rounded(.up))
        #expect(Double(pauseWindows * Self.window) / 16_000 < rule.endSilence, "the pause is shorter than the end")
        let longWindows = Int((long * 16_000 / Double(Self.window)).rounded(.up)) + 1
        let pause = [Float](repeating: 0, count: pauseWindows)
        let command = [Float](repeating: 0.9, count: 30)
        let ending = [Float](repeating: 0, count: 40)
        let afterLong = run([Float](repeating: 0.9, count: longWindows) + pause + command + ending, finishing: false)
        #expect(afterLong.count == 2)
        #expect(afterLong.first.map { abs($0.speechEnd - Self.seconds(longWindows)) < 1e-9 } == true)
        let short = [Float](repeating: 0.9, count: longWindows / 2)
        let afterShort = run(short + pause + command + ending, finishing: false)
        #expect(afterShort.count == 1)
        var without = rule
        without.long = nil
        #expect(
            run([Float](repeating: 0.9, count: longWindows) + pause + command + ending, rule: without, finishing: false)
                .count == 1)
    }
}
