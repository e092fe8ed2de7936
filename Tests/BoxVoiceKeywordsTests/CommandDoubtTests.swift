import BoxVoiceKeywords
import Testing

/// A refused command reaches the user with its reason's code, the figure that decided it and the line it missed.
@Suite struct CommandDoubtTests {
    @Test(arguments: [
        (CommandDoubt.unsure(score: -3.213, threshold: -2.5), "unsure", "score -3.21, needs -2.50"),
        (.unscored, "unscored", "could not be weighed"),
        (.foreign(language: "fr", english: 0.12), "foreign", "(fr, English 0.12)"),
        (.foreign(language: nil, english: nil), "foreign", "(not English)"),
        (.lateDecode, "late-decode", "too late"),
    ])
    func eachDoubtSaysItsCodeAndFigures(_ doubt: CommandDoubt, _ code: String, _ words: String) {
        #expect(doubt.code == code)
        #expect(doubt.explanation.contains(words), "\(doubt.explanation)")
    }

    @Test func onlyAScoredDoubtCarriesAScoreAndThreshold() {
        #expect(CommandDoubt.unsure(score: -3, threshold: -2.5).score! == (-3, -2.5))
        #expect(CommandDoubt.lateDecode.score == nil)
        #expect(CommandDoubt.foreign(language: "es", english: 0.1).score == nil)
    }
}
