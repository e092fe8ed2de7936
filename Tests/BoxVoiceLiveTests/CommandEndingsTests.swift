@testable import BoxVoiceLive
import Testing

/// Which command phrases are offered to Whisper in place of an utterance's last words.
@Suite struct CommandEndingsTests {
    static let pronunciations: [String: [String]] = [
        "dress": ["D", "R", "EH", "S"], "erase": ["IH", "R", "EY", "S"], "my": ["M", "AY"],
        "message": ["M", "EH", "S", "AH", "JH"], "start": ["S", "T", "AA", "R", "T"], "over": ["OW", "V", "ER"],
        "let": ["L", "EH", "T"], "me": ["M", "IY"], "then": ["DH", "EH", "N"], "lunch": ["L", "AH", "N", "CH"],
        "send": ["S", "EH", "N", "D"], "the": ["DH", "AH"], "wrong": ["R", "AO", "NG"], "day": ["D", "EY"],
        "mic": ["M", "IH", "K"], "off": ["AO", "F"], "abort": ["AH", "B", "AO", "R", "T"],
        "mica": ["M", "AY", "K", "AH"], "boiling": ["B", "OY", "L", "IH", "NG"],
    ]
    static let phrases = [
        "erase my message", "start over", "send message", "mic off", "abort message", "cancel message",
    ]

    private func endings(_ text: String, holdsCommand: Bool = false) -> [WhisperModel.Ending] {
        let sounds = SoundsLikeCommand(phrases: Self.phrases, pronunciations: Self.pronunciations, tolerance: 0.4)
        let ends = CommandEndings(sounds: sounds, holdsCommand: { _ in holdsCommand })
        return ends.endings(text.split(separator: " ").map(String.init))
    }

    @Test func lastWordsThatSoundLikeAPhraseAreOfferedItWrittenAsTheyWere() {
        let offered = endings("The wrong day. Dress my message.")
        #expect(offered.first == WhisperModel.Ending(keeping: 3, text: "Erase my message."))
    }

    /// A phrase with a word more than Whisper wrote ("let me start" for *start over*) is offered too.
    @Test func aPhraseLongerByAWordIsOffered() {
        let offered = endings("Let me start.")
        #expect(offered.contains(WhisperModel.Ending(keeping: 2, text: "start over.")))
    }

    @Test func onlyTheLastSentenceIsReplaced() {
        #expect(endings("Dress my message. Then lunch.").allSatisfy { $0.keeping >= 3 })
        #expect(endings("Dress my message. Then lunch.").isEmpty)
    }

    @Test func wordsHoldingACommandAreLeftAsWritten() {
        #expect(endings("The wrong day. Dress my message.", holdsCommand: true).isEmpty)
    }

    @Test func wordsThatSoundLikeNoPhraseAreLeftAsWritten() {
        #expect(endings("Then lunch.").isEmpty)
    }

    /// Words with no letters are not counted among the words a phrase replaces.
    @Test func theWordsKeptAreCountedAmongThoseWithLetters() {
        #expect(CommandEndings.keeping(["Dress", "my", "—", "message."], lastWords: 2) == 1)
        #expect(CommandEndings.keeping(["message."], lastWords: 2) == nil)
    }

    /// A word the dictionary has no sound for ("Mikoff.") is not judged by its letters: no phrase is offered.
    @Test func aWordTheDictionaryCannotSayIsNotOfferedAPhrase() {
        #expect(endings("Hang on, the kettle is boiling. Mikoff.").isEmpty)
    }

    /// A translation parts from the phrase in its first word, so it sounds like no phrase.
    @Test func aTranslationSpellsNoPhrase() {
        #expect(endings("Envoyer le message.").isEmpty)
        #expect(endings("Cancelar mensaje.").isEmpty)
    }
}
