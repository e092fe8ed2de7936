import BoxVoiceKeywords
@testable import BoxVoiceLive
import BoxVoiceTestSupport
import Testing

/// An utterance Whisper heard whole is cut after each command, and a command Whisper was unsure of is marked so
/// that only the box's yes makes it act.
@Suite struct HeardPiecesTests {
    static let detector = KeywordDetector(vocabulary: try! Vocabulary.load(path: Checkout.keywordVocabulary))

    private func words(_ spelled: [(String, Float)]) -> [WhisperModel.TimedWord] {
        spelled.enumerated().map { index, word in
            WhisperModel.TimedWord(
                text: word.0, start: Double(index), end: Double(index) + 0.5, probability: word.1)
        }
    }

    private func pieces(_ spelled: [(String, Float)], floor: Float = 0.34) -> [HeardPieces.Piece] {
        HeardPieces.pieces(of: words(spelled), places: { Self.detector.commandPlaces(in: $0) }, floor: floor)
    }

    @Test func aCommandWrittenWithConfidenceActsAsHeard() {
        let heard = pieces([("Buy", 0.9), ("milk,", 0.8), ("send", 0.95), ("message.", 0.7)])
        let whole = "Buy milk, send message."
        #expect(heard.map(\.text) == [whole])
        #expect(heard.map(\.recognized) == [whole])
        #expect(heard.map(\.unsure) == [false])
        #expect(heard.map(\.lastCommandWord) == [3])
        // The command's own words only: "send" and "message.".
        #expect(abs((heard.first?.sureness ?? 0) - (0.95 * 0.7 as Float).squareRoot()) < 1e-4)
    }

    /// A phrase doubtful throughout is unsure; one doubtful word in a phrase written with confidence is not. Its
    /// words are left out of what stays when it is not confirmed.
    @Test func aCommandIsAsSureAsItsWordsTogetherAndAnUnsureOnesWordsAreLeftOut() {
        let heard = pieces([("Do", 0.2), ("you,", 0.1), ("send", 0.3), ("message.", 0.3)])
        #expect(heard.map(\.text) == ["Do you, send message."])
        #expect(heard.map(\.recognized) == ["Do you,"])
        #expect(heard.map(\.unsure) == [true])
        #expect(heard.map(\.lastCommandWord) == [3])
        #expect(abs((heard.first?.sureness ?? 1) - 0.3) < 1e-4)
        let oneDoubt = pieces([("Do", 0.2), ("you,", 0.1), ("send", 0.2), ("message.", 0.9)])
        #expect(oneDoubt.map(\.unsure) == [false])
        #expect(abs(HeardPieces.sureness(of: words([("a", 0.2), ("b", 0.8)])) - 0.4) < 1e-6)
        #expect(HeardPieces.sureness(of: []) == 1)
    }

    /// Each command is judged by its own words: a sure one and an unsure one in one utterance.
    @Test func eachCommandInAnUtteranceIsJudgedOnItsOwn() {
        let heard = pieces([
            ("Start", 0.9), ("over.", 0.9), ("Call", 0.9), ("Anna,", 0.9), ("send", 0.1), ("message.", 0.9),
            ("Then", 0.9), ("rest.", 0.9),
        ])
        #expect(heard.map(\.text) == ["Start over.", "Call Anna, send message.", "Then rest."])
        #expect(heard.map(\.unsure) == [false, true, false])
        #expect(heard.map(\.recognized) == ["Start over.", "Call Anna,", "Then rest."])
        #expect(heard.map(\.lastCommandWord) == [1, 5, nil])
        #expect(heard.map { $0.sureness == nil } == [false, false, true], "the words after the last command have none")
    }

    @Test func wordsWithoutACommandAreOnePieceAndNothingIsNoPiece() {
        #expect(
            pieces([("Nothing", 0.1), ("here.", 0.1)]) == [
                .init(text: "Nothing here.", withoutCommand: "Nothing here.", lastCommandWord: nil)
            ])
        #expect(pieces([]).isEmpty)
    }

    /// A floor of zero takes every command Whisper writes (the road before the floor).
    @Test func aFloorOfZeroTrustsEveryCommand() {
        #expect(pieces([("Send", 0.01), ("message.", 0.01)], floor: 0).map(\.unsure) == [false])
    }

    /// A command Whisper wrote with confidence whose words are unlikely once the prompt is taken away is unsure: the
    /// prompt, not the audio, made it. Its words are left out of what stays. Words not weighed so are judged by
    /// their sureness alone, and each command by its own words.
    @Test func aCommandOnlyThePromptMadeLikelyIsUnsureAndItsWordsAreLeftOut() {
        func weighed(_ spelled: [(String, Float, Float?)]) -> [WhisperModel.TimedWord] {
            spelled.enumerated().map { index, word in
                WhisperModel.TimedWord(
                    text: word.0, start: Double(index), end: Double(index) + 0.5, probability: word.1,
                    promptFreeProbability: word.2)
            }
        }
        func judged(_ words: [WhisperModel.TimedWord], promptFreeFloor: Float? = 0.02) -> [HeardPieces.Piece] {
            HeardPieces.pieces(
                of: words, places: { Self.detector.commandPlaces(in: $0) }, floor: 0.34,
                promptFreeFloor: promptFreeFloor)
        }
        let auRevoir = weighed([("Over", 0.7, 0.01), ("and", 0.8, 0.02), ("out.", 0.9, 0.005)])
        let heard = judged(auRevoir)
        #expect(heard.map(\.unsure) == [true])
        #expect(heard.map(\.recognized) == [""])
        #expect(abs((heard.first?.promptFreeSureness ?? 1) - 0.01) < 1e-4, "the geometric mean of 0.01, 0.02, 0.005")
        #expect(judged(auRevoir, promptFreeFloor: nil).map(\.unsure) == [false], "no prompt-free floor: sure")
        #expect(judged(auRevoir, promptFreeFloor: 0.009).map(\.unsure) == [false], "just over a lower floor")
        let notWeighed = weighed([("Over", 0.7, nil), ("and", 0.8, nil), ("out.", 0.9, nil)])
        #expect(judged(notWeighed).map(\.unsure) == [false])
        #expect(judged(notWeighed).first?.promptFreeSureness == nil)
        let two = judged(
            weighed([
                ("Buy", 0.9, 0.9), ("milk,", 0.9, 0.9), ("send", 0.9, 0.5), ("message.", 0.9, 0.4),
                ("Over", 0.7, 0.01), ("and", 0.8, 0.02), ("out.", 0.9, 0.005),
            ]))
        #expect(two.map(\.unsure) == [false, true])
        #expect(two.map(\.recognized) == ["Buy milk, send message.", ""])
    }

    /// A command in an utterance Whisper finds unlikely to be English is unsure, however sure Whisper was of its words:
    /// the English floor applies to every command of the utterance, and an utterance not weighed so is judged by its
    /// words alone.
    @Test func aCommandInSpeechWhisperHearsAsAnotherLanguageIsUnsure() {
        func judged(english: Float?, floor: Float? = 0.5) -> [HeardPieces.Piece] {
            HeardPieces.pieces(
                of: words([
                    ("Buy", 0.9), ("milk,", 0.9), ("send", 0.9), ("message.", 0.9), ("Over", 0.8), ("and", 0.8),
                    ("out.", 0.8),
                ]),
                places: { Self.detector.commandPlaces(in: $0) }, floor: 0.34, english: english,
                foreign: HeardPieces.soundsForeign(english: english, floor: floor))
        }
        let french = judged(english: 0.2)
        #expect(french.map(\.unsure) == [true, true])
        #expect(french.map(\.recognized) == ["Buy milk,", ""])
        #expect(french.map(\.english) == [0.2, 0.2])
        #expect(judged(english: 0.7).map(\.unsure) == [false, false])
        #expect(judged(english: 0.5).map(\.unsure) == [false, false], "the floor itself is English enough")
        #expect(judged(english: nil).map(\.unsure) == [false, false], "not weighed: the words decide")
        #expect(judged(english: 0.2, floor: nil).map(\.unsure) == [false, false], "no floor: not asked")
        #expect(french.map(\.unsureOnlyForTheLanguage) == [true, true], "both over the floor")
        #expect(judged(english: 0.7).map(\.unsureOnlyForTheLanguage) == [false, false], "sure: nothing to answer")
    }

    /// A command under a floor in an utterance judged foreign is unsure for its weights too: the language is not the
    /// only doubt, so the spotter's agreement does not answer it (`SpotterAgreement`).
    @Test func aForeignCommandUnderAFloorIsNotUnsureOnlyForTheLanguage() {
        let heard = HeardPieces.pieces(
            of: words([
                ("Buy", 0.9), ("milk,", 0.9), ("send", 0.2), ("message.", 0.2), ("Over", 0.8), ("and", 0.8),
                ("out.", 0.8),
            ]),
            places: { Self.detector.commandPlaces(in: $0) }, floor: 0.34, english: 0.01, foreign: true)
        #expect(heard.map(\.unsure) == [true, true])
        #expect(heard.map(\.unsureOnlyForTheLanguage) == [false, true])
    }
}

/// In audio Whisper judges plainly English, a command Whisper wrote with confidence needs only the lower prompt-free
/// floor; the same words in audio less English, less sure, or not weighed for its language are left for the box.
@Suite struct PlainEnglishTests {
    private func judged(
        sureness: Float, promptFree: Float?, english: Float?,
        plainEnglish: LiveTranscriber.PlainEnglish? = .measured, foreign: Bool = false
    ) -> Bool {
        let words = [("Send", sureness), ("message.", sureness)].enumerated().map { index, word in
            WhisperModel.TimedWord(
                text: word.0, start: Double(index), end: Double(index) + 0.5, probability: word.1,
                promptFreeProbability: promptFree)
        }
        let pieces = HeardPieces.pieces(
            of: words, places: { HeardPiecesTests.detector.commandPlaces(in: $0) }, floor: 0.34,
            promptFreeFloor: 0.011, english: english, plainEnglish: plainEnglish, foreign: foreign)
        return pieces.first?.unsure == false
    }

    @Test func aSureCommandOnlyThePromptMadeLikelyCountsInPlainEnglish() {
        #expect(!judged(sureness: 0.5, promptFree: 0.003, english: 0.6, plainEnglish: nil), "the floors alone")
        #expect(judged(sureness: 0.5, promptFree: 0.003, english: 0.6))
        #expect(judged(sureness: 0.5, promptFree: 0.003, english: 0.3), "the bound itself is English enough")
        #expect(!judged(sureness: 0.5, promptFree: 0.003, english: 0.29))
        #expect(!judged(sureness: 0.5, promptFree: 0.003, english: 0.05), "foreign-sounding: the floors alone")
    }

    @Test func aLessSureOrNearlyImpossibleCommandStaysUnsureInPlainEnglish() {
        #expect(!judged(sureness: 0.44, promptFree: 0.003, english: 0.9), "under the sureness this needs")
        #expect(!judged(sureness: 0.9, promptFree: 0.0009, english: 0.9), "nearly impossible without the prompt")
        #expect(!judged(sureness: 0.24, promptFree: 0.05, english: 0.97), "under both pairs' sureness")
    }

    /// "Clear the message." at 0.27 sure, 0.34 without the prompt, acts; the false "Turn off the microphone." heard
    /// in English prompts under babble (0.30, 0.022 without the prompt, 0.97 English) still waits for the box.
    @Test func aLessSureCommandThatStaysLikelyWithoutThePromptCountsInPlainEnglish() {
        #expect(!judged(sureness: 0.27, promptFree: 0.34, english: 0.88, plainEnglish: nil), "the floors alone")
        #expect(judged(sureness: 0.27, promptFree: 0.34, english: 0.88))
        #expect(judged(sureness: 0.25, promptFree: 0.04, english: 0.3), "each edge is enough")
        #expect(!judged(sureness: 0.30, promptFree: 0.022, english: 0.97))
        #expect(!judged(sureness: 0.30, promptFree: 0.05, english: 0.29), "not plainly English")
    }

    @Test func anUnweighedLanguageAndAForeignJudgementLeaveTheFloorsAsTheyWere() {
        #expect(!judged(sureness: 0.5, promptFree: 0.003, english: nil))
        #expect(!judged(sureness: 0.9, promptFree: 0.5, english: 0.9, foreign: true))
        #expect(judged(sureness: 0.9, promptFree: 0.5, english: 0.01), "the floors still let a sure one through")
        #expect(judged(sureness: 0.5, promptFree: nil, english: 0.9), "words not weighed without the prompt")
    }

    @Test func theMeasuredSettingIsTheLiveDefault() {
        let hearing = LiveTranscriber.WhisperHearing(models: HearingModels(folder: "/nonexistent"), prompt: nil)
        #expect(hearing.plainEnglish == .measured)
        #expect(LiveTranscriber.PlainEnglish.measured.english == hearing.ownLanguageBelow)
        // Each pair lowers one of the usual floors and raises the other.
        for pair in LiveTranscriber.PlainEnglish.measured.floors {
            let promptFreeFloor = hearing.promptFreeFloor ?? 0
            #expect(
                (pair.sureness > hearing.commandFloor && pair.promptFree < promptFreeFloor)
                    || (pair.sureness < hearing.commandFloor && pair.promptFree > promptFreeFloor), "\(pair)")
        }
    }
}
