@testable import BoxVoiceLive
import Testing

/// When a decode is ended as a loop: a run of one to three sentences written a third time in a row, never sooner.
@Suite struct SentenceLoopTests {
    @Test(arguments: [
        "Send message. Send message. Send message.",
        "Stop listening. stop listening! Stop, listening.",
        "Buy milk. Send message. Buy milk. Send message. Buy milk. Send message.",
        "A. B. C. A. B. C. A. B. C.",
        "Call Anna first. Go. Go. Go.",
    ])
    func aRunWrittenAThirdTimeInARowIsALoop(_ text: String) {
        #expect(SentenceLoop.endsInLoop(text))
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
