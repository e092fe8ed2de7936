import Testing

@testable import BoxVoiceLive

/// The share-out of an audio's language, and how the own-language check reads it with Whisper's lookalikes of
/// unclear English left out.
@Suite struct SpokenLanguagesTests {
    @Test func sharesAreScaledToSumToOneAndNothingIsNone() {
        let languages = SpokenLanguages(shares: ["en": 2, "la": 6, "es": 0, "fr": -1])
        #expect(languages.shares == ["en": 0.25, "la": 0.75])
        #expect(languages.share(of: "es") == 0 && languages.share(of: "xx") == 0)
        #expect(SpokenLanguages(shares: ["en": 0]).shares.isEmpty)
        #expect(SpokenLanguages(shares: [:]).likeliest == nil)
    }

    @Test func theLikeliestIsTheLargestShareAndATieGoesToTheFirstCode() {
        #expect(SpokenLanguages(shares: ["en": 0.2, "la": 0.5, "cy": 0.3]).likeliest == "la")
        for _ in 0..<20 {
            #expect(SpokenLanguages(shares: ["fr": 0.5, "de": 0.5]).likeliest == "de")
        }
    }

    @Test func leavingOutScalesTheRestAndIgnoresCodesItDoesNotHave() {
        let languages = SpokenLanguages(shares: ["la": 0.5, "cy": 0.1, "en": 0.3, "es": 0.1])
        let others = languages.leavingOut(["la", "cy", "xx"])
        #expect(others.likeliest == "en")
        #expect(abs(others.share(of: "en") - 0.75) < 1e-6 && abs(others.share(of: "es") - 0.25) < 1e-6)
        #expect(languages.leavingOut([]) == languages)
        #expect(languages.leavingOut(["la", "cy", "en", "es"]).likeliest == nil)
    }

    private func verdict(_ shares: [String: Float], lookalikes: Set<String> = ["la", "cy"])
        -> UtteranceEnds.LanguageVerdict
    {
        UtteranceEnds.languageVerdict(SpokenLanguages(shares: shares), englishBelow: 0.3, leavingOut: lookalikes)
    }

    @Test func englishBehindLatinOrWelshStands() {
        // The held-out clips' pattern: a lookalike first, English second.
        #expect(verdict(["la": 0.6, "en": 0.25, "it": 0.15]) == .english)
        #expect(verdict(["cy": 0.7, "en": 0.2, "de": 0.1]) == .english)
        // Without the lookalikes left out, the same audio is checked in Latin or Welsh.
        #expect(verdict(["la": 0.6, "en": 0.25, "it": 0.15], lookalikes: []) == .other("la"))
        #expect(verdict(["cy": 0.7, "en": 0.2, "de": 0.1], lookalikes: []) == .other("cy"))
    }

    @Test func anotherLanguageBehindALookalikeIsStillChecked() {
        // Italian behind Latin: checked in Italian, where a translated command is not written.
        #expect(verdict(["la": 0.5, "it": 0.4, "en": 0.1]) == .other("it"))
        // English scaled up by leaving Latin out, but still under the bound.
        #expect(verdict(["la": 0.5, "es": 0.4, "en": 0.1]) == .other("es"))
        #expect(verdict(["es": 0.9, "en": 0.05, "la": 0.05]) == .other("es"))
    }

    @Test func englishAtTheBoundStandsAndJustUnderIsChecked() {
        #expect(verdict(["fr": 0.7, "en": 0.3]) == .english)
        #expect(verdict(["fr": 0.71, "en": 0.29]) == .other("fr"))
        // English likeliest, however small its share.
        let spread: [String: Float] = ["en": 0.2, "fr": 0.1, "de": 0.1, "it": 0.1, "es": 0.1, "pt": 0.1, "sv": 0.1]
        #expect(verdict(spread.merging(["nl": 0.1, "pl": 0.1]) { $1 }) == .english)
    }

    @Test func nothingLeftToJudgeByIsUnjudged() {
        #expect(verdict(["la": 0.5, "cy": 0.5]) == .unjudged)
        #expect(verdict([:]) == .unjudged)
    }
}
