import BoxSim
import BoxVoiceCore
import BoxVoiceKeywords
import BoxVoiceTestSupport
import Foundation
import Testing

/// In `checkpoint-report.wav` only the spotter hears the command (the language model writes "cent checkpoint"), so
/// the session asks the box for a second opinion on the seconds around it before acting.
@Suite struct SecondOpinionTests {
    private func run(hq: BoxSimHQ, wait: Double, endOfInput: DictationStateMachine.EndOfInputPolicy = .send) throws -> DictationRun {
        let run = try DictationRun(box: SimulatedBox { $0.hq = hq.mode; $0.hqText = hq.text; $0.defaultSession = "s1" })
        try FileManager.default.createDirectory(atPath: run.data.file("work"), withIntermediateDirectories: true)
        try run.run(["checkpoint-report.wav"]) {
            $0.workDirectory = run.data.file("work")
            $0.secondOpinionSeconds = wait
            $0.endOfInput = endOfInput
        }
        return run
    }

    private func checks(_ run: DictationRun) -> [(DictationSession.CheckOutcome, Double)] {
        run.events.compactMap { if case .commandChecked(.sendCheckpoint, let outcome, let seconds) = $0 { (outcome, seconds) } else { nil } }
    }

    @Test func aSpottedCommandTheBoxAlsoHearsActs() throws {
        let run = try run(hq: BoxSimHQ(mode: .fixed("The first part of the report is finished. Send a checkpoint.")), wait: 5)
        #expect(checks(run).map(\.0) == [.confirmed])
        #expect(run.delivered.count == 1)
        #expect(run.delivered.first?.message.contains("<send-checkpoint-message") == true)
    }

    @Test func aSpottedCommandTheBoxHearsAsOrdinaryWordsStaysText() throws {
        let run = try run(hq: BoxSimHQ(mode: .fixed("The first part of the report is finished, sent to Kent.")), wait: 5, endOfInput: .draft)
        #expect(checks(run).map(\.0) == [.rejected])
        #expect(run.delivered.isEmpty)
        let drafts = try run.store.messages().filter { $0.state == .draft }
        #expect(drafts.count == 1)
        #expect(drafts.first?.text?.contains("report is finished") == true)
        #expect(drafts.first?.text?.contains("<send-checkpoint-message") == false)
    }

    @Test func noAnswerInTimeLeavesTheDecisionToTheLivePath() throws {
        let run = try run(hq: BoxSimHQ(mode: .slow(4), text: "whatever"), wait: 0.5)
        let checked = checks(run)
        #expect(checked.map(\.0) == [.undecided])
        #expect((checked.first?.1 ?? 99) < 1.5, "decided locally after the wait, not after the box")
        #expect(run.delivered.first?.message.contains("<send-checkpoint-message") == true)
    }
}

/// A command only the spotter heard waits for the speaker's pause after it (`CommandHold`); the box is asked as that
/// wait begins, so the two waits overlap instead of adding up.
@Suite struct SecondOpinionDuringTheHoldTests {
    @Test func theBoxIsAskedWhileTheCommandWaitsForTheSpeakersPause() throws {
        let run = try DictationRun(box: SimulatedBox {
            $0.hq = .slow(1.5)
            $0.hqText = "The first part of the report is finished. Send a checkpoint."
            $0.defaultSession = "s1"
        })
        try FileManager.default.createDirectory(atPath: run.data.file("work"), withIntermediateDirectories: true)
        // The microphone runs on 3 s after the command, at real-time pace: the pause is heard, not the input's end.
        try run.run(["checkpoint-report.wav"], trailing: 3, paced: true) {
            $0.workDirectory = run.data.file("work")
            $0.secondOpinionSeconds = 5
        }
        let timed = run.timedEvents
        let checked = timed.compactMap { if case .commandChecked(.sendCheckpoint, let outcome, let seconds) = $0.event { (outcome, seconds) } else { nil } }
        #expect(checked.map(\.0) == [.confirmed])
        #expect((checked.first?.1 ?? 0) >= 1.5, "the box took 1.5 s to answer")
        let given = try #require(timed.last { if case .final(let text) = $0.event { text.contains("checkpoint") } else { false } })
        let acted = try #require(timed.first { if case .keyword(.sendCheckpoint, _, _) = $0.event { true } else { false } })
        // Asked only once the pause was over, the command would act 1.5 s after its utterance was given.
        #expect(acted.at.timeIntervalSince(given.at) < 0.75, "acted \(acted.at.timeIntervalSince(given.at)) s after the held utterance was given")
        #expect(run.delivered.first?.message.contains("<send-checkpoint-message") == true)
    }
}

struct BoxSimHQ {
    var mode: HQMode
    var text: String? = nil
}
