import BoxVoiceContract
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct UpgradeTests {
    let fixture = StoreFixture()

    /// A database as the previous release wrote it (its `outbox` and `recordings` tables, verbatim), with a pending
    /// message, a delivered one whose recording is retained, a failed one and a mic-off draft.
    private func writeVersion1Database() throws -> (pending: String, delivered: String, failed: String, draft: String) {
        try FileManager.default.createDirectory(atPath: fixture.data, withIntermediateDirectories: true)
        let db = try SQLiteDatabase(path: fixture.data + "/boxvoice.sqlite")
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS outbox (
                message_id TEXT PRIMARY KEY, box TEXT NOT NULL, session TEXT, body TEXT NOT NULL, state TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at REAL, last_error TEXT, created_at REAL NOT NULL, \
            outcome TEXT)
            """)
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS recordings (
                box TEXT NOT NULL, message_id TEXT NOT NULL, recorded_at REAL NOT NULL, text TEXT NOT NULL, session \
            TEXT,
                directory TEXT NOT NULL, PRIMARY KEY (box, message_id))
            """)
        let ids = (0..<4).map { _ in UUID().uuidString.uppercased() }
        let rows: [(String, String, String, Double?)] = [
            (
                ids[0], "<speech stt=\"live\" message-id=\"\(ids[0])\" local-time=\"09:00\">pending one</speech>",
                "pending", 100
            ),
            (ids[1], "<speech message-id=\"\(ids[1])\" local-time=\"09:01\">delivered one</speech>", "delivered", nil),
            (ids[2], "<speech message-id=\"\(ids[2])\" local-time=\"09:02\">failed one</speech>", "failed", nil),
            (
                ids[3],
                "<speech stt=\"live\" message-id=\"\(ids[3])\" local-time=\"09:03\">a draft stop listening</speech>",
                "draft", nil
            ),
        ]
        for (index, row) in rows.enumerated() {
            try db.execute(
                "INSERT INTO outbox (message_id, box, session, body, state, attempts, next_attempt_at, created_at) "
                    + "VALUES (?, 'home', 's1', ?, ?, 1, ?, ?)",
                [.text(row.0), .text(row.1), .text(row.2), row.3.map { .real($0) } ?? .null, .real(Double(index))])
        }
        let folder = fixture.data + "/recordings/home/" + ids[1]
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try WAV.write([0.25, 0.5], to: folder + "/seg-0001.wav")
        try db.execute(
            "INSERT INTO recordings VALUES ('home', ?, 1.0, 'delivered one (HQ)', 's1', ?)",
            [.text(ids[1]), .text(folder)])
        // The draft's audio was left on disk unretained by that version.
        let draftFolder = fixture.data + "/recordings/home/" + ids[3]
        try FileManager.default.createDirectory(atPath: draftFolder, withIntermediateDirectories: true)
        try WAV.write([0.1, 0.1], to: draftFolder + "/seg-0001.wav")
        return (ids[0], ids[1], ids[2], ids[3])
    }

    @Test func anUpgradeKeepsEveryPendingMessageAndRetainedRecording() throws {
        let old = try writeVersion1Database()
        let store = try fixture.open()
        let pending = try #require(try store.due(now: Date(timeIntervalSince1970: 200)).first)
        #expect(pending.id.rawValue == old.pending)
        #expect(pending.body?.contains(">pending one</speech>") == true)
        #expect(pending.attempts == 1)
        let deliveredId = try #require(MessageID(exactly: old.delivered))
        let retained = try #require(try store.retainedRecording(box: "home", id: deliveredId))
        #expect(retained.text == "delivered one (HQ)")
        #expect(retained.session == "s1")
        #expect(try WAV.samples(retained.segments[0]) == [0.25, 0.5])
        #expect(try store.message(try #require(MessageID(exactly: old.failed)))?.state == .failed)
        let draftId = try #require(MessageID(exactly: old.draft))
        let draft = try #require(try store.message(draftId))
        #expect(draft.state == .draft)
        #expect(draft.heardText == "a draft stop listening")
        #expect(draft.command?.action == .micOff)
        // Its audio, which the old version left unretained, is now kept with it and survives recovery.
        _ = try store.recover()
        #expect(try store.retainedRecording(box: "home", id: draftId)?.segments.count == 1)
        // Opening again changes nothing.
        #expect(try fixture.open().messages().count == 4)
    }

    /// A retained recording the upgrade cannot move into its box's folder fails the upgrade, which changes nothing:
    /// it was once counted as absent and left where nothing looks for it. Once the way is clear, it moves.
    @Test func aRecordingTheUpgradeCannotMoveFailsItAndMovesOnceItCan() throws {
        _ = try writeVersion1Database()
        let id = UUID().uuidString.uppercased()
        let elsewhere = fixture.data + "/elsewhere/" + id
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try WAV.write([0.5, 0.25], to: elsewhere + "/seg-0001.wav")
        let db = try SQLiteDatabase(path: fixture.data + "/boxvoice.sqlite")
        try db.execute(
            "INSERT INTO recordings VALUES ('office', ?, 2.0, 'kept elsewhere', 's2', ?)",
            [.text(id), .text(elsewhere)])
        // A file where the box's folder goes.
        let blocker = fixture.data + "/recordings/office"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        #expect(throws: StoreError.self) { try fixture.open() }
        #expect(try db.query("PRAGMA user_version").first?.first?.integer == 0)
        #expect(try WAV.samples(elsewhere + "/seg-0001.wav") == [0.5, 0.25])
        try FileManager.default.removeItem(atPath: blocker)
        let store = try fixture.open()
        let ownId = try #require(MessageID(exactly: id))
        let retained = try #require(try store.retainedRecording(box: "office", id: ownId))
        #expect(retained.text == "kept elsewhere")
        #expect(try WAV.samples(retained.segments[0]) == [0.5, 0.25])
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
    }
}

@Suite struct VersionFourUpgradeTests {
    let fixture = StoreFixture()

    /// A version-4 database (no `hq_owed`) opens with its messages whole, none of them owed HQ.
    @Test func aVersion4DatabaseGainsTheOwedColumnAndKeepsItsMessages() throws {
        let id = try fixture.pending(try fixture.open())
        let db = try SQLiteDatabase(path: fixture.data + "/boxvoice.sqlite")
        try db.execute("ALTER TABLE messages DROP COLUMN hq_owed")
        try db.execute("PRAGMA user_version = 4")
        let store = try fixture.open()
        let message = try #require(try store.message(id))
        #expect(message.state == .pending && message.text == "hello" && !message.hqOwed)
        let columns = try SQLiteDatabase(path: fixture.data + "/boxvoice.sqlite").query("PRAGMA table_info(messages)")
        #expect(columns.contains { $0[1].text == "hq_owed" })
    }
}

@Suite struct PrivacyTests {
    let fixture = StoreFixture()

    private func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    /// A database a newer boxvoice wrote was once used without a word.
    @Test func aDatabaseFromANewerVersionIsRefusedAndLeftAsItIs() throws {
        do { _ = try fixture.open() }
        let path = fixture.data + "/boxvoice.sqlite"
        var bytes = try #require(FileManager.default.contents(atPath: path))
        try #require(bytes.count >= 100 && bytes.prefix(15) == Data("SQLite format 3".utf8))
        // The header's user_version (offset 60, big-endian): the layout version boxvoice keeps there.
        bytes.replaceSubrange(60..<64, with: [0, 0, 0, 99])
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try fixture.open()
        } throws: { error in
            guard case StoreError.newerSchema(99, _) = error else { return false }
            return "\(error)".contains("newer boxvoice")
        }
        #expect(FileManager.default.contents(atPath: path) == bytes)
    }

    @Test func foldersAre0700AndTheDatabaseItsLogAndEveryRecording0600() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: nil)
        try store.noteHeard(recording.id, text: "private words")
        #expect(try mode(fixture.data) == 0o700)
        #expect(try mode(fixture.data + "/recordings") == 0o700)
        #expect(try mode(fixture.data + "/recordings/home") == 0o700)
        #expect(try mode(recording.folder) == 0o700)
        #expect(try mode(store.databasePath) == 0o600)
        #expect(try mode(store.databasePath + "-wal") == 0o600)
        #expect(try mode(store.databasePath + "-shm") == 0o600)
    }

    @Test func anEarlierVersionsOpenFoldersAreMadePrivate() throws {
        try FileManager.default.createDirectory(
            atPath: fixture.data + "/recordings", withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        chmod(fixture.data, 0o755)
        _ = try fixture.open()
        #expect(try mode(fixture.data) == 0o700)
        #expect(try mode(fixture.data + "/recordings") == 0o700)
    }

    @Test func aSymlinkPlantedWhereRecordingsGoIsRefused() throws {
        try FileManager.default.createDirectory(atPath: fixture.data, withIntermediateDirectories: true)
        let elsewhere = fixture.dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fixture.data + "/recordings", withDestinationPath: elsewhere)
        #expect(throws: StoreError.self) { _ = try fixture.open() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }

    @Test func scratchFoldersAreUnpredictablePrivateAndRemoved() throws {
        let runtime = fixture.dir.file("runtime")
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        setenv("XDG_RUNTIME_DIR", runtime, 1)
        defer { unsetenv("XDG_RUNTIME_DIR") }
        let first = try ScratchDirectory(purpose: "answer", fallback: fixture.dir.file("cache"))
        let second = try ScratchDirectory(purpose: "answer", fallback: fixture.dir.file("cache"))
        #expect(first.path.hasPrefix(runtime + "/boxvoice-answer-"))
        #expect(first.path != second.path)
        #expect(try mode(first.path) == 0o700)
        first.remove()
        second.remove()
        #expect(!FileManager.default.fileExists(atPath: first.path))
    }

    /// With a few kilobytes left SQLite fails to open a store as "disk I/O error" rather than "full" (measured here:
    /// 8 to 24 KB left): the store still knows it for a full disk (the system said ENOSPC), so the user is told to free
    /// space instead of suspecting a broken disk.
    @Test func aNearlyFullDiskIsToldAsFullWhateverSQLiteCallsIt() throws {
        guard try OwnNamespace.enter("aNearlyFullDiskIsToldAsFullWhateverSQLiteCallsIt") else { return }
        for leftKilobytes in [0, 8, 16, 24] { try openNearlyFull(leftKilobytes: leftKilobytes) }
    }

    private func openNearlyFull(leftKilobytes: Int) throws {
        let disk = fixture.dir.file("nearly-full-\(leftKilobytes)")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mounted = try Run.process("/bin/mount", ["-t", "tmpfs", "-o", "size=1024k", "tmpfs", disk])
        try #require(mounted.status == 0, "mounting a tmpfs in the test's own namespace: \(mounted.stderr)")
        defer { _ = try? Run.process("/bin/umount", [disk]) }
        let filler = disk + "/filler"
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: filler))
        var full = false
        while !full {
            do { try handle.write(contentsOf: Data(count: 4_096)) } catch { full = true }
        }
        try handle.truncate(atOffset: max(0, try handle.offset() - UInt64(leftKilobytes * 1_024)))
        try? handle.close()
        #expect {
            _ = try MessageStore(directory: disk + "/data")
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.isDiskFull && "\(error)".contains("the disk is full")
        }
    }

    @Test func aFullDiskFailsACommitLoudlyAndTheReserveMakesRoomForTheDraft() throws {
        guard try OwnNamespace.enter("aFullDiskFailsACommitLoudlyAndTheReserveMakesRoomForTheDraft") else { return }
        let disk = fixture.dir.file("tiny")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mounted = try Run.process("/bin/mount", ["-t", "tmpfs", "-o", "size=1536k", "tmpfs", disk])
        try #require(mounted.status == 0, "mounting a tmpfs in the test's own namespace: \(mounted.stderr)")
        defer { _ = try? Run.process("/bin/umount", [disk]) }
        let store = try MessageStore(directory: disk + "/data")
        let recording = try store.beginRecording(box: "home", session: nil)
        // Fill the disk with audio, as a long recording would.
        let fillerPath = recording.folder + "/seg-0001.wav"
        #expect(FileManager.default.createFile(atPath: fillerPath, contents: nil))
        let filler = try #require(FileHandle(forWritingAtPath: fillerPath))
        var full = false
        while !full {
            do { try filler.write(contentsOf: Data(count: 64 * 1024)) } catch { full = true }
        }
        try? filler.close()
        let big = String(repeating: "words ", count: 50_000)
        #expect { try store.noteHeard(recording.id, text: big) } throws: { ($0 as? StoreError)?.isDiskFull == true }
        store.releaseReserve()
        try store.keepDraft(
            recording.id, MessageStore.Ending(heardText: "what was said", command: nil, liveText: "what was said"))
        #expect(try store.message(recording.id)?.state == .draft)
        #expect(try store.message(recording.id)?.text == "what was said")
    }
}
