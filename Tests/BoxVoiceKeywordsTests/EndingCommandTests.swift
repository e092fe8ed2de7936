import BoxVoiceKeywords
import BoxVoiceTestSupport
import Testing

/// A command is what the speaker ends on: only the phrase whose words close an utterance counts, and command words
/// with more words after them in the same utterance are ordinary text.
@Suite struct EndingCommandTests {
    static let vocabulary = try! Vocabulary.load(path: Checkout.keywordVocabulary)
    let detector = KeywordDetector(vocabulary: vocabulary)

    /// The sentences a new user's dictation acted on mid-sentence: each stays text.
    @Test func commandWordsInsideASentenceAreText() {
        for sentence in [
            "I forgot to send the message to the landlord yesterday, so I will call him this evening instead.",
            "We should start over with the design, because the first draft confused everyone.",
            "Can you show me how to cancel the message reminders in the settings before Friday?",
            "When you send the checkpoint report to the auditors, copy me on the email as well.",
        ] {
            #expect(detector.detect(sentence) != nil, "the contract's detector finds words in \(sentence)")
            #expect(detector.endingCommand(in: sentence) == nil, "\(sentence)")
        }
        #expect(detector.endingCommand(in: "Send message. Then lunch.") == nil)
    }

    @Test func aCommandClosingTheUtteranceActsWithItsPunctuation() throws {
        let found = try #require(detector.endingCommand(in: "Buy rye bread, send message."))
        #expect(found.action == .send)
        #expect(found.matchedPhrase == "send message")
        #expect(found.processedTranscript == "Buy rye bread, <send-message phrase=\"send message\" />.")
        #expect(detector.endingCommand(in: "Over and out!")?.action == .sendClose)
        #expect(detector.endingCommand(in: "start over …")?.action == .erase)
        #expect(detector.endingCommand(in: "nothing to act on here") == nil)
        #expect(detector.endingCommand(in: "") == nil)
    }

    /// The command said last wins, whatever the contract's order of actions: earlier command words are text.
    @Test func theLastCommandIsTheOneThatEnds() throws {
        let text = "I said cancel the message earlier, but now send message."
        #expect(detector.detect(text)?.action == .cancel)
        let found = try #require(detector.endingCommand(in: text))
        #expect(found.action == .send)
        #expect(String(text[found.range]) == "send message")
        #expect(found.processedTranscript.hasPrefix("I said cancel the message earlier, but now <send-message"))
    }

    /// "send and close" is already a command; "the mic" makes it a longer one of the same action, never a mic-off.
    @Test func aPhraseThatGoesOnIntoALongerOneEndsWithTheLongerOne() {
        let found = detector.endingCommand(in: "Tell Sam the keys are under the mat, send and close the mic.")
        #expect(found?.action == .sendClose)
        #expect(found?.matchedPhrase == "send and close the mic")
        #expect(detector.endingCommand(in: "send a checkpoint message")?.matchedPhrase == "send a checkpoint message")
        #expect(detector.endingCommand(in: "send a checkpoint message now") == nil)
    }

    /// Each command's own words are found in the text itself, after words of any script before it (the place is
    /// counted in bytes of the text, not of a copy).
    @Test func eachCommandIsPlacedAtItsOwnWords() {
        let text = "Café à Zürich, déjà vu — send message. Ça va? Over and out."
        let places = detector.commandPlaces(in: text)
        #expect(places.map(\.action) == [.send, .sendClose])
        #expect(places.map { String(text[$0.words]) } == ["send message", "Over and out"])
        #expect(places.map { String(text[..<$0.end]).hasSuffix(".") } == [true, true])
        #expect(detector.endingPlace(in: text).map { String(text[$0.words]) } == "Over and out")
        #expect(detector.commandPlaces(in: "nothing to act on here").isEmpty)
    }
}
