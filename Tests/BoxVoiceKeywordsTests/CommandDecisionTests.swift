import BoxVoiceKeywords
import Foundation
import Testing

/// One figure of evidence, two lines: at or over `act` a command acts, from `ask` up the box is asked, under it the
/// command is refused unasked.
@Suite struct CommandDecisionTests {
    let decision = CommandDecision(surenessWeight: 0.5, act: -0.5, ask: -2)

    @Test func theEvidenceAddsTheWeightedLogOfTheSurenessToTheScore() {
        #expect(decision.evidence(score: -0.25, sureness: 1) == -0.25)
        #expect(abs(decision.evidence(score: -0.25, sureness: exp(-1)) - -0.75) < 1e-12)
        #expect(decision.evidence(score: 0, sureness: 0) == 0.5 * log(1e-6), "no sureness counts as a millionth")
    }

    @Test(arguments: [0.0, -0.1, -0.5])
    func evidenceAtOrOverTheActLineActs(_ score: Double) {
        #expect(decision.verdict(score: score, sureness: 1) == .act)
    }

    @Test(arguments: [-0.51, -1, -2])
    func evidenceBetweenTheLinesAsksTheBoxNamingTheActLine(_ score: Double) {
        #expect(decision.verdict(score: score, sureness: 1) == .ask(.unsure(score: score, threshold: -0.5)))
    }

    @Test(arguments: [-2.01, -7, -Double.infinity])
    func evidenceUnderTheAskLineIsRefusedUnasked(_ score: Double) {
        #expect(decision.verdict(score: score, sureness: 1) == .refuse(.unsure(score: score, threshold: -0.5)))
    }

    /// A phrase Whisper would write without the prompt but wrote unsurely with it falls from acting to asking.
    @Test func anUnsurePhraseWithAPerfectScoreIsAsked() {
        let unsure = exp(-2.0)
        #expect(decision.verdict(score: 0, sureness: unsure) == .ask(.unsure(score: -1, threshold: -0.5)))
    }

    @Test func aCommandNotWeighedIsAskedNeverActedOnAlone() {
        #expect(decision.verdict(score: nil, sureness: 1) == .ask(.unscored))
    }

    /// What a caller reads off a verdict: why the command waits (none when it acts) and whether the box is asked.
    @Test func aVerdictSaysItsDoubtAndWhetherTheBoxIsAsked() {
        let doubt = CommandDoubt.unsure(score: -1, threshold: -0.5)
        #expect(CommandDecision.Verdict.act.doubt == nil && CommandDecision.Verdict.act.worthAsking)
        #expect(CommandDecision.Verdict.ask(doubt).doubt == doubt && CommandDecision.Verdict.ask(doubt).worthAsking)
        #expect(
            CommandDecision.Verdict.refuse(doubt).doubt == doubt && !CommandDecision.Verdict.refuse(doubt).worthAsking)
    }

    @Test func anAskLineOverTheActLineIsTheActLine() {
        let decision = CommandDecision(surenessWeight: 0, act: -1, ask: 0)
        #expect(decision.ask == -1)
        #expect(decision.verdict(score: -1.5, sureness: 0.1) == .refuse(.unsure(score: -1.5, threshold: -1)))
    }
}
