import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Testing

/// Whisper decodes each utterance alone, so a command whose first words ended the last utterance has passed none of
/// the checks a command Whisper wrote gets: it waits for the box's yes. pocketsphinx's text has no such checks, and a
/// command it cuts in two still acts as before.
@Suite struct CommandAcrossUtterancesTests {
    static let detector = KeywordDetector(vocabulary: try! Vocabulary.load(path: Checkout.keywordVocabulary))

    private func needsTheBox(_ text: String, after earlier: String, heardBy: HeardBy, unsure: Bool = false) throws
        -> Bool
    {
        var utterance = LiveUtterance(text: text, recognized: text, spots: [], end: 3, heardBy: heardBy)
        utterance.commandIsUnsure = unsure
        let found = try #require(Self.detector.detect(appending: text, to: earlier))
        return utterance.commandNeedsTheBox(found, after: earlier, detector: Self.detector)
    }

    @Test func aCommandWhisperReadAcrossTwoUtterancesNeedsTheBox() throws {
        // es2's false cancel: an Asterisk prompt's "…your messages." and the next one's "Cancel…".
        #expect(try needsTheBox("Cancel any moment.", after: "Press 1 to register your messages.", heardBy: .whisper))
        #expect(try needsTheBox("out.", after: "That is all. Over and", heardBy: .whisper))
    }

    @Test func aCommandWhisperWroteWithinOneUtteranceActsUnlessUnsure() throws {
        #expect(try !needsTheBox("Cancel the message.", after: "Press 1 to register.", heardBy: .whisper))
        #expect(try !needsTheBox("Send message.", after: "", heardBy: .whisper))
        #expect(try needsTheBox("Send message.", after: "Buy milk.", heardBy: .whisper, unsure: true))
    }

    @Test func pocketsphinxTextReadAcrossUtterancesActsAsBefore() throws {
        #expect(try !needsTheBox("out", after: "that is all over and", heardBy: .pocketsphinx))
        #expect(try !needsTheBox("out", after: "that is all over and", heardBy: .pocketsphinxInstead(.abandoned)))
    }
}
