import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Testing

/// An utterance's command is the words it ends on, and only where it ended at the speaker's pause: the answer does
/// not depend on whose words they are or on what the message held before.
@Suite struct CommandAtPauseTests {
    static let detector = KeywordDetector(vocabulary: try! Vocabulary.load(path: Checkout.keywordVocabulary))

    private func utterance(_ text: String, atPause: Bool = true, heardBy: HeardBy = .whisper) -> LiveUtterance {
        var utterance = LiveUtterance(text: text, recognized: text, spots: [], end: 3, heardBy: heardBy)
        utterance.endsAtPause = atPause
        return utterance
    }

    @Test func theWordsEndingAnUtteranceAtAPauseAreItsCommand() {
        for heardBy in [HeardBy.whisper, .pocketsphinx, .pocketsphinxInstead(.abandoned)] {
            let heard = utterance("Buy milk, send message.", heardBy: heardBy)
            #expect(heard.endingCommand(Self.detector)?.action == .send)
        }
        #expect(utterance("Over and out").endingCommand(Self.detector)?.action == .sendClose)
    }

    @Test func commandWordsInsideTheUtteranceAreText() {
        let landlord = utterance("I forgot to send the message to the landlord yesterday.")
        #expect(landlord.endingCommand(Self.detector) == nil)
        #expect(utterance("Start over with the design, it confused everyone.").endingCommand(Self.detector) == nil)
        // Half a command at the end of one utterance and the rest in the next is no command either.
        #expect(utterance("that is all, over and").endingCommand(Self.detector) == nil)
        #expect(utterance("out").endingCommand(Self.detector) == nil)
    }

    /// Cut at a breath or at the longest utterance, the speaker had not stopped: the same words are text.
    @Test func anUtteranceCutWithoutAPauseCarriesNoCommand() {
        #expect(utterance("Buy milk, send message", atPause: false).endingCommand(Self.detector) == nil)
    }
}
