import BoxSim
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceTestSupport
import Foundation
import Testing

/// In `checkpoint-report.wav` only the spotter hears the command (the language model writes "cent checkpoint"), so
/// the session asks the box for a second opinion on the seconds around it before acting.
@Suite struct SecondOpinionTests {
    private func run(hq: BoxSimHQ, wait: Double, endOfInput: DictationStateMachine.EndOfInputPolicy = .send) throws
        -> DictationRun
    {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = hq.mode; $0.hqText = hq.text; $0.defaultSession = "s1"
            })
        try FileManager.default.createDirectory(atPath: run.data.file("work"), withIntermediateDirectories: true)
        try run.run(["checkpoint-report.wav"]) {
            $0.workDirectory = run.data.file("work")
            $0.secondOpinionSeconds = wait
            $0.endOfInput = endOfInput
        }
        return run
    }

    private func checks(_ run: DictationRun) -> [(CheckOutcome, Double)] {
        run.events.compactMap {
            if case .commandChecked(.sendCheckpoint, let outcome, let seconds) = $0 { (outcome, seconds) } else { nil }
        }
    }

    @Test func aSpottedCommandTheBoxAlsoHearsActs() throws {
        let run = try run(
            hq: BoxSimHQ(mode: .fixed("The first part of the report is finished. Send a checkpoint.")), wait: 5)
        #expect(checks(run).map(\.0) == [.confirmed])
        #expect(run.delivered.count == 1)
        #expect(run.delivered.first?.message.contains("<send-checkpoint-message") == true)
    }

    @Test func aSpottedCommandTheBoxHearsAsOrdinaryWordsStaysText() throws {
        let run = try run(
            hq: BoxSimHQ(mode: .fixed("The first part of the report is finished, sent to Kent.")), wait: 5,
            endOfInput: .draft)
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
        let run = try DictationRun(
            box: SimulatedBox {
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
        let checked = timed.compactMap { entry in
            if case .commandChecked(.sendCheckpoint, let outcome, let seconds) = entry.event {
                (outcome, seconds, entry.at)
            } else {
                nil
            }
        }
        #expect(checked.map(\.0) == [.confirmed])
        let check = try #require(checked.first)
        #expect(check.1 >= 1.5, "the box took 1.5 s to answer")
        let given = try #require(
            timed.last { if case .final(let text) = $0.event { text.contains("checkpoint") } else { false } })
        let waiting = try #require(
            timed.first { $0.event == .awaitingPause(action: .sendCheckpoint, phrase: "send checkpoint") })
        // The verdict event says how long after asking it came: the box was asked as the wait began, not when the
        // held utterance was given (however fast or slow the decoding ran, the two are the hold's length apart).
        let asked = check.2.addingTimeInterval(-check.1)
        #expect(
            abs(asked.timeIntervalSince(waiting.at)) < abs(asked.timeIntervalSince(given.at)),
            Comment(
                rawValue: "asked \(asked.timeIntervalSince(waiting.at)) s after the wait began, "
                    + "\(given.at.timeIntervalSince(asked)) s before the utterance was given")
        )
        #expect(run.delivered.first?.message.contains("<send-checkpoint-message") == true)
        let awaited = timed.firstIndex {
            $0.event == .awaitingPause(action: .sendCheckpoint, phrase: "send checkpoint")
        }
        let actedAt = timed.firstIndex { if case .keyword(.sendCheckpoint, _, _) = $0.event { true } else { false } }
        #expect(awaited != nil && awaited! < actedAt!, "the wait is announced before the command acts")
    }

    private func talkingOn(boxHears text: String?) throws -> DictationRun {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = text.map { .fixed($0) } ?? .fail(code: "missing_api_key")
                $0.defaultSession = "s1"
            })
        try FileManager.default.createDirectory(atPath: run.data.file("work"), withIntermediateDirectories: true)
        try run.run(["checkpoint-report.wav", "none-budget.wav"], trailing: 1) {
            $0.workDirectory = run.data.file("work")
            $0.endOfInput = .draft
        }
        #expect(
            run.events.contains(.awaitingPause(action: .sendCheckpoint, phrase: "send checkpoint")),
            "events: \(run.events)")
        return run
    }

    /// Going on talking right after the spotted command, and the box hears ordinary words: they stay text in the
    /// message, nothing is sent.
    @Test func talkingOnRightAfterASpottedCommandKeepsItAsText() throws {
        let run = try talkingOn(boxHears: "The first part of the report is finished, sent to Kent.")
        #expect(run.events.contains(.speechWentOn(action: .sendCheckpoint)))
        #expect(!run.events.contains { if case .keyword = $0 { true } else { false } })
        #expect(run.delivered.isEmpty)
        let drafts = try run.store.messages().filter { $0.state == .draft }
        #expect(drafts.count == 1)
        #expect(drafts.first?.text?.contains("report is finished") == true)
        #expect(drafts.first?.text?.contains("<send-checkpoint-message") == false)
        #expect(drafts.first?.text?.contains("budget") == true, "what followed joined the same message")
    }

    /// With no box to ask (its HQ down), talking on decides alone: text.
    @Test func talkingOnWithNoBoxToAskKeepsItAsText() throws {
        let run = try talkingOn(boxHears: nil)
        #expect(run.events.contains(.speechWentOn(action: .sendCheckpoint)))
        #expect(!run.events.contains { if case .keyword = $0 { true } else { false } })
        #expect(run.delivered.isEmpty)
    }

    /// A user chaining messages ("… send checkpoint", then straight on with the next): the box's HQ heard the command,
    /// so it acts though talk went on, and what followed starts the next message.
    @Test func theBoxHearingTheCommandActsThoughTalkWentOn() throws {
        let run = try talkingOn(boxHears: "The first part of the report is finished. Send a checkpoint.")
        #expect(!run.events.contains(.speechWentOn(action: .sendCheckpoint)))
        #expect(
            run.events.contains { if case .commandChecked(.sendCheckpoint, .confirmed, _) = $0 { true } else { false } }
        )
        #expect(run.delivered.count == 1)
        #expect(run.delivered.first?.message.contains("<send-checkpoint-message") == true)
        #expect(run.delivered.first?.message.contains("budget") == false)
        let drafts = try run.store.messages().filter { $0.state == .draft }
        #expect(drafts.first?.text?.contains("budget") == true, "what followed is the next message")
    }
}

struct BoxSimHQ {
    var mode: HQMode
    var text: String? = nil
}
