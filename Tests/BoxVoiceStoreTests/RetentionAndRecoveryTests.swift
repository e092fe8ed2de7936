import BoxVoiceContract
import BoxVoiceKeywords
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct RetentionTests {
    let fixture = StoreFixture()

    @Test func keepsFivePerBoxAndEvictsTheOldestWithItsFiles() throws {
        let store = try fixture.open()
        var ids: [MessageID] = []
        for index in 0..<6 { ids.append(try fixture.pending(store, at: Double(index))) }
        try fixture.pending(store, box: "work", at: 0)
        let kept = try store.retainedRecordings(box: "home")
        #expect(kept.map(\.messageId) == ids.dropFirst().reversed())
        #expect(!FileManager.default.fileExists(atPath: fixture.data + "/recordings/home/" + ids[0].rawValue))
        #expect(try store.message(ids[0])?.hasAudio == false)
        #expect(try store.message(ids[0])?.state == .pending)  // the message itself is not lost with its audio
        #expect(try store.retainedRecordings(box: "work").count == 1)
        #expect(kept.allSatisfy { $0.segments.count == 1 && $0.session == "s1" })
    }

    @Test func aMessageAwaitingHQIsNeverEvicted() throws {
        let store = try fixture.open(limit: 1)
        let recording = try store.beginRecording(box: "home", session: nil, at: Date(timeIntervalSince1970: 1))
        try WAV.write([0.5], to: recording.folder + "/seg-0001.wav")
        try store.commitSend(recording.id, fixture.ending("old"), liveBody: nil)
        for index in 0..<3 { try fixture.pending(store, at: Double(10 + index)) }
        #expect(try store.message(recording.id)?.hasAudio == true)
        #expect(FileManager.default.fileExists(atPath: recording.folder + "/seg-0001.wav"))
    }

    @Test func requestsMatchIdsByteForByte() throws {
        let store = try fixture.open()
        let id = try fixture.pending(store)
        #expect(try store.retainedRecording(box: "home", id: id)?.text == "hello")
        #expect(try store.retainedRecording(box: "work", id: id) == nil)
        // A request for the same UUID spelt otherwise names no message of ours.
        #expect(LastAudioRequest(requestId: "r", messageId: id.rawValue).ownMessageId == id)
        #expect(LastAudioRequest(requestId: "r", messageId: id.rawValue.lowercased()).ownMessageId == nil)
    }

    @Test func forgetAndUnpairRemoveAudioButKeepTheMessages() throws {
        let store = try fixture.open()
        let first = try fixture.pending(store, at: 1)
        let second = try fixture.pending(store, at: 2)
        try store.forgetRecording(box: "home", id: first)
        #expect(!FileManager.default.fileExists(atPath: fixture.data + "/recordings/home/" + first.rawValue))
        #expect(try store.forgetBox("home") == 1)
        #expect(try store.retainedRecordings(box: "home").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: fixture.data + "/recordings/home/" + second.rawValue))
        #expect(try store.due().map(\.id) == [first, second])
    }
}

@Suite struct RecoveryTests {
    let fixture = StoreFixture()

    @Test func aRecordingWhoseProcessDiedBecomesADraftWithItsWordsAndRepairedAudio() throws {
        let store = try fixture.open()
        var folder = ""
        var id: MessageID?
        do {
            let recording = try store.beginRecording(box: "home", session: "s1")
            folder = recording.folder
            id = recording.id
            try WAV.write(Signal.toneWithGaps(frames: 9_600, gaps: []), to: folder + "/seg-0001.wav")
            try store.noteHeard(recording.id, text: "half a thought")
        }  // the lease goes with the recording, as it does when its process dies
        try staleHeader(folder + "/seg-0001.wav", claimingBytes: 0)
        let report = try fixture.open().recover()
        let draftId = try #require(id)
        #expect(report.adoptedDrafts == [draftId])
        #expect(report.repairedFiles == 1)
        let draft = try #require(try store.message(draftId))
        #expect(draft.state == .draft)
        #expect(draft.text == "half a thought")
        #expect(try WAV.samples(folder + "/seg-0001.wav").count == 9_600)
        #expect(try fixture.open().recover().isEmpty)  // reported once
    }

    @Test func aRecordingALiveProcessHoldsIsLeftAlone() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: nil)
        try WAV.write([0.1, 0.2, 0.3], to: recording.folder + "/seg-0001.wav")
        #expect(try fixture.open().recover().isEmpty)
        #expect(try store.message(recording.id)?.state == .recording)
        withExtendedLifetime(recording) {}
    }

    @Test func nothingSaidAndNoAudioIsDiscardedNotAdopted() throws {
        let store = try fixture.open()
        var folder = ""
        do { folder = try store.beginRecording(box: "home", session: nil).folder }
        #expect(try store.recover().adoptedDrafts.isEmpty)
        #expect(try store.messages().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func aFolderWithoutARowIsAdoptedAsADraftOnce() throws {
        let store = try fixture.open()
        let orphan = MessageID.new()
        let folder = fixture.data + "/recordings/home/" + orphan.rawValue
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try WAV.write(Signal.toneWithGaps(frames: 4_800, gaps: []), to: folder + "/seg-0001.wav")
        // A folder that is not a message's (an earlier `boxvoice record` kept its takes here) is not touched.
        try FileManager.default.createDirectory(
            atPath: fixture.data + "/recordings/local/2026-12-01T10-00-00", withIntermediateDirectories: true)
        #expect(try store.recover().adoptedDrafts == [orphan])
        #expect(try store.message(orphan)?.state == .draft)
        #expect(try store.retainedRecordings(box: "home").map(\.messageId) == [orphan])
        #expect(try store.recover().isEmpty)
        #expect(FileManager.default.fileExists(atPath: fixture.data + "/recordings/local/2026-12-01T10-00-00"))
    }

    /// An emptied (or replaced) database once made the next run delete every compressed recording: a folder with
    /// only `audio.ogg` held no segments, so it counted as empty.
    @Test func aCompressedRecordingWithNoRowIsAdoptedNotRemoved() throws {
        let first = try fixture.open()
        let id = try fixture.pending(first)
        try #require(try first.compressRecording(id) != nil)
        let folder = fixture.data + "/recordings/home/" + id.rawValue
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: fixture.data + "/boxvoice.sqlite" + suffix)
        }
        let emptied = try fixture.open()
        #expect(try emptied.recover().adoptedDrafts == [id])
        #expect(FileManager.default.fileExists(atPath: folder + "/audio.ogg"))
        #expect(try emptied.retainedRecordings(box: "home").map(\.messageId) == [id])
        withExtendedLifetime(first) {}
    }

    @Test func aFolderADiscardLeftBehindIsRemoved() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: nil)
        let folder = recording.folder
        try store.discard(recording.id)
        // As if the process died between the commit and the removal.
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try WAV.write([0.1], to: folder + "/seg-0001.wav")
        withExtendedLifetime(recording) {}
        #expect(try store.recover().removedFolders == 1)
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func messagesAwaitingHQAreClaimedOnlyWhenTheirRunIsGone() throws {
        let store = try fixture.open()
        var held: MessageStore.Recording? = try store.beginRecording(box: "home", session: nil)
        let id = try #require(held?.id)
        try store.commitSend(id, fixture.ending("x"), liveBody: nil)
        #expect(try store.claimAwaitingHQ(box: "home").isEmpty)
        held = nil
        // Another test's child process, between its fork and exec, briefly shares every open descriptor and so the
        // folder's lock: the claim may find it busy for that moment, never longer.
        var claimed = try store.claimAwaitingHQ(box: "home")
        let deadline = Date().addingTimeInterval(10)
        while claimed.isEmpty, Date() < deadline {
            usleep(20_000)
            claimed = try store.claimAwaitingHQ(box: "home")
        }
        #expect(claimed.map(\.message.id) == [id])
        #expect(try store.claimAwaitingHQ(box: "home").isEmpty)  // this claim holds it now
        withExtendedLifetime(claimed) {}
    }

    /// Rewrites a WAV's RIFF and data sizes, as a writer killed before its header refresh leaves them.
    private func staleHeader(_ path: String, claimingBytes bytes: UInt32) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        let head = try #require(try handle.read(upToCount: 256))
        let data = try #require(head.range(of: Data("data".utf8)))
        try handle.seek(toOffset: 4)
        try handle.write(contentsOf: withUnsafeBytes(of: UInt32(36).littleEndian) { Data($0) })
        try handle.seek(toOffset: UInt64(data.upperBound))
        try handle.write(contentsOf: withUnsafeBytes(of: bytes.littleEndian) { Data($0) })
    }
}
