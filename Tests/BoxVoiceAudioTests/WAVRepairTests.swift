import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct WAVRepairTests {
    /// A float WAV whose header was last refreshed after `headerFrames`, with `frames` on disk — what a kill leaves.
    private func stale(headerFrames: Int, frames: Int, in dir: TemporaryDirectory) throws -> (String, [Float]) {
        let path = dir.file("stale.wav")
        let samples = (0..<frames).map { Float(sin(Double($0) / 7)) * 0.5 }
        let file = try SoundFile.createFloatWAV(path: path)
        try file.write(Array(samples[..<headerFrames]))
        try file.updateHeader()
        try file.write(Array(samples[headerFrames...]))
        let copy = dir.file("killed.wav")
        try FileManager.default.copyItem(atPath: path, toPath: copy)  // copied before close: the header is stale
        try file.close()
        return (copy, samples)
    }

    @Test func repairRestoresEveryFrameOnDisk() throws {
        let dir = TemporaryDirectory("repair")
        let (path, samples) = try stale(headerFrames: 48_000, frames: 70_000, in: dir)
        #expect(try SoundFile.open(path: path).frames == 48_000)
        #expect(try WAVRepair.repair(path: path) == .repaired(headerFrames: 48_000, frames: 70_000))
        #expect(try WAV.samples(path) == samples)
        #expect(try WAVRepair.repair(path: path) == .intact(frames: 70_000))
    }

    @Test func aPartialTrailingFrameIsDropped() throws {
        let dir = TemporaryDirectory("repair")
        let (path, samples) = try stale(headerFrames: 10, frames: 20, in: dir)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2]))
        try handle.close()
        #expect(try WAVRepair.repair(path: path) == .repaired(headerFrames: 10, frames: 20))
        #expect(try WAV.samples(path) == samples)
    }

    @Test func notAWAVIsRefusedAndLeftAlone() throws {
        let dir = TemporaryDirectory("repair")
        let path = dir.file("notes.wav")
        try "hello, not audio".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: WAVRepair.Failure.self) { try WAVRepair.repair(path: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "hello, not audio")
    }

    @Test func repairSegmentsReportsOnlyWhatItChanged() throws {
        let dir = TemporaryDirectory("repair")
        _ = try stale(headerFrames: 5, frames: 9, in: dir)
        let results = WAVRepair.repairSegments(under: dir.path)
        #expect(results.count == 1)
        #expect(results.first?.path == dir.file("killed.wav"))
    }
}

@Suite struct ResamplerTests {
    @Test func fortyEightToSixteenKeepsAToneAndAThirdOfTheFrames() throws {
        let resampler = try Resampler(from: 48_000, to: 16_000)
        let input = (0..<48_000).map { Float(sin(2 * .pi * 1_000 * Double($0) / 48_000)) * 0.5 }
        var output: [Float] = []
        for start in stride(from: 0, to: input.count, by: 960) {
            output += try resampler.process(Array(input[start..<start + 960]))
        }
        output += try resampler.flush()
        #expect(abs(output.count - 16_000) <= 2)
        // 1 kHz at 16 kHz: 2,000 zero crossings a second; amplitude kept.
        let middle = output[2_000..<14_000]
        let crossings = zip(middle, middle.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect(abs(crossings - 1_500) <= 2)
        #expect(abs((middle.max() ?? 0) - 0.5) < 0.01)
    }
}
