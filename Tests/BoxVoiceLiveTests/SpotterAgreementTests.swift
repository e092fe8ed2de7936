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
}
