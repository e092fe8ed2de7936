@testable import BoxVoiceLive
import Testing

/// When words written in another language spell an English command as an accent says it (`SpelledAlike`), and when
/// they are a translation that only shares its last word.
@Suite struct SpelledAlikeTests {
    let spelling = SpelledAlike.measured

    @Test func anAccentSpelledAsItSoundsSpellsTheCommand() {
        // Own-language decodes of development set k's Finnish, Latvian and Hungarian voices.
        #expect(spelling.spells("Stop listening", atEndOf: "Myponeis ringin, tone moment pläise, stoplistening."))
        #expect(spelling.spells("Abort message", atEndOf: "Ne vermint, desvoki saura, abort mēs suge."))
        #expect(spelling.spells("Cancel message", atEndOf: "Aktuaalyy, imiokalhe rinstean, kanseumessage."))
        #expect(spelling.spells("Abort message", atEndOf: "most az állat, a bort messzagget."))
        #expect(spelling.spells("over and out", atEndOf: "Tanks forloken pavterte katti soeken, overrunsout."))
    }

    /// Translations keep the phrase's last word ("message") and change its verb: the first word's letters part.
    @Test func aTranslationSharingOnlyTheLastWordDoesNot() {
        #expect(!spelling.spells("Send message", atEndOf: "Je vais envoyer le message."))
        #expect(!spelling.spells("Send message", atEndOf: "envoie le message"))
        #expect(!spelling.spells("Send checkpoint", atEndOf: "invia checkpoint"))
        #expect(!spelling.spells("Cancel message", atEndOf: "annuler le message"))
        #expect(!spelling.spells("Turn off the microphone", atEndOf: "spegni il microfono"))
    }

    /// The real foreign streams' own-language decodes, against the commands the English decode wrote nearest.
    @Test func ordinaryForeignSpeechSpellsNoCommand() {
        let spanish = "Presió dedos para llamar a la persona que envíé este mensaje."
        #expect(!spelling.spells("Send message", atEndOf: spanish))
        #expect(!spelling.spells("Start over", atEndOf: "suite à le prochain représentant disponible. Tant d'attente."))
        #expect(!spelling.spells("Clear message", atEndOf: "Cambiar a qué carpeta."))
    }

    @Test func eachShareBarsByItself() {
        // The verb is near (1 of 4 letters), but the whole is 5 of 11 letters away.
        #expect(!spelling.spells("Send message", atEndOf: "Sändmässä saa."))
        // The whole is near (3 of 14 letters), but all three are the verb's.
        #expect(!spelling.spells("Send checkpoint", atEndOf: "Il faut envoyer le checkpoint."))
        // Spanish keeps the verb's letters and is held by the whole alone: 4 of 13 letters away.
        #expect(!spelling.spells("Cancel message", atEndOf: "Hay que cancelar mensaje."))
    }

    /// Greek and Cyrillic letters are dropped, so such words spell nothing; empty text or command neither.
    @Test func lettersOutsideTheLatinAlphabetAndEmptyTextSpellNothing() {
        #expect(!spelling.spells("Abort message", atEndOf: "Ναι δέρνη, αβορτμές, σαγ"))
        #expect(!spelling.spells("Send message", atEndOf: "Отправить сообщение."))
        #expect(!spelling.spells("Send message", atEndOf: ""))
        #expect(!spelling.spells("", atEndOf: "send message"))
        #expect(!spelling.spells("...", atEndOf: "send message"))
    }

    @Test func onlyTheEndOfTheTextCounts() {
        #expect(spelling.spells("Send message", atEndOf: "Sendmessage."))
        #expect(!spelling.spells("Send message", atEndOf: "Sendmessage, ja sitten kahvia ja pullaa ja muuta."))
    }

    @Test func theSettingsBoundTheShares() {
        let strict = SpelledAlike(tolerance: 0.1, firstWord: 0.5)
        #expect(strict.spells("Abort message", atEndOf: "abort mēs suge"))  // 1 of 12 letters
        #expect(!strict.spells("Cancel message", atEndOf: "kanseumessage"))  // 3 of 13
        let strictVerb = SpelledAlike(tolerance: 0.3, firstWord: 0.3)
        #expect(!strictVerb.spells("Cancel message", atEndOf: "kanseumessage"))  // 3 of cancel's 6
        #expect(strictVerb.spells("Stop listening", atEndOf: "stoplisteni"))  // 2 of 13, none in stop
    }

    /// The alignment shares the edits out among the phrase's words and sums to the edit distance.
    @Test func editsAreSharedAmongThePhrasesWords() {
        func costs(_ heard: String, _ phrase: [String]) -> [Int] {
            SpelledAlike.editsByWord(Array(heard), against: phrase.map { Array($0) })
        }
        #expect(costs("kanseumessage", ["cancel", "message"]) == [3, 0])
        #expect(costs("lemessage", ["send", "message"]) == [3, 0])
        #expect(costs("sendmessage", ["send", "message"]) == [0, 0])
        #expect(costs("sendmessagexx", ["send", "message"]) == [0, 2])
        #expect(costs("xsend", ["send"]) == [1])
        #expect(costs("a", ["send", "message"]).reduce(0, +) == 10)
    }
}
