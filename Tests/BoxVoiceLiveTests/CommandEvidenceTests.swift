import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Testing

/// The live path's judgement of spotter hits against the language model's words, on hand-made recognizer output:
/// every rule it applies, one at a time, with the contract's real vocabulary deciding what a command is.
@Suite struct CommandEvidenceTests {
    let detector: KeywordDetector
    let evidence: CommandEvidence

    init() throws {
        let detector = try KeywordDetector(contentsOf: Checkout.keywordVocabulary)
        self.detector = detector
        let matcher = SoundsLikeCommand(
            phrases: ["send message", "over and out", "start over"],
            pronunciations: SoundsLikeCommandTests.phones.merging([
                "start": ["S", "T", "AA", "R", "T"], "let": ["L", "EH", "T"], "me": ["M", "IY"],
            ]) { first, _ in first })
        evidence = CommandEvidence(
            tails: .measured,
            discards: { phrase in [.erase, .cancel].contains(detector.detect(phrase)?.action) },
            soundAlikes: matcher,
            sameCommand: { recognized, phrase in detector.detect(recognized)?.action == detector.detect(phrase)?.action
            },
            holdsCommand: { detector.detect($0) != nil })
    }

    func action(_ utterance: LiveUtterance) -> KeywordAction? { detector.detect(utterance.text)?.action }

    @Test func aHitThatEndsItsUtteranceBecomesItsLastWords() {
        let heard = evidence.utterance(
            recognized: "buy milk and eggs", hits: [SpotterHit(phrase: "over and out", end: 9.5)], end: 10)
        #expect(heard.text == "buy milk and eggs over and out")
        #expect(heard.spots == [SpottedPhrase(phrase: "over and out", end: 9.5, accepted: true)])
        #expect(heard.commandIsSpottedOnly)
        #expect(action(heard) == .sendClose)
    }

    @Test func aHitInsideRunningSpeechIsLeftAsText() {
        let heard = evidence.utterance(
            recognized: "the ten of clubs is on the table", hits: [SpotterHit(phrase: "over and out", end: 7)],
            end: 7 + SpotTails.measured.command + 0.1)
        #expect(heard.text == "the ten of clubs is on the table")
        #expect(heard.spots.map(\.accepted) == [false])
        #expect(action(heard) == nil)
    }

    /// Every true erase or cancel hit measured ended its utterance within 0.5 s; one 1.0 s early was a mishearing
    /// of other words that would have thrown the message away.
    @Test func aCommandThatThrowsTheMessageAwayNeedsTheClearerPause() {
        let gap = (SpotTails.measured.discarding + SpotTails.measured.command) / 2
        let erase = evidence.utterance(
            recognized: "i will be late for me to start with the",
            hits: [SpotterHit(phrase: "start over", end: 10 - gap)], end: 10)
        #expect(action(erase) == nil, "a discarding hit \(gap) s before the end must not count")
        let send = evidence.utterance(
            recognized: "that is all for today", hits: [SpotterHit(phrase: "over and out", end: 10 - gap)], end: 10)
        #expect(action(send) == .sendClose, "a sending hit \(gap) s before the end still counts")
        let quick = evidence.utterance(
            recognized: "that was wrong",
            hits: [SpotterHit(phrase: "start over", end: 10 - SpotTails.measured.discarding + 0.1)], end: 10)
        #expect(action(quick) == .erase)
    }

    /// Both recognizers heard the erase phrase's words when the language model wrote them; the close phrase the
    /// spotter fired on their echo is the same sounds heard otherwise.
    @Test func theLanguageModelsOwnCommandWinsOverAHitNamingAnother() {
        let heard = evidence.utterance(
            recognized: "that's a low growth let me start over", hits: [SpotterHit(phrase: "over and out", end: 4.0)],
            end: 4.2)
        #expect(heard.text == "that's a low growth let me start over")
        #expect(heard.spots.map(\.accepted) == [false])
        #expect(action(heard) == .erase)
        #expect(!heard.commandIsSpottedOnly)
    }

    @Test func aHitOfTheCommandTheWordsAlreadyHoldAddsNothing() {
        let heard = evidence.utterance(
            recognized: "please send message", hits: [SpotterHit(phrase: "send message", end: 4.8)], end: 5)
        #expect(heard.text == "please send message")
        #expect(!heard.commandIsSpottedOnly)
    }

    @Test func wordsThatSoundLikeACommandEndWithItOnlyWhenNothingElseSaidOne() {
        let sounds = evidence.utterance(recognized: "buy milk sun message", hits: [], end: 5)
        #expect(sounds.text == "buy milk sun message send message")
        #expect(sounds.commandIsSpottedOnly, "a sound-alike is weak evidence, as a hit is")
        #expect(action(sounds) == .send)
        // A hit that counted, or a command in the words, leaves the sound-alike out.
        let spotted = evidence.utterance(
            recognized: "buy milk sun message", hits: [SpotterHit(phrase: "over and out", end: 4.9)], end: 5)
        #expect(action(spotted) == .sendClose)
        #expect(!spotted.text.contains("send message"))
        let said = evidence.utterance(recognized: "start over", hits: [], end: 5)
        #expect(said.text == "start over")
        #expect(said.spots.isEmpty)
    }

    @Test func anUtteranceOfNoWordsIsTheHitAlone() {
        let heard = evidence.utterance(recognized: "", hits: [SpotterHit(phrase: "over and out", end: 2.9)], end: 3)
        #expect(heard.text == "over and out")
        #expect(action(heard) == .sendClose)
    }

    @Test func withoutTailsAHitCountsWhereverItFired() {
        var anywhere = evidence
        anywhere.tails = nil
        let heard = anywhere.utterance(
            recognized: "the ten of clubs is on the table", hits: [SpotterHit(phrase: "over and out", end: 1)], end: 60)
        #expect(action(heard) == .sendClose)
        #expect(anywhere.tail("start over") == .infinity)
    }

    @Test func theTailOfEachKindOfPhrase() {
        #expect(evidence.tail("start over") == SpotTails.measured.discarding)
        #expect(evidence.tail("cancel message") == SpotTails.measured.discarding)
        #expect(evidence.tail("send message") == SpotTails.measured.command)
        #expect(SpotTails.measured.discarding < SpotTails.measured.command)
        #expect(
            SpotTails(command: 0.5, discarding: 2).discarding == 0.5,
            "a discarding command never gets a longer tail than any other")
    }
}

/// A phrase said whole wins over a shorter one the spotter heard on its start (§4's longest match).
@Suite struct LongerCommandTests {
    let detector: KeywordDetector
    let evidence: CommandEvidence

    init() throws {
        let detector = try KeywordDetector(contentsOf: Checkout.keywordVocabulary)
        self.detector = detector
        let matcher = SoundsLikeCommand(
            phrases: ["send message", "send and close", "send now", "over and out"],
            pronunciations: SoundsLikeCommandTests.phones)
        evidence = CommandEvidence(
            tails: .measured, soundAlikes: matcher,
            sameCommand: { recognized, phrase in detector.detect(recognized)?.action == detector.detect(phrase)?.action
            },
            holdsCommand: { detector.detect($0) != nil })
    }

    /// "send and close" heard by the language model as "sun and clothes", by the spotter as "send now": the close.
    @Test func wordsSoundingLikeALongerCommandWinOverTheShortHitOnItsStart() {
        let heard = evidence.utterance(
            recognized: "book the flight sun and clothes", hits: [SpotterHit(phrase: "send now", end: 9.6)], end: 10)
        #expect(detector.detect(heard.text)?.action == .sendClose, "\(heard.text)")
        #expect(heard.spots.map(\.accepted) == [false, true])
    }

    /// Words that sound like the spotted phrase itself keep it.
    @Test func theSpottedPhraseStaysWhenTheWordsSoundLikeIt() {
        let near = evidence.utterance(
            recognized: "book the flight sun now", hits: [SpotterHit(phrase: "send now", end: 9.6)], end: 10)
        #expect(detector.detect(near.text)?.action == .send)
        #expect(near.spots.map(\.accepted) == [true])
    }
}
