import BoxVoiceKeywords
@testable import BoxVoiceLive
import BoxVoiceTestSupport
import Testing

/// How the accent check reads its English decode without the prompt (`UtteranceEnds.holds`), on what Whisper wrote
/// for the development sets' accented voices and for the held-out French telephone prompt it must not take.
@Suite struct AccentCheckTests {
    let detector: KeywordDetector
    let sounds: SoundsLikeCommand

    init() throws {
        let path = Checkout.root + "/Models/speech-keywords.en.txt"
        detector = try KeywordDetector(contentsOf: path)
        sounds = try SoundsLikeCommand(
            phrases: try Vocabulary.load(path: path).phrases.map { $0.joined(separator: " ") },
            dictionary: PocketSphinxModel.debianEnglish.dictionary, tolerance: 0.4)
    }

    private func holds(_ said: Set<KeywordAction>, _ text: String, sounding: Bool = true) -> Bool {
        UtteranceEnds.holds(
            said, in: text, places: { detector.commandPlaces(in: $0) }, sounds: sounding ? sounds : nil)
    }

    @Test func aCommandWrittenAgainHoldsIt() {
        #expect(holds([.sendCheckpoint], "The body figures form a shield right to me, send a checkpoint."))
        #expect(holds([.sendCheckpoint], "Send the checkpoint", sounding: false))
    }

    /// Words an accent leaves near the phrase at the end of the text hold it; without the sound match they do not.
    @Test func wordsThatSoundLikeTheCommandAtTheEndHoldIt() {
        let near = "The Bobbit figures form a shoot right to me, same that checkpoint."
        #expect(holds([.sendCheckpoint], near))
        #expect(!holds([.sendCheckpoint], near, sounding: false))
        #expect(holds([.sendCheckpoint], "Send the check byte."))
        #expect(!holds([.sendCheckpoint], "Send the check byte.", sounding: false))
    }

    /// Held-out French, *Tu vas crocher ?*, which the prompt had written as the mic-off command.
    @Test func foreignSpeechWrittenAsOtherWordsDoesNot() {
        #expect(!holds([.micOff], "I have a question."))
        #expect(!holds([.micOff], ""))
    }

    /// A command the prompt added beside the one said keeps the whole utterance waiting for the box.
    @Test func everyCommandSaidMustBeHeld() {
        let text = "We'll now move on to the first quarter. Send the checkpoint."
        #expect(holds([.sendCheckpoint], text))
        #expect(!holds([.micOff, .sendCheckpoint], text))
        #expect(!holds([.send], text), "another command than the one said")
        #expect(!holds([], text), "nothing to confirm")
    }
}
