import BoxVoiceKeywords
@testable import BoxVoiceLive
import BoxVoiceTestSupport
import Testing

/// The contract spells *nevermind* and *checkpoint* as one word; Whisper often writes them as two. Joined back only
/// where that makes a command, so ordinary speech keeps Whisper's spelling.
@Suite struct WrittenApartTests {
    static let detector = KeywordDetector(vocabulary: try! Vocabulary.load(path: Checkout.keywordVocabulary))
    static let apart = WrittenApart(vocabulary: detector.vocabulary.words) { detector.commandPlaces(in: $0).count }

    private func words(_ spelled: [(String, Float)]) -> [WhisperModel.TimedWord] {
        spelled.enumerated().map { index, word in
            WhisperModel.TimedWord(
                text: word.0, start: Double(index), end: Double(index) + 0.5, probability: word.1,
                promptFreeShortfall: 1 - word.1, tokenCount: 1)
        }
    }

    private func joined(_ spelled: [(String, Float)]) -> [WhisperModel.TimedWord] {
        Self.apart.joined(words(spelled))
    }

    @Test func aCommandsWordWrittenAsTwoIsJoinedIntoTheCommand() {
        let heard = joined([
            ("In", 0.9), ("person.", 0.9), ("Never", 0.8), ("mind", 0.6), ("the", 0.9), ("message.", 0.9),
        ])
        #expect(UtteranceEnds.text(heard) == "In person. Nevermind the message.")
        #expect(Self.detector.detect(UtteranceEnds.text(heard))?.action == .cancel)
        // The joined word spans both, is as sure as the less sure of them, and falls as short without the prompt as
        // both together, over the tokens of both.
        let joinedWord = heard[2]
        #expect(joinedWord.start == 2 && joinedWord.end == 3.5)
        #expect(joinedWord.probability == 0.6)
        #expect(abs((joinedWord.promptFreeShortfall ?? 0) - 0.6) < 1e-6 && joinedWord.tokenCount == 2)
    }

    /// What decides whether a decode is weighed again without the prompt and for its language sees the join too.
    @Test func textWithoutTimesIsJoinedAlike() {
        #expect(Self.apart.joined("Oh, never mind the message.") == "Oh, nevermind the message.")
        #expect(
            Self.apart.joined("Never mind, I will check point by point.")
                == "Never mind, I will check point by point.")
    }

    @Test func theCheckpointWrittenAsTwoIsJoinedIntoItsCommand() {
        let heard = joined([("Add", 0.9), ("check", 0.7), ("point.", 0.8)])
        #expect(UtteranceEnds.text(heard) == "Add checkpoint.")
        #expect(Self.detector.detect(UtteranceEnds.text(heard))?.action == .sendCheckpoint)
    }

    @Test func wordsWrittenApartInOrdinarySpeechKeepWhispersSpelling() {
        let spelled: [(String, Float)] = [
            ("Never", 0.9), ("mind,", 0.9), ("I", 0.9), ("will", 0.9), ("check", 0.9), ("point", 0.9),
            ("by", 0.9), ("point.", 0.9),
        ]
        #expect(joined(spelled) == words(spelled))
    }

    /// A comma or full stop between the two says they were said apart.
    @Test func wordsPartedByPunctuationAreNotJoined() {
        let spelled: [(String, Float)] = [("Never.", 0.9), ("Mind", 0.9), ("the", 0.9), ("message.", 0.9)]
        #expect(joined(spelled) == words(spelled))
    }

    /// A command already there is not made a second time by a join that only repeats where one is.
    @Test func aJoinThatAddsNoCommandIsLeftOut() {
        let spelled: [(String, Float)] = [("Cancel", 0.9), ("message,", 0.9), ("never", 0.9), ("mind.", 0.9)]
        #expect(joined(spelled) == words(spelled))
    }

    /// Short words ("mic", "send") are words of their own when written apart: no join makes them.
    @Test func onlyTheVocabularysLongerWordsAreJoinable() {
        #expect(Self.apart.joinable.contains("nevermind"))
        #expect(Self.apart.joinable.contains("checkpoint"))
        #expect(!Self.apart.joinable.contains("mic"))
        #expect(!Self.apart.joinable.contains("send"))
    }
}
