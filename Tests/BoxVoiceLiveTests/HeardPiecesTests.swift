import BoxVoiceKeywords
import Foundation
@testable import BoxVoiceLive
import BoxVoiceTestSupport
import Testing

/// An utterance Whisper heard whole is cut after its command, and the command is decided on one score: the phrase as
/// the last words against Whisper's own best words without the prompt.
@Suite struct HeardPiecesTests {
    static let detector = KeywordDetector(vocabulary: try! Vocabulary.load(path: Checkout.keywordVocabulary))
    let decision = CommandDecision(surenessWeight: 0.5, act: -0.5, ask: -2)

    /// Words as Whisper writes them: text, the shortfall weighed without the prompt (nil: not weighed) and tokens,
    /// each written with `sureness`.
    private func words(_ spelled: [(String, Float?, Int)], sureness: Float = 1) -> [WhisperModel.TimedWord] {
        spelled.enumerated().map { index, word in
            WhisperModel.TimedWord(
                text: word.0, start: Double(index), end: Double(index) + 0.5, probability: sureness,
                promptFreeShortfall: word.1, tokenCount: word.2)
        }
    }

    private func pieces(
        _ spelled: [(String, Float?, Int)], sureness: Float = 1, end: Float? = 0, english: Float? = nil,
        foreign: Bool = false
    ) -> [HeardPieces.Piece] {
        HeardPieces.pieces(
            of: words(spelled, sureness: sureness), places: { Self.detector.commandPlaces(in: $0) }, decision: decision,
            english: english, language: foreign ? "fr" : "en", foreign: foreign, endShortfall: end)
    }

    /// The mean over the command's tokens and the end of the text of how far each fell short, negated.
    @Test func theScoreIsTheMeanShortfallPerTokenWithTheEndOfTheText() {
        let command = words([("send", 0.5, 1), ("message.", 1.0, 2)])
        #expect(HeardPieces.score(of: command, endShortfall: 0.5) == -0.5)
        #expect(HeardPieces.score(of: words([("send", 0, 1), ("message.", 0, 2)]), endShortfall: 0) == 0)
        #expect(HeardPieces.score(of: command, endShortfall: nil) == nil, "the end not weighed")
        #expect(HeardPieces.score(of: words([("send", nil, 1), ("message.", 0, 1)]), endShortfall: 0) == nil)
    }

    @Test func aCommandWhisperWouldWriteItselfActsAsHeard() {
        let heard = pieces([("Buy", 0, 1), ("milk,", 0, 2), ("send", 0, 1), ("message.", 0.3, 2)], end: 0.1)
        let whole = "Buy milk, send message."
        #expect(heard.map(\.text) == [whole])
        #expect(heard.map(\.recognized) == [whole])
        #expect(heard.map(\.unsure) == [false])
        #expect(heard.first?.doubt == nil)
        #expect(heard.map(\.lastCommandWord) == [3])
        #expect(abs((heard.first?.weighing?.score ?? 0) - (-0.1)) < 1e-6, "(0 + 0.3 + 0.1) / 4 tokens")
        // The evidence `listen` shows beside it: the score and half the log of the sureness (1 here).
        #expect(heard.first?.weighing?.evidence.map { abs($0 - -0.1) < 1e-6 } == true)
    }

    /// Between the lines the box is asked, the doubt naming the score and the act line; the words before the command
    /// are what stays when it is not confirmed.
    @Test func aCommandBetweenTheLinesIsAskedOfTheBoxAndItsWordsAreLeftOut() {
        let heard = pieces([("Do", 0, 1), ("you,", 0, 1), ("send", 2, 1), ("message.", 1, 1)], end: 0)
        #expect(heard.map(\.text) == ["Do you, send message."])
        #expect(heard.map(\.recognized) == ["Do you,"])
        #expect(heard.map(\.unsure) == [true])
        #expect(heard.map(\.worthAsking) == [true])
        #expect(heard.first?.doubt == .unsure(score: -1, threshold: -0.5))
    }

    /// The same words written unsurely with the prompt fall from acting to asking: the prompt's sureness counts too.
    @Test func aCommandWrittenUnsurelyWithThePromptIsAsked() throws {
        let sure = pieces([("Send", 0, 1), ("message.", 0, 1)], sureness: 1)
        let unsure = pieces([("Send", 0, 1), ("message.", 0, 1)], sureness: 0.1)
        #expect(sure.first?.doubt == nil)
        #expect(unsure.first?.worthAsking == true)
        let evidence = try #require(unsure.first?.doubt?.score)
        #expect(abs(evidence.value - 0.5 * log(0.1)) < 1e-6)
        #expect(evidence.threshold == -0.5)
    }

    @Test func aCommandUnderTheAskLineIsRefusedUnasked() {
        let heard = pieces([("Over", 6, 1), ("and", 4, 1), ("out.", 5, 1)], end: 1)
        #expect(heard.map(\.unsure) == [true])
        #expect(heard.map(\.worthAsking) == [false])
        #expect(heard.first?.doubt == .unsure(score: -4, threshold: -0.5))
        #expect(heard.map(\.recognized) == [""])
    }

    /// Only the utterance's last words are a command's: one followed by more words is not scored, so it never acts
    /// alone; words not weighed at all are asked of the box the same way.
    @Test func aCommandThatIsNotTheLastWordsOrNotWeighedIsNeverActedOnAlone() {
        let inside = pieces([("Send", 0, 1), ("message", 0, 1), ("to", 0, 1), ("Anna.", 0, 1)])
        #expect(inside.first?.doubt == .unscored)
        #expect(inside.first?.unsure == true)
        let notWeighed = pieces([("Send", nil, 1), ("message.", nil, 1)], end: nil)
        #expect(notWeighed.first?.doubt == .unscored)
        #expect(notWeighed.first?.worthAsking == true)
    }

    @Test func wordsWithoutACommandAreOnePieceAndNothingIsNoPiece() {
        #expect(
            pieces([("Nothing", 0, 1), ("here.", 0, 1)]) == [
                .init(text: "Nothing here.", withoutCommand: "Nothing here.", lastCommandWord: nil)
            ])
        #expect(pieces([]).isEmpty)
    }

    /// A command that would act, in an utterance judged foreign, is unsure for the language; under the line, its
    /// evidence is the doubt named.
    @Test func aForeignCommandIsUnsureAndNamesItsDoubt() {
        let sure = pieces([("Send", 0, 1), ("message.", 0, 1)], english: 0.01, foreign: true)
        #expect(sure.map(\.unsure) == [true])
        #expect(sure.first?.doubt == .foreign(language: "fr", english: Double(Float(0.01))))
        let doubtful = pieces([("Send", 3, 1), ("message.", 3, 1)], english: 0.01, foreign: true)
        #expect(doubtful.first?.doubt == .unsure(score: -2, threshold: -0.5))
    }

    @Test func theEnglishFloorJudgesAnUtteranceForeign() {
        #expect(HeardPieces.soundsForeign(english: 0.2, floor: 0.5))
        #expect(!HeardPieces.soundsForeign(english: 0.5, floor: 0.5), "the floor itself is English enough")
        #expect(!HeardPieces.soundsForeign(english: nil, floor: 0.5), "not weighed: not judged")
        #expect(!HeardPieces.soundsForeign(english: 0.2, floor: nil), "no floor: not asked")
    }
}
