import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Testing

/// Whisper decodes each utterance alone, so a command whose first words ended the last utterance has passed none of
/// the checks a command Whisper wrote gets: it is unsure (it waits for the box's yes) and its words are left out. A
/// command pocketsphinx's text holds across two utterances has no such checks to miss, and acts as before.
@Suite struct CommandAcrossUtterancesTests {
    static let detector = KeywordDetector(vocabulary: try! Vocabulary.load(path: Checkout.keywordVocabulary))

    private func judged(_ text: String, after earlier: String, heardBy: HeardBy, unsure: Bool = false) throws
        -> LiveUtterance
    {
        var utterance = LiveUtterance(text: text, recognized: text, spots: [], end: 3, heardBy: heardBy)
        utterance.commandIsUnsure = unsure
        let found = try #require(Self.detector.detect(appending: text, to: earlier))
        return utterance.judged(found, after: earlier, detector: Self.detector)
    }

    @Test func aCommandWhisperReadAcrossTwoUtterancesIsUnsureAndItsWordsAreLeftOut() throws {
        // es2's false cancel: an Asterisk prompt's "…your messages." and the next one's "Cancel…".
        let cancel = try judged(
            "Cancel at any moment. Increasing number.", after: "Press 1 to register your messages.",
            heardBy: .whisper)
        #expect(cancel.commandIsUnsure)
        #expect(cancel.recognized == "at any moment. Increasing number.")
        #expect(cancel.text == "Cancel at any moment. Increasing number.")
        // What is kept no longer holds the command with the words before it.
        #expect(Self.detector.detect("Press 1 to register your messages. " + cancel.recognized) == nil)
        let paused = try judged("Message.", after: "Buy milk. Send.", heardBy: .whisper)
        #expect(paused.commandIsUnsure)
        #expect(paused.recognized.isEmpty)
    }

    @Test func aCommandWhisperWroteWithinOneUtteranceIsLeftAsItWas() throws {
        let sure = try judged("Cancel the message.", after: "Press 1 to register.", heardBy: .whisper)
        #expect(!sure.commandIsUnsure)
        #expect(sure.recognized == "Cancel the message.")
        let first = try judged("Send message.", after: "", heardBy: .whisper)
        #expect(!first.commandIsUnsure)
        var unsure = LiveUtterance(text: "Send message.", recognized: "", spots: [], end: 3, heardBy: .whisper)
        unsure.commandIsUnsure = true
        let found = try #require(Self.detector.detect(appending: unsure.text, to: "Buy milk."))
        #expect(unsure.judged(found, after: "Buy milk.", detector: Self.detector) == unsure)
    }

    @Test func pocketsphinxTextReadAcrossUtterancesActsAsBefore() throws {
        for heardBy in [HeardBy.pocketsphinx, .pocketsphinxInstead(.abandoned)] {
            let over = try judged("out", after: "that is all over and", heardBy: heardBy)
            #expect(!over.commandIsUnsure)
            #expect(over.recognized == "out")
        }
    }
}
