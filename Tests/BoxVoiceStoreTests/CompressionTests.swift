import BoxVoiceAudio
import BoxVoiceContract
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

/// Retained recordings kept compressed once their message is committed (issue: Opus on disk).
@Suite struct CompressionTests {
    let fixture = StoreFixture()

    /// A pending message whose recording is `clips` as segments.
    private func pending(_ store: MessageStore, _ clips: [String]) throws -> MessageID {
        let recording = try store.beginRecording(box: "home", session: "s1")
        for (index, clip) in clips.enumerated() {
            try WAV.write(
                try WAV.samples(Checkout.sample(clip)),
                to: recording.folder + String(format: "/seg-%04d.wav", index + 1))
        }
        try store.commitSend(recording.id, fixture.ending("hello"), liveBody: nil)
        try store.frame(recording.id, body: "<speech stt=\"live\">hello</speech>", text: "hello")
        return recording.id
    }

    @Test func aCommittedRecordingBecomesOneOggOpusFileAndItsSegmentsGo() throws {
        let store = try fixture.open()
        let id = try pending(store, ["none-weather.wav", "none-budget.wav"])
        let before = try #require(try store.retainedRecording(box: "home", id: id))
        #expect(before.segments.count == 2)
        let expected = try before.segments.reduce(0) { $0 + (try WAV.samples($1)).count }
        let done = try #require(try store.compressRecording(id))
        #expect(done.bytesBefore / done.bytesAfter >= 25, "\(done.bytesBefore) → \(done.bytesAfter)")
        let after = try #require(try store.retainedRecording(box: "home", id: id))
        #expect(after.segments.count == 1 && after.segments[0].hasSuffix("/audio.ogg"))
        let file = try SoundFile.open(path: after.segments[0])
        #expect(file.container == .oggOpus)
        #expect(abs(try file.readAll().count - expected) <= 960)
        let names = try FileManager.default.contentsOfDirectory(
            atPath: (after.segments[0] as NSString).deletingLastPathComponent)
        #expect(names == ["audio.ogg"], "\(names)")
        let mode = try FileManager.default.attributesOfItem(atPath: after.segments[0])[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try store.compressRecording(id) == nil, "already compressed")
    }

    /// The daemon's pass and `dictate`'s own compression once ran on one recording at once, both writing the same
    /// partial file: 58 s of 150 s were kept and the segments deleted. The lease lets only its holder compress.
    @Test func aRecordingLeasedByAnotherRunIsLeftToItAndItsHolderCompressesItWhole() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: "s1")
        let clips = ["none-weather.wav", "none-budget.wav"]
        for (index, clip) in clips.enumerated() {
            try WAV.write(
                try WAV.samples(Checkout.sample(clip)),
                to: recording.folder + String(format: "/seg-%04d.wav", index + 1))
        }
        try store.commitSend(recording.id, fixture.ending("hello"), liveBody: nil)
        try store.frame(recording.id, body: "<speech stt=\"live\">hello</speech>", text: "hello")
        let expected = try clips.reduce(0) { $0 + (try WAV.samples(Checkout.sample($1))).count }
        // The run that recorded it still holds its lease: another pass leaves it alone.
        #expect(try store.compressRetained(box: "home").compressed.isEmpty)
        #expect(try store.compressRecording(recording.id) == nil)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: recording.folder).sorted() == [
                "seg-0001.wav", "seg-0002.wav",
            ])
        // Its holder compresses it, whole.
        #expect(try store.compressRecording(recording.id, holding: recording.lease) != nil)
        let kept = try #require(try store.retainedRecording(box: "home", id: recording.id))
        #expect(kept.segments.count == 1 && kept.segments[0].hasSuffix("/audio.ogg"))
        #expect(abs(try SoundFile.open(path: kept.segments[0]).readAll().count - expected) <= 960)
    }

    @Test func flacIsKeptWhenConfiguredAndWAVLeavesTheSegmentsAlone() throws {
        let store = try fixture.open()
        try store.setRetentionFormat(.flac)
        let flac = try pending(store, ["none-weather.wav"])
        try store.compressRecording(flac)
        let kept = try #require(try store.retainedRecording(box: "home", id: flac))
        #expect(kept.segments.first?.hasSuffix("/audio.flac") == true)
        #expect(
            try SoundFile.open(path: kept.segments[0]).readAll().count
                == (try WAV.samples(Checkout.sample("none-weather.wav"))).count)

        try store.setRetentionFormat(.wav)
        let wav = try pending(store, ["none-weather.wav"])
        #expect(try store.compressRecording(wav) == nil)
        #expect(
            try store.retainedRecording(box: "home", id: wav)?.segments.first?.hasSuffix(
                "/seg-0001.wav") == true)
    }

    /// A sweep once dropped a failed compression without a word; it is reported, and the segments stay as recorded.
    @Test func aRecordingThatCannotBeCompressedIsReportedAndKeptAsRecorded() throws {
        let store = try fixture.open()
        let good = try pending(store, ["none-weather.wav"])
        let bad = try pending(store, ["none-budget.wav"])
        let segment = try #require(try store.retainedRecording(box: "home", id: bad)?.segments.first)
        let damaged = Data("not a WAV at all".utf8)
        try damaged.write(to: URL(fileURLWithPath: segment))
        let sweep = try store.compressRetained(box: "home")
        #expect(sweep.compressed.map(\.id) == [good])
        #expect(sweep.failed.map(\.id) == [bad])
        #expect(FileManager.default.contents(atPath: segment) == damaged)
        #expect(try store.retainedRecording(box: "home", id: bad)?.segments == [segment])
    }

    @Test func aRecordingStillNeededForHQIsNotCompressed() throws {
        let store = try fixture.open()
        let recording = try store.beginRecording(box: "home", session: "s1")
        try WAV.write(try WAV.samples(Checkout.sample("none-weather.wav")), to: recording.folder + "/seg-0001.wav")
        try store.commitSend(recording.id, fixture.ending("hello"), liveBody: nil)  // awaiting HQ
        #expect(try store.compressRecording(recording.id) == nil)
        #expect(FileManager.default.fileExists(atPath: recording.folder + "/seg-0001.wav"))
    }

    @Test func segmentsACrashLeftBesideAWholeCompressedFileAreRemovedNextTime() throws {
        let store = try fixture.open()
        let id = try pending(store, ["none-weather.wav"])
        let folder = try #require(try store.retainedRecording(box: "home", id: id)?.segments.first)
            .replacingOccurrences(of: "/seg-0001.wav", with: "")
        // The crash: the compressed file is whole, the segments were not removed yet.
        try AudioEncoding.encode([folder + "/seg-0001.wav"], to: folder + "/audio.ogg", as: .speechOpus)
        #expect(try store.retainedRecording(box: "home", id: id)?.segments == [folder + "/audio.ogg"])
        #expect(try store.compressRetained().compressed.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["audio.ogg"])
    }

    /// Retention keeps five recordings per box (`RetentionAndRecoveryTests`); five ten-minute ones must fit in 25 MB.
    /// One is compressed and counted five times: the encoder is deterministic, so five copies of the same speech
    /// would cost five times its bytes, and encoding fifty minutes here cost the suite 12 CPU-s to learn nothing more.
    @Test func fiveTenMinuteRecordingsFitInTwentyFiveMegabytes() throws {
        let store = try fixture.open()
        // Ten minutes of real speech, looped from the samples (the same words cost the same bytes).
        let speech = try ["long-meeting-notes.wav", "none-weather.wav", "none-budget.wav"].flatMap {
            try WAV.samples(Checkout.sample($0))
        }
        let recording = try store.beginRecording(box: "home", session: "s1")
        var written = 0, index = 1
        while written < 600 * 48_000 {
            let take = Array(speech.prefix(min(speech.count, 600 * 48_000 - written, 60 * 48_000)))
            try WAV.write(take, to: recording.folder + String(format: "/seg-%04d.wav", index))
            written += take.count
            index += 1
        }
        try store.commitSend(recording.id, fixture.ending("ten minutes"), liveBody: nil)
        try store.frame(recording.id, body: "<speech stt=\"live\">ten minutes</speech>", text: "ten minutes")
        let compressed = try #require(try store.compressRecording(recording.id, holding: recording.lease))
        let kept = try #require(try store.retainedRecording(box: "home", id: recording.id))
        #expect(kept.segments.count == 1 && kept.segments[0].hasSuffix(".ogg"))
        #expect(5 * compressed.bytesAfter <= 25_000_000, "\(compressed.bytesAfter) bytes for one ten-minute recording")
    }
}
