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

    /// Each command's own words are found in the text itself, after words of any script before it (the place is
    /// counted in bytes of the text, not of a copy).
    @Test func eachCommandIsPlacedAtItsOwnWords() {
        let text = "Café à Zürich, déjà vu — send message. Ça va? Over and out."
        let places = detector.commandPlaces(in: text)
        #expect(places.map(\.action) == [.send, .sendClose])
        #expect(places.map { String(text[$0.words]) } == ["send message", "Over and out"])
        #expect(places.map(\.matchedPhrase) == ["send message", "Over and out"])
        #expect(places.map { String(text[..<$0.end]).hasSuffix(".") } == [true, true])
        #expect(detector.commandPlaces(in: "nothing to act on here").isEmpty)
    }

    /// The longer phrase of the same action is one place, not a close and then a mic-off.
    @Test func aLongerPhraseIsOnePlace() {
        let text = "Tell Sam the keys are under the mat, send and close the mic."
        let places = detector.commandPlaces(in: text)
        #expect(places.count == 1)
        #expect(places.first.map { String(text[$0.words]) } == "send and close the mic")
        #expect(places.first?.action == .sendClose)
    }
}
