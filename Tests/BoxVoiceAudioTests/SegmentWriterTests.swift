import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct SegmentWriterTests {
    @Test func segmentCutsAtQuietPointBeforeMaximumAndCarriesTheTail() throws {
        let dir = TemporaryDirectory("writer")
        // 1 s segments, 0.25 s search, 20 ms windows. One silent window 0.84 s into the first segment,
        // another 0.9 s into the second (windows count from each segment's start).
        let policy = SegmentPolicy(sampleRate: 48_000, maxSeconds: 1, searchSeconds: 0.25, windowMilliseconds: 20)
        let input = Signal.toneWithGaps(frames: 120_000, gaps: [40_320..<41_280, 83_520..<84_480])
        let writer = SegmentWriter(directory: dir.path, policy: policy)
        var closed: [ClosedSegment] = []
        for start in stride(from: 0, to: input.count, by: 960) {
            closed += try writer.append(Array(input[start..<min(start + 960, input.count)]))
        }
        if let last = try writer.finish() { closed.append(last) }

        #expect(closed.map(\.index) == [1, 2, 3])
        #expect(closed.map(\.frames) == [40_320, 43_200, 36_480])
        #expect(closed.map(\.startFrame) == [0, 40_320, 83_520])
        var joined: [Float] = []
        for segment in closed {
            #expect(segment.frames <= Int64(policy.maxFrames))
            let read = try WAV.read(segment.path)
            #expect(read.sampleRate == 48_000 && read.channels == 1 && read.isFloat32)
            #expect(Int64(read.samples.count) == segment.frames)
            joined += read.samples
        }
        #expect(joined == input)
    }

    @Test func finishingAtAnEarlierFrameCutsTheOpenSegmentAndHandsBackTheRest() throws {
        let dir = TemporaryDirectory("writer")
        let policy = SegmentPolicy(sampleRate: 48_000, maxSeconds: 1, searchSeconds: 0.25, windowMilliseconds: 20)
        let input = (0..<130_000).map { Float(($0 % 4_801)) / 4_801 - 0.5 }
        let writer = SegmentWriter(directory: dir.path, policy: policy)
        var closed: [ClosedSegment] = []
        for start in stride(from: 0, to: input.count, by: 960) {
            closed += try writer.append(Array(input[start..<min(start + 960, input.count)]))
        }
        #expect(writer.totalFrames == 130_000)
        // Halfway into the open segment.
        let end = Int(writer.closedFrames + (writer.totalFrames - writer.closedFrames) / 2)
        let (last, tail) = try writer.finish(atFrame: Int64(end))
        let segment = try #require(last)
        #expect(segment.startFrame + segment.frames == Int64(end))
        #expect(try WAV.read(segment.path).samples == Array(input[Int(segment.startFrame)..<end]))
        #expect(tail == Array(input[end...]))
        #expect(closed.allSatisfy { $0.startFrame + $0.frames <= Int64(end) })
    }

    /// The recognizer decides where a message ends while the recording runs ahead: the end can lie behind a segment
    /// that closed meanwhile. Everything after it comes back, sample for sample, and no file holds any of it.
    @Test(
        arguments: [
            (Int64(10_000), Int64(0)), (Int64(40_000), Int64(0)), (Int64(52_000), Int64(0)), (Int64(90_000), Int64(0)),
            (Int64(30_000), Int64(43_000)), (Int64(0), Int64(0)),
        ] as [(Int64, Int64)])
    func finishingInsideAClosedSegmentHandsBackEverythingAfterIt(end: Int64, earliest: Int64) throws {
        let dir = TemporaryDirectory("writer-back")
        let policy = SegmentPolicy(sampleRate: 48_000, maxSeconds: 1, searchSeconds: 0.25, windowMilliseconds: 20)
        let input = (0..<130_000).map { Float(($0 % 4_801)) / 4_801 - 0.5 }
        let writer = SegmentWriter(directory: dir.path, policy: policy)
        for start in stride(from: 0, to: input.count, by: 960) {
            _ = try writer.append(Array(input[start..<min(start + 960, input.count)]))
        }
        #expect(writer.closedSegments.count >= 2, "segments closed before the end is known")
        let (segments, tail) = try writer.finish(atFrame: end, notBefore: earliest)
        let kept = Int(max(end, earliest))
        var joined: [Float] = []
        for segment in segments { joined += try WAV.samples(segment.path) }
        #expect(joined.count == kept)
        #expect(firstDifference(joined, Array(input[..<kept])) == nil)
        #expect(firstDifference(tail, Array(input[kept...])) == nil)
        #expect(segments.map(\.index) == (0..<segments.count).map { $0 + 1 })
        #expect(segments.allSatisfy { $0.frames > 0 })
        // No file is left beyond the kept segments (the open one and any later closed one are gone).
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(files == segments.map { ($0.path as NSString).lastPathComponent })
    }

    @Test func finishingBeforeTheOpenSegmentLeavesNoEmptyFileAndReturnsAllOfIt() throws {
        let dir = TemporaryDirectory("writer")
        let policy = SegmentPolicy(maxFrames: 1_000, searchFrames: 100, windowFrames: 10)
        let writer = SegmentWriter(directory: dir.path, policy: policy)
        let input = (0..<1_500).map { Float($0) / 1_500 }
        let closed = try writer.append(input)
        let first = try #require(closed.first)
        let (last, tail) = try writer.finish(atFrame: 10)
        #expect(last == nil)
        #expect(tail == Array(input[Int(first.frames)...]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [SegmentWriter.fileName(index: 1)])
        // Past the end: an ordinary finish.
        let again = SegmentWriter(directory: dir.file("b"), policy: policy)
        _ = try again.append(Array(input[..<500]))
        let (whole, none) = try again.finish(atFrame: 9_999)
        #expect(whole?.frames == 500 && none.isEmpty)
    }

    @Test func announcesEachSegmentFromTheAppendThatFilledIt() throws {
        let dir = TemporaryDirectory("writer")
        let policy = SegmentPolicy(maxFrames: 1_000, searchFrames: 100, windowFrames: 10)
        let writer = SegmentWriter(directory: dir.path, policy: policy)
        #expect(try writer.append([Float](repeating: 0.5, count: 999)).isEmpty)
        let closed = try writer.append([0.5])
        #expect(closed.count == 1)
        #expect(FileManager.default.fileExists(atPath: closed[0].path))
        #expect(closed[0].frames == 990)  // equal windows: the latest, [990, 1000)
        #expect(writer.openSegmentPath == dir.file("seg-0002.wav"))
    }

    @Test func headerOnDiskTracksTheDataWhileWriting() throws {
        let dir = TemporaryDirectory("writer")
        let writer = SegmentWriter(directory: dir.path, policy: SegmentPolicy(), headerRefreshFrames: 48_000)
        var written = 0
        for _ in 0..<260 {  // 5.2 s in 20 ms chunks
            _ = try writer.append([Float](repeating: 0.1, count: 960))
            written += 960
            let onDisk = try SoundFile.open(path: dir.file("seg-0001.wav"))
            #expect(onDisk.frames <= Int64(written))
            #expect(Int64(written) - onDisk.frames < 48_000 + 4_800)  // one header refresh + one write batch
            // What reached the file is never more than one 100 ms batch behind.
            let bytes = try FileManager.default.attributesOfItem(atPath: dir.file("seg-0001.wav"))[.size] as! Int
            #expect(written - (bytes - 80) / 4 < 4_800)
        }
        _ = try writer.finish()
    }

    @Test func finishingWithNothingWrittenLeavesNoFile() throws {
        let dir = TemporaryDirectory("writer")
        let policy = SegmentPolicy(maxFrames: 100, searchFrames: 100, windowFrames: 10)
        let writer = SegmentWriter(directory: dir.path, policy: policy)
        #expect(try writer.finish() == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func firstIndexContinuesNumbering() throws {
        let dir = TemporaryDirectory("writer")
        let writer = SegmentWriter(directory: dir.path, firstIndex: 7)
        _ = try writer.append([0.1, 0.2])
        let segment = try #require(try writer.finish())
        #expect(segment.path.hasSuffix("/seg-0007.wav"))
        #expect(try WAV.samples(segment.path) == [0.1, 0.2])
    }

    @Test func missingFolderIsCreated() throws {
        let dir = TemporaryDirectory("writer")
        let writer = SegmentWriter(directory: dir.file("a/b"))
        _ = try writer.append([0.5])
        #expect(try #require(try writer.finish()).path == dir.file("a/b/seg-0001.wav"))
    }

    @Test func unusableFolderIsAnErrorNamingThePath() throws {
        let dir = TemporaryDirectory("writer")
        try "a file, not a folder".write(toFile: dir.file("plain"), atomically: true, encoding: .utf8)
        let writer = SegmentWriter(directory: dir.file("plain/rec"))
        #expect {
            _ = try writer.append([0.1])
        } throws: { error in
            String(describing: error).contains(dir.file("plain/rec"))
        }
    }
}
