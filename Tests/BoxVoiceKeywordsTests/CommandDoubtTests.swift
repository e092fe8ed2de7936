import BoxVoiceKeywords
import Testing

/// A refused command reaches the user with its reason's code, the figure that decided it and the line it missed.
@Suite struct CommandDoubtTests {
    @Test(arguments: [
        (CommandDoubt.unsure(score: 0.213, threshold: 0.3), "unsure", "score 0.21, needs 0.30"),
        (.promptMadeIt(score: 0.004, threshold: 0.014), "prompt-made-it", "score 0.00, needs 0.01"),
        (.foreign(language: "fr", english: 0.12), "foreign", "(fr, English 0.12)"),
        (.foreign(language: nil, english: nil), "foreign", "(not English)"),
        (.lateDecode, "late-decode", "too late"),
    ])
    func eachDoubtSaysItsCodeAndFigures(_ doubt: CommandDoubt, _ code: String, _ words: String) {
        #expect(doubt.code == code)
        #expect(doubt.explanation.contains(words), "\(doubt.explanation)")
    }

    @Test func onlyAScoredDoubtCarriesAScoreAndThreshold() {
        #expect(CommandDoubt.unsure(score: 0.2, threshold: 0.3).score! == (0.2, 0.3))
        #expect(CommandDoubt.promptMadeIt(score: 0.01, threshold: 0.02).score! == (0.01, 0.02))
        #expect(CommandDoubt.lateDecode.score == nil)
        #expect(CommandDoubt.foreign(language: "es", english: 0.1).score == nil)
    }
}
