import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct CommandHoldTests {
    /// An utterance whose close phrase only the spotter heard, 0.3 s before the utterance ended at 10 s.
    private let spotted = LiveUtterance(
        text: "that is all for today over and out", recognized: "that is all for today",
        spots: [SpottedPhrase(phrase: "over and out", end: 9.7, accepted: true)], end: 10)
    private let rule = CommandHold.Rule(seconds: 2, resumingSpeech: 0.2)

    private func frames(_ hold: inout CommandHold, _ quiet: Bool?, seconds: Double) -> CommandHold.Verdict {
        var verdict = CommandHold.Verdict.waiting
        for _ in 0..<Int((seconds / 0.02).rounded()) where verdict == .waiting { verdict = hold.hear(quiet: quiet) }
        return verdict
    }

    @Test func onlyACommandTheLanguageModelDidNotHearIsHeld() {
        #expect(CommandHold.holds(spotted))
        let ownWords = LiveUtterance(
            text: "that is all over and out", recognized: "that is all over and out",
            spots: [SpottedPhrase(phrase: "over and out", end: 9.7, accepted: false)], end: 10)
        #expect(!CommandHold.holds(ownWords))
        #expect(!CommandHold.holds(LiveUtterance(text: "hello there", recognized: "hello there", spots: [], end: 10)))
    }

    @Test func theHoldRunsFromTheHitNotFromTheUtterancesEnd() {
        let hold = CommandHold(spotted, rule: rule, quietNow: true)
        #expect(hold.from == 9.7)
        #expect(!hold.expired(at: 11.69))
        #expect(hold.expired(at: 11.7))
    }

    @Test func speechGoingOnAfterThePauseRefusesTheCommand() {
        var hold = CommandHold(spotted, rule: rule, quietNow: true)
        #expect(frames(&hold, true, seconds: 0.5) == .waiting)
        #expect(frames(&hold, false, seconds: 0.18) == .waiting, "shorter than a word")
        #expect(frames(&hold, false, seconds: 0.02) == .refused, "0.2 s of sound is speech going on")
    }

    @Test func aClickBetweenQuietFramesIsNotSpeech() {
        var hold = CommandHold(spotted, rule: rule, quietNow: true)
        for _ in 0..<5 {
            #expect(frames(&hold, false, seconds: 0.1) == .waiting)
            #expect(frames(&hold, true, seconds: 0.2) == .waiting)
        }
    }

    @Test func soundBeforeTheSpeakerWentQuietIsTheCommandsOwnEnd() {
        var hold = CommandHold(spotted, rule: rule, quietNow: false)
        #expect(frames(&hold, false, seconds: 0.6) == .waiting, "the phrase's last syllable and its echo")
        #expect(frames(&hold, true, seconds: 0.3) == .waiting)
        #expect(frames(&hold, false, seconds: 0.2) == .refused)
    }

    @Test func audioThatCannotTellSpeechFromTheRoomNeverRefuses() {
        var hold = CommandHold(spotted, rule: rule, quietNow: true)
        #expect(frames(&hold, nil, seconds: 3) == .waiting)
        #expect(frames(&hold, false, seconds: 0.1) == .waiting, "a loud run counts from where speech can be told again")
    }

    @Test func aRefusedUtteranceIsTheLanguageModelsWordsAlone() {
        let refused = spotted.refusingSpottedCommand
        #expect(refused.text == "that is all for today")
        #expect(refused.speechWentOn)
        #expect(!refused.commandIsSpottedOnly)
        #expect(refused.spots.map(\.phrase) == ["over and out"], "the hit stays on record")
    }

    @Test func theJudgementOfAStoredDecodeKeepsTheRefusal() {
        let evidence = CommandEvidence(tails: .measured, sameCommand: { $0.contains($1) })
        let hits = [SpotterHit(phrase: "over and out", end: 9.7)]
        #expect(
            evidence.utterance(recognized: "that is all for today", hits: hits, end: 10).text.hasSuffix("over and out"))
        let refused = evidence.utterance(recognized: "that is all for today", hits: hits, end: 10, speechWentOn: true)
        #expect(refused.text == "that is all for today")
        #expect(!refused.commandIsSpottedOnly)
    }
}

/// The hold on the live path, over real audio: a Samples clip whose close phrase the language model misses.
@Suite struct LiveCommandHoldTests {
    private let clip = "sendclose-over-and-out.wav"

    /// Feeds `audio` in 100 ms chunks; each utterance with the stream position it was given at.
    private func hear(_ audio: [Float], enterAt: Double? = nil) throws -> [(utterance: LiveUtterance, givenAt: Double)]
    {
        let transcriber = try LiveTranscriber(
            options: LiveTranscriber.Options.sharingTheCut(
                spotterPhrases: Checkout.root + "/Models/command-spotter.en.txt"))
        var heard: [(LiveUtterance, Double)] = []
        var entered = false
        for start in stride(from: 0, to: audio.count, by: 4_800) {
            for case .utterance(let utterance) in try transcriber.feed(
                Array(audio[start..<min(start + 4_800, audio.count)]))
            {
                heard.append((utterance, transcriber.seconds))
            }
            if let enterAt, !entered, transcriber.seconds >= enterAt {
                entered = true
                for case .utterance(let utterance) in try transcriber.endUtterance() {
                    heard.append((utterance, transcriber.seconds))
                }
            }
        }
        for case .utterance(let utterance) in try transcriber.finish() {
            heard.append((utterance, transcriber.seconds))
        }
        return heard
    }

    private func quiet(_ seconds: Double) -> [Float] { [Float](repeating: 0, count: Int(seconds * 48_000)) }

    @Test func aSpottedCommandCountsOnceTheSpeakerHasStayedQuiet() throws {
        let heard = try hear(try WAVCapturePCM.load(Checkout.sample(clip)) + quiet(4))
        let command = try #require(
            heard.first { $0.utterance.commandIsSpottedOnly }, "heard: \(heard.map(\.utterance.text))")
        let accepted = command.utterance.spots.first(where: \.accepted)
        let hit = try #require(accepted)
        #expect(command.utterance.text.hasSuffix(hit.phrase))
        #expect(command.givenAt >= hit.end + CommandHold.Rule.measured.seconds, "given before the hold was over")
        #expect(
            command.givenAt <= hit.end + CommandHold.Rule.measured.seconds + 0.2,
            "given at the first chunk after the hold")
    }

    @Test func speechGoingOnRightAfterASpottedCommandMakesItText() throws {
        let audio =
            try WAVCapturePCM.load(Checkout.sample(clip)) + quiet(0.4)
            + (try WAVCapturePCM.load(Checkout.sample("none-budget.wav")))
        let heard = try hear(audio).map(\.utterance)
        let refused = try #require(
            heard.first { $0.spots.contains { $0.phrase == "over and out" } }, "heard: \(heard.map(\.text))")
        #expect(refused.speechWentOn)
        #expect(!refused.text.contains("over and out"))
        let detector = try KeywordDetector(contentsOf: Checkout.keywordVocabulary)
        #expect(detector.detect(heard.map(\.text).joined(separator: " ")) == nil, "heard: \(heard.map(\.text))")
    }

    @Test func enterGivesAHeldCommandAtOnce() throws {
        let samples = try WAVCapturePCM.load(Checkout.sample(clip))
        let clipEnd = Double(samples.count) / 48_000
        let heard = try hear(samples + quiet(4), enterAt: clipEnd + 0.8)
        let command = try #require(
            heard.first { $0.utterance.commandIsSpottedOnly }, "heard: \(heard.map(\.utterance.text))")
        let accepted = command.utterance.spots.first(where: \.accepted)
        let hit = try #require(accepted)
        #expect(
            command.givenAt < hit.end + CommandHold.Rule.measured.seconds,
            "Enter did not give it before the hold ran out")
    }
}
