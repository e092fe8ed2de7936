import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct OutboxTests {
    let dir = TemporaryDirectory("store")
    var path: String { dir.file("boxvoice.sqlite") }

    private func outbox() throws -> Outbox { try Outbox(database: SQLiteDatabase(path: path)) }

    @Test func aCommittedMessageSurvivesReopening() throws {
        let start = Date(timeIntervalSince1970: 1_000)
        try outbox().add(messageId: "A1", box: "home", session: "s1", body: "<speech stt=\"live\">hi</speech>", now: start)
        let reopened = try outbox()
        let due = try reopened.due(now: start)
        #expect(due.map(\.messageId) == ["A1"])
        #expect(due.first?.body == "<speech stt=\"live\">hi</speech>")
        #expect(due.first?.session == "s1")
        #expect(due.first?.state == .pending)
    }

    @Test func uncertainOutcomesBackOff10_30_60ThenEvery120Seconds() throws {
        let box = try outbox()
        let start = Date(timeIntervalSince1970: 5_000)
        try box.add(messageId: "B", box: "home", session: nil, body: "x", now: start)
        var now = start
        for expected in [10.0, 30, 60, 120, 120] {
            try box.markUncertain("B", error: "timeout", now: now)
            let message = try #require(try box.message("B"))
            #expect(message.nextAttemptAt == now.addingTimeInterval(expected))
            #expect(try box.due(now: now.addingTimeInterval(expected - 1)).isEmpty)
            #expect(try box.due(now: now.addingTimeInterval(expected)).map(\.messageId) == ["B"])
            now = now.addingTimeInterval(expected)
        }
        #expect(try box.message("B")?.attempts == 5)
        #expect(try box.message("B")?.lastError == "timeout")
    }

    @Test func deliveredAndFailedMessagesAreNoLongerDue() throws {
        let box = try outbox()
        try box.add(messageId: "C", box: "home", session: nil, body: "x")
        try box.add(messageId: "D", box: "home", session: nil, body: "y")
        try box.markDelivered("C", outcome: "deduplicated")
        try box.markFailed("D", error: "HTTP 410")
        #expect(try box.due(now: Date().addingTimeInterval(1_000)).isEmpty)
        #expect(try box.message("C")?.outcome == "deduplicated")
        #expect(try box.message("D")?.state == .failed)
        try box.requeue("D")
        #expect(try box.due(now: Date().addingTimeInterval(1)).map(\.messageId) == ["D"])
    }

    @Test func draftsWaitForTheUserAndCanBeDiscarded() throws {
        let box = try outbox()
        try box.add(messageId: "E", box: "home", session: nil, body: "draft", state: .draft)
        #expect(try box.due(now: Date().addingTimeInterval(1_000)).isEmpty)
        try box.discard("E")
        #expect(try box.message("E") == nil)
    }

    @Test func deliveredHistoryIsNotDiscarded() throws {
        let box = try outbox()
        try box.add(messageId: "F", box: "home", session: nil, body: "x")
        try box.markDelivered("F", outcome: "started:t1")
        try box.discard("F")
        #expect(try box.message("F")?.state == .delivered)
    }

    @Test func theSameIdTwiceIsRefused() throws {
        let box = try outbox()
        try box.add(messageId: "G", box: "home", session: nil, body: "x")
        #expect(throws: SQLiteError.self) { try box.add(messageId: "G", box: "home", session: nil, body: "y") }
        #expect(try box.message("G")?.body == "x")
    }

    @Test func dueIsPerBoxWhenAsked() throws {
        let box = try outbox()
        try box.add(messageId: "H1", box: "home", session: nil, body: "x")
        try box.add(messageId: "H2", box: "work", session: nil, body: "y")
        #expect(try box.due(box: "work", now: Date().addingTimeInterval(1)).map(\.messageId) == ["H2"])
    }

    @Test func aDamagedDatabaseIsAClearError() throws {
        try Data(repeating: 0x41, count: 4_096).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try outbox()
        } throws: { error in
            String(describing: error).contains(path) && String(describing: error).contains("not a database")
        }
    }

    @Test func aFullDiskFailsTheCommitLoudly() throws {
        let disk = dir.file("tiny")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mounted = try Run.process("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", disk])
        try #require(mounted.status == 0, "mounting a tmpfs needs root: \(mounted.stderr)")
        defer { _ = try? Run.process("/bin/umount", [disk]) }
        let box = try Outbox(database: SQLiteDatabase(path: disk + "/boxvoice.sqlite"))
        let big = String(repeating: "x", count: 200_000)
        #expect {
            try box.add(messageId: "FULL", box: "home", session: nil, body: big)
        } throws: { error in
            String(describing: error).contains("full") || String(describing: error).contains("disk")
        }
        // What was committed before stays readable.
        #expect(try box.message("FULL") == nil)
    }
}

@Suite struct RetentionTests {
    let dir = TemporaryDirectory("retention")

    private func recording(_ id: String, at seconds: Double, box: String = "home") throws -> RetainedRecording {
        let folder = dir.file("recordings/\(box)/\(id)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("RIFF".utf8).write(to: URL(fileURLWithPath: folder + "/seg-0001.wav"))
        return RetainedRecording(box: box, messageId: id, recordedAt: Date(timeIntervalSince1970: seconds), text: "text \(id)",
                                 session: "s1", directory: folder)
    }

    private func retention() throws -> Retention { try Retention(database: SQLiteDatabase(path: dir.file("boxvoice.sqlite"))) }

    @Test func keepsFiveAndEvictsTheOldestWithItsFiles() throws {
        let store = try retention()
        for (index, id) in ["M1", "M2", "M3", "M4", "M5"].enumerated() { try store.retain(try recording(id, at: Double(index))) }
        let evicted = try store.retain(try recording("M6", at: 10))
        #expect(evicted.map(\.messageId) == ["M1"])
        #expect(!FileManager.default.fileExists(atPath: dir.file("recordings/home/M1")))
        #expect(FileManager.default.fileExists(atPath: dir.file("recordings/home/M2/seg-0001.wav")))
        #expect(try store.recordings(box: "home").map(\.messageId) == ["M6", "M5", "M4", "M3", "M2"])
    }

    @Test func tiesInRecordedAtEvictByIdAndBoxesAreSeparate() throws {
        let store = try retention()
        for id in ["B", "A", "D", "C", "E"] { try store.retain(try recording(id, at: 7)) }
        try store.retain(try recording("W", at: 1, box: "work"))
        #expect(try store.retain(try recording("F", at: 7)).map(\.messageId) == ["A"])
        #expect(try store.recordings(box: "work").count == 1)
    }

    @Test func theIndexSurvivesAndTextCanBeReplacedByHQ() throws {
        try retention().retain(try recording("K", at: 1))
        let reopened = try retention()
        try reopened.updateText(box: "home", messageId: "K", text: "HQ text")
        let held = try #require(try reopened.recording(box: "home", messageId: "K"))
        #expect(held.text == "HQ text")
        #expect(held.session == "s1")
        #expect(try reopened.recording(box: "home", messageId: "k") == nil)  // byte-identical ids only
    }

    @Test func forgetAndUnpairRemoveFiles() throws {
        let store = try retention()
        try store.retain(try recording("X", at: 1))
        try store.retain(try recording("Y", at: 2))
        try store.forget(box: "home", messageId: "X")
        #expect(!FileManager.default.fileExists(atPath: dir.file("recordings/home/X")))
        try store.forgetBox("home")
        #expect(try store.recordings(box: "home").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.file("recordings/home/Y")))
    }
}
