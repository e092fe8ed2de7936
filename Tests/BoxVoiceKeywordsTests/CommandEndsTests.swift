import BoxVoiceKeywords
import BoxVoiceTestSupport
import Testing

/// An utterance decoded whole can hold several commands: it is split after each, in the order they were said, and a
/// phrase that contains another phrase wins as a whole (§4's longest match).
@Suite struct CommandEndsTests {
    static let vocabulary = try! Vocabulary.load(path: Checkout.keywordVocabulary)
    let detector = KeywordDetector(vocabulary: vocabulary)

    private func pieces(_ text: String) -> [String] {
        var from = text.startIndex
        var result: [String] = []
        for end in detector.commandEnds(in: text) + [text.endIndex] {
            result.append(text[from..<end].trimmingCharacters(in: .whitespaces))
            from = end
        }
        return result
    }

    @Test func eachCommandEndsItsPieceWithItsPunctuation() {
        #expect(
            pieces("Buy the wrong bread. Start over. Buy rye bread, send message. The letter is done, send checkpoint.")
                == [
                    "Buy the wrong bread. Start over.", "Buy rye bread, send message.",
                    "The letter is done, send checkpoint.",
                ])
    }

    @Test func wordsAfterTheLastCommandAreAPieceOfTheirOwn() {
        #expect(
            pieces("Call Anna, send message. And then the report") == [
                "Call Anna, send message.", "And then the report",
            ])
    }

    @Test func textWithOneCommandAtItsEndIsNotSplit() {
        #expect(detector.commandEnds(in: "Tell Sam the keys are under the mat, send and close the mic.").isEmpty)
        #expect(detector.commandEnds(in: "nothing to act on here").isEmpty)
        #expect(detector.commandEnds(in: "").isEmpty)
    }

    /// "send and close" is already a command; "the mic" makes it a longer one of the same action, never a mic-off.
    @Test func aPhraseThatGoesOnIntoALongerOneEndsWithTheLongerOne() {
        #expect(
            pieces("Keys under the mat, send and close the mic. Then more") == [
                "Keys under the mat, send and close the mic.", "Then more",
            ])
        #expect(pieces("send a checkpoint message now") == ["send a checkpoint message", "now"])
        let first = pieces("Keys under the mat, send and close the mic. Then more")[0]
        #expect(detector.detect(first)?.action == .sendClose)
    }

    /// The pieces hold every word of the text, in order.
    @Test func thePiecesHoldEveryWord() {
        let text = "start over start over, send message send now and then. Cancel message"
        #expect(pieces(text).joined(separator: " ").split(separator: " ") == text.split(separator: " "))
        #expect(pieces(text).map { detector.detect($0)?.action } == [.erase, .erase, .send, .send, .cancel])
    }
}
