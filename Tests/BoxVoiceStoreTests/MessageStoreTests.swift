import BoxVoiceKeywords
import BoxVoiceContract
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

/// A store in a fresh folder, and small helpers to move a message through its life.
struct StoreFixture {
    let dir = TemporaryDirectory("store")
    var data: String { dir.file("data") }

    func open(limit: Int = 5) throws -> MessageStore { try MessageStore(directory: data, retentionLimit: limit) }

    /// A message recorded with one second of tone, committed by a spoken send and framed: pending.
    @discardableResult
    func pending(_ store: MessageStore, box: BoxReference = "home", at seconds: Double = 0, text: String = "hello")
        throws -> MessageID
    {
        let recording = try store.beginRecording(
            box: box, session: "s1", at: Date(timeIntervalSince1970: 1_000 + seconds))
        try WAV.write(Signal.toneWithGaps(frames: 48_000, gaps: []), to: recording.folder + "/seg-0001.wav")
        try store.commitSend(recording.id, ending(text), liveBody: nil)
        try store.frame(recording.id, body: "<speech stt=\"live\">\(text)</speech>", text: text)
        return recording.id
    }

    func ending(_ text: String, command: HeardCommand? = HeardCommand(action: .send, matchedPhrase: "send message"))
        -> MessageStore.Ending
    {
        MessageStore.Ending(heardText: text + " send message", command: command, liveText: text)
    }
}

@Suite struct MessageStoreTests {
    let fixture = StoreFixture()

    @Test func aSendIsDurableTheMomentItIsCommittedBeforeAnyHQ() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: "s1")
        try store.noteHeard(recording.id, text: "buy milk")
        try store.commitSend(recording.id, fixture.ending("buy milk"), liveBody: nil)
        // A second connection (another process, or the next run) sees the committed send.
        let reopened = try fixture.open()
        let message = try #require(try reopened.message(recording.id))
        #expect(message.state == .awaitingHQ)
        #expect(message.heardText == "buy milk send message")
        #expect(message.text == "buy milk")
        #expect(message.command == HeardCommand(action: .send, matchedPhrase: "send message"))
        #expect(message.session == "s1")
        #expect(message.commandAt != nil)
        #expect(try reopened.due(ignoringBackoff: true).isEmpty)  // not postable until framed
    }

    @Test func framingMakesItPendingAndHQTextReplacesTheLiveText() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: nil)
        try store.commitSend(recording.id, fixture.ending("by milk"), liveBody: nil)
        try store.frame(recording.id, body: "<speech>buy milk</speech>", text: "buy milk")
        let due = try store.due()
        #expect(due.map(\.id) == [recording.id])
        #expect(due.first?.body == "<speech>buy milk</speech>")
        #expect(due.first?.text == "buy milk")
    }

    @Test func aLiveOnlySendIsPendingAtOnce() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: nil)
        try store.commitSend(recording.id, fixture.ending("x"), liveBody: "<speech stt=\"live\">x</speech>")
        #expect(try store.message(recording.id)?.state == .pending)
        #expect(try store.due().first?.body == "<speech stt=\"live\">x</speech>")
    }

    @Test func uncertainOutcomesBackOff10_30_60ThenEvery120Seconds() throws {
        let store = try fixture.open()
        let id = try fixture.pending(store)
        var now = Date().addingTimeInterval(10)
        for expected in [10.0, 30, 60, 120, 120] {
            try store.recordUncertain(id, reason: "timeout", now: now)
            let message = try #require(try store.message(id))
            #expect(abs((message.nextAttemptAt?.timeIntervalSince(now) ?? 0) - expected) < 0.001)
            #expect(try store.due(now: now.addingTimeInterval(expected - 1)).isEmpty)
            #expect(try store.due(now: now.addingTimeInterval(expected + 0.001)).map(\.id) == [id])
            // `outbox retry` does not wait.
            #expect(try store.due(now: now, ignoringBackoff: true).map(\.id) == [id])
            now = now.addingTimeInterval(expected)
        }
        #expect(try store.message(id)?.attempts == 5)
        #expect(try store.message(id)?.failure == .uncertain)
    }

    /// A message framed with its live text because HQ could not reach the box: an attempt that never connected
    /// leaves HQ owed; one that may have reached the box ends it (the box may hold the message as it was sent).
    @Test func owedHQSurvivesOnlyAttemptsThatNeverReachedTheBox() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: "s1")
        try WAV.write(Signal.toneWithGaps(frames: 48_000, gaps: []), to: recording.folder + "/seg-0001.wav")
        try store.commitSend(recording.id, fixture.ending("hello"), liveBody: nil)
        try store.frame(recording.id, body: "<speech stt=\"live\">hello</speech>", text: "hello", hqOwed: true)
        #expect(try store.message(recording.id)?.hqOwed == true)
        try store.recordUncertain(recording.id, reason: "connection refused", reachedBox: false)
        #expect(try store.message(recording.id)?.hqOwed == true)
        try store.recordUncertain(recording.id, reason: "timed out", reachedBox: true)
        #expect(try store.message(recording.id)?.hqOwed == false)
    }

    /// HQ redone replaces the text and framing in place; given up, the message keeps what it was framed with.
    @Test func settlingOwedHQReplacesTheTextOrKeepsIt() throws {
        let store = try fixture.open()
        var ids: [MessageID] = []
        for text in ["one", "two"] {
            let recording = try store.beginRecording(box: "home", session: "s1")
            try store.commitSend(recording.id, fixture.ending(text), liveBody: nil)
            try store.frame(recording.id, body: "<speech stt=\"live\">\(text)</speech>", text: text, hqOwed: true)
            ids.append(recording.id)
        }
        try store.settleOwedHQ(ids[0], body: "<speech>One.</speech>", text: "One.")
        try store.settleOwedHQ(ids[1], body: nil, text: nil)
        let first = try #require(try store.message(ids[0]))
        let second = try #require(try store.message(ids[1]))
        #expect(first.body == "<speech>One.</speech>" && first.text == "One." && !first.hqOwed)
        #expect(second.body == "<speech stt=\"live\">two</speech>" && second.text == "two" && !second.hqOwed)
        #expect(first.state == .pending && second.state == .pending)
    }

    /// The recording HQ is owed from is neither evicted by newer messages nor compressed before it is heard again.
    @Test func anOwedRecordingIsKeptAsRecorded() throws {
        let store = try fixture.open(limit: 1)
        let recording = try store.beginRecording(box: "home", session: "s1", at: Date(timeIntervalSince1970: 500))
        try WAV.write(Signal.toneWithGaps(frames: 48_000, gaps: []), to: recording.folder + "/seg-0001.wav")
        try store.commitSend(recording.id, fixture.ending("owed"), liveBody: nil)
        try store.frame(recording.id, body: "<speech stt=\"live\">owed</speech>", text: "owed", hqOwed: true)
        let newer = try fixture.pending(store, at: 10)
        let newest = try fixture.pending(store, at: 20)
        #expect(try store.message(recording.id)?.hasAudio == true)
        #expect(try store.message(newer)?.hasAudio == false, "the limit of one still holds for the others")
        #expect(try store.message(newest)?.hasAudio == true)
        #expect(try store.compressRecording(recording.id) == nil)
        #expect(
            store.segmentFiles(of: try #require(try store.message(recording.id))).map {
                ($0 as NSString).lastPathComponent
            } == ["seg-0001.wav"])
    }

    @Test func aRefusalAfterAnUncertainAttemptIsPossiblyDelivered() throws {
        let store = try fixture.open()
        let first = try fixture.pending(store, at: 1)
        let second = try fixture.pending(store, at: 2)
        try store.recordUncertain(first, reason: "timeout")
        #expect(
            try store.recordRefused(first, kind: .refused, reason: "410", afterUncertainAttempt: true)
                == .possiblyDelivered)
        #expect(try store.recordRefused(second, kind: .refused, reason: "410", afterUncertainAttempt: false) == .failed)
        #expect(try store.requestSend(second) == .pending)
        #expect(try store.due().map(\.id) == [second])
    }

    @Test func deliveredIsFinalAndStaysAsHistory() throws {
        let store = try fixture.open()
        let id = try fixture.pending(store)
        try store.recordAccepted(id, as: .deduplicated)
        #expect(try store.message(id)?.acceptance == .deduplicated)
        #expect(throws: StoreError.notAllowed(id, from: .delivered, .discard)) { try store.discard(id) }
        #expect(throws: StoreError.notAllowed(id, from: .delivered, .retry)) { try store.requestSend(id) }
        #expect(try store.message(id)?.state == .delivered)
    }

    @Test func howTheBoxAcceptedAMessageIsReadBackAsItWasRecorded() throws {
        let store = try fixture.open()
        for acceptance: BoxAcceptance in [.started(turn: "turn:7"), .queued, .deduplicated] {
            let id = try fixture.pending(store)
            #expect(try store.message(id)?.acceptance == nil)
            try store.recordAccepted(id, as: acceptance)
            #expect(try store.message(id)?.acceptance == acceptance)
        }
    }

    @Test func aDraftKeepsItsAudioAndSendingItAsksForHQ() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: "s1")
        try WAV.write(Signal.toneWithGaps(frames: 4_800, gaps: []), to: recording.folder + "/seg-0001.wav")
        try store.keepDraft(
            recording.id,
            MessageStore.Ending(
                heardText: "note to self stop listening",
                command: HeardCommand(action: .micOff, matchedPhrase: "stop listening"),
                liveText: "note to self"))
        let draft = try #require(try store.message(recording.id))
        #expect(draft.state == .draft)
        #expect(draft.text == "note to self")
        #expect(store.segmentFiles(of: draft).count == 1)
        #expect(try store.retainedRecordings(box: "home").map(\.messageId) == [recording.id])
        #expect(try store.due(ignoringBackoff: true).isEmpty)
        #expect(try store.requestSend(recording.id) == .awaitingHQ)
    }

    @Test func discardingRemovesTextAndAudio() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: nil)
        try WAV.write([0.1, 0.2], to: recording.folder + "/seg-0001.wav")
        try store.noteHeard(recording.id, text: "secret words")
        try store.discard(recording.id)
        #expect(!FileManager.default.fileExists(atPath: recording.folder))
        #expect(try store.message(recording.id)?.heardText == "")
        #expect(try store.messages().isEmpty)
    }

    @Test func twoThreadsOfAThousandMixedWritesEachAllSucceed() throws {
        let store = try fixture.open(limit: 3)
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for step in 0..<1_000 {
                do {
                    switch step % 5 {
                    case 0:
                        let recording = try store.beginRecording(box: .paired("box\(thread)"), session: nil)
                        try store.noteHeard(recording.id, text: "words \(step)")
                        try store.commitSend(recording.id, fixture.ending("t\(step)"), liveBody: nil)
                        try store.frame(recording.id, body: "b", text: "t")
                    case 1:
                        if let due = try store.due(box: .paired("box\(thread)")).first {
                            try store.recordUncertain(due.id, reason: "x")
                        }
                    case 2:
                        if let due = try store.due(box: .paired("box\(thread)"), ignoringBackoff: true).first {
                            try store.recordAccepted(due.id, as: .queued)
                        }
                    case 3:
                        let recording = try store.beginRecording(box: .paired("box\(thread)"), session: nil)
                        try store.keepDraft(recording.id, fixture.ending("d", command: nil))
                    default:
                        _ = try store.retainedRecordings(box: .paired("box\(thread)"))
                        _ = try store.recover()
                    }
                } catch {
                    failures.add("\(thread)/\(step): \(error)")
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        #expect(try store.messages(box: "box0").count == 400)
    }

    @Test func aSessionLeftToTheBoxsDefaultIsResolvedOnceAndKept() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: "ignored", sessionFromDefault: true)
        try store.commitSend(recording.id, fixture.ending("x"), liveBody: "<speech>x</speech>")
        let pending = try #require(try store.due().first)
        #expect(pending.sessionUnresolved)
        #expect(pending.session == nil)
        try store.resolveSession(recording.id, to: "s7")
        let resolved = try #require(try fixture.open().message(recording.id))
        #expect(!resolved.sessionUnresolved)
        #expect(resolved.session == "s7")
    }

    @Test func aDamagedDatabaseIsAClearError() throws {
        try FileManager.default.createDirectory(atPath: fixture.data, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 4_096).write(to: URL(fileURLWithPath: fixture.data + "/boxvoice.sqlite"))
        #expect {
            _ = try fixture.open()
        } throws: { error in
            guard case StoreError.database(let failure)? = error as? StoreError else { return false }
            return failure.message.contains("not a database") && "\(error)".contains("boxvoice.sqlite")
        }
    }
}

final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ line: String) { lock.withLock { list.append(line) } }
    var all: [String] { lock.withLock { list } }
}
