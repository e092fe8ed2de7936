@testable import BoxVoiceLive
import Testing

/// When a decode is ended as a loop: a run of one to three sentences written a third time in a row, never sooner; a
/// run of the prompt's sentences at its second writing.
@Suite struct SentenceLoopTests {
    /// The keys of a prompt's sentences, as `WhisperModel.transcribe` hands them to the check.
    static let prompt = Set(SentenceLoop.sentenceKeys("Send message. Over and out. Cancel message. Start over."))

    @Test(arguments: [
        "Send message. Send message. Send message.",
        "Stop listening. stop listening! Stop, listening.",
        "Buy milk. Send message. Buy milk. Send message. Buy milk. Send message.",
        "A. B. C. A. B. C. A. B. C.",
        "Call Anna first. Go. Go. Go.",
    ])
    func aRunWrittenAThirdTimeInARowIsALoop(_ text: String) {
        #expect(SentenceLoop.endsInLoop(text))
        #expect(SentenceLoop.endsInLoop(text, prompt: Self.prompt))
    }

    @Test(arguments: [
        "Send message. Send message.",
        "Buy milk. Send message. send message!",
        "Over and out. Start over. Over and out. Start over.",
    ])
    func aRunOfThePromptsSentencesWrittenASecondTimeIsALoop(_ text: String) {
        #expect(SentenceLoop.endsInLoop(text, prompt: Self.prompt))
        #expect(!SentenceLoop.endsInLoop(text), "without the prompt, the second writing is no loop")
    }

    @Test(arguments: [
        "Send message.",
        // Not all of the run is the prompt's: a person may say it twice.
        "Buy milk. Send message. Buy milk. Send message.",
        "Stop. Stop.",
        "Send message. Over and out.",
        // The second writing is not finished yet.
        "Send message. Send message",
    ])
    func otherTextIsNoLoopWithThePromptEither(_ text: String) {
        #expect(!SentenceLoop.endsInLoop(text, prompt: Self.prompt))
    }

    @Test(arguments: [
        "",
        "Send message.",
        "Stop. Stop.",
        // A person may say a sentence twice and go on.
        "Stop. Stop. Cancel message.",
        // The third writing is not finished yet: the decode goes on.
        "Send message. Send message. Send message",
        "Send message. Send message. Send mess",
        "Go. Stay. Go. Stay. Go.",
        "A. B. C. D. A. B. C. D. A. B. C. D.",
        "Buy milk. Send message. Send message. Buy milk.",
        // Punctuation alone is no sentence.
        "... ... ...",
    ])
    func otherTextIsNoLoop(_ text: String) {
        #expect(!SentenceLoop.endsInLoop(text))
    }

    @Test func sentencesAreComparedByTheirLettersAndDigitsOnly() {
        #expect(
            SentenceLoop.sentenceKeys("Room 4, please. ROOM 4 please! ... Then") == [
                "room4please", "room4please", "then",
            ])
    }
}
