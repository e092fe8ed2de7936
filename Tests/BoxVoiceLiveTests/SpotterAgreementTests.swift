import BoxVoiceKeywords
@testable import BoxVoiceLive
import BoxVoiceTestSupport
import Testing

/// When the spotter's hit confirms a command Whisper was unsure of (`SpotterAgreement`): the same action, as the
/// command ended.
@Suite struct SpotterAgreementTests {
    let detector: KeywordDetector
    let agreement = SpotterAgreement(tail: 1.0, after: 0.3)

    init() throws {
        detector = try KeywordDetector(contentsOf: Checkout.root + "/Models/speech-keywords.en.txt")
    }

    private func confirms(_ action: KeywordAction, endingAt end: Double, _ hits: [(String, Double)]) -> Bool {
        agreement.confirms(
            action, endingAt: end, hits: hits.map { SpottedPhrase(phrase: $0.0, end: $0.1, accepted: false) }
        ) { detector.commandPlaces(in: $0).first?.action }
    }

    @Test func aHitOnTheSameCommandAsItEndsConfirmsIt() {
        #expect(confirms(.send, endingAt: 5.8, [("send message", 5.5)]))
        #expect(confirms(.sendClose, endingAt: 5.6, [("send and close", 5.6)]))
        // The spotter's other phrasing of the same command counts: its own words need not be Whisper's.
        #expect(confirms(.sendClose, endingAt: 4.8, [("over and out", 4.2)]))
        #expect(confirms(.send, endingAt: 5.8, [("send now", 5.2)]))
    }

    /// Either recognizer can mistake one send phrase for another; an action the spotter did not hear is not
    /// confirmed, whichever other hits came with it.
    @Test func aHitOnAnotherCommandConfirmsNothing() {
        #expect(!confirms(.sendCheckpoint, endingAt: 6.0, [("send now", 5.7)]))
        #expect(!confirms(.micOff, endingAt: 5.0, [("over and out", 4.7)]))
        #expect(!confirms(.cancel, endingAt: 4.6, [("send message", 4.4), ("start over", 4.5)]))
        #expect(!confirms(.send, endingAt: 5.0, []))
    }

    /// A hit earlier in the utterance is the spotter firing on ordinary words, not on the command that ends it; one
    /// long after is another utterance's.
    @Test func aHitFarFromTheCommandsEndConfirmsNothing() {
        #expect(!confirms(.send, endingAt: 8.0, [("send message", 6.5)]))
        #expect(confirms(.send, endingAt: 8.0, [("send message", 7.0)]))
        #expect(!confirms(.send, endingAt: 8.0, [("send message", 8.5)]))
        #expect(confirms(.send, endingAt: 8.0, [("send message", 8.3)]))
    }

    /// A phrase that is no command (the spotter file is edited by hand) confirms nothing.
    @Test func aHitThatIsNoCommandConfirmsNothing() {
        #expect(!confirms(.send, endingAt: 5.0, [("hello there", 4.8)]))
    }

    /// The close command's piece as `HeardPieces` decides it, its three words weighed each `shortfall` short of
    /// Whisper's own without the prompt (nil: not weighed), in an utterance judged foreign or not.
    private func piece(_ shortfall: Float?, foreign: Bool = true) throws -> HeardPieces.Piece {
        let words = ["Send", "and", "close."].enumerated().map { index, text in
            WhisperModel.TimedWord(
                text: text, start: Double(index), end: Double(index) + 0.5, promptFreeShortfall: shortfall)
        }
        let pieces = HeardPieces.pieces(
            of: words, places: { detector.commandPlaces(in: $0) },
            decision: CommandDecision(surenessWeight: 0, act: -0.5, ask: -2), english: 0.02, language: "fi",
            foreign: foreign, endShortfall: 0)
        return try #require(pieces.first { $0.action == .sendClose })
    }

    private func confirms(_ piece: HeardPieces.Piece, _ hits: [(String, Double)]) -> Bool {
        agreement.confirms(
            piece, endingAt: 6.0, hits: hits.map { SpottedPhrase(phrase: $0.0, end: $0.1, accepted: false) }
        ) { detector.commandPlaces(in: $0).first?.action }
    }

    /// A command whose score would act, left unsure for the language Whisper judged, is confirmed by the spotter;
    /// one under the act line, or not weighed, is not the spotter's to confirm (the prompt may have made it).
    @Test func onlyACommandOverTheActLineIsConfirmed() throws {
        #expect(confirms(try piece(0.1), [("send and close", 5.8)]))
        #expect(!confirms(try piece(2), [("send and close", 5.2)]))
        #expect(!confirms(try piece(nil), [("send and close", 5.8)]), "not weighed: never acts alone")
    }

    /// A sure command needs nothing, and words without a command have nothing to confirm.
    @Test func onlyAnUnsureCommandIsConfirmed() throws {
        let sure = try piece(0, foreign: false)
        #expect(!sure.unsure && !confirms(sure, [("send and close", 5.8)]))
        let words = HeardPieces.Piece(text: "Thanks.", withoutCommand: "Thanks.", lastCommandWord: nil)
        #expect(!confirms(words, [("send and close", 5.8)]))
    }
}
