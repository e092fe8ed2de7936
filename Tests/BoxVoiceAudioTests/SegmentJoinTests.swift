import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

/// Joining retained segments into one answer WAV within a byte budget, on real files. Small budgets stand in for the
/// 45 MB of the contract so every branch runs on a few seconds of speech.
@Suite struct SegmentJoinTests {
    /// Three segments of a real clip (as a recording would be cut) and the clip itself.
    private func segments(in directory: TemporaryDirectory) throws -> (paths: [String], audio: [Float]) {
        let audio = try WAV.samples(Checkout.sample("none-weather.wav"))
        let cuts = [0, audio.count / 3, 2 * audio.count / 3 + 17, audio.count]
        var paths: [String] = []
        for index in 0..<3 {
            let path = directory.file("seg-\(index).wav")
            try WAV.write(Array(audio[cuts[index]..<cuts[index + 1]]), to: path)
            paths.append(path)
        }
        return (paths, audio)
    }

    private func size(of path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? .max
    }

    private func resampled(_ audio: [Float]) throws -> [Float] {
        let resampler = try Resampler(from: 48_000, to: 16_000)
        return try resampler.process(audio) + resampler.flush()
    }

    @Test func whatFitsIsJoinedAsRecordedSampleForSample() throws {
        let dir = TemporaryDirectory("join")
        let (paths, audio) = try segments(in: dir)
        let format = try SegmentJoin.join(paths, into: dir.file("answer.wav"), maxBytes: audio.count * 4 + 80)
        #expect(format == .float48k)
        let answer = try WAV.read(dir.file("answer.wav"))
        #expect(answer.sampleRate == 48_000 && answer.isFloat32)
        #expect(answer.samples == audio)
    }

    @Test func oneByteTooManyGoesAs16kHz16BitInFull() throws {
        let dir = TemporaryDirectory("join")
        let (paths, audio) = try segments(in: dir)
        let format = try SegmentJoin.join(paths, into: dir.file("answer.wav"), maxBytes: audio.count * 4 + 79)
        #expect(format == .pcm16k)
        let answer = try WAV.read(dir.file("answer.wav"))
        #expect(answer.sampleRate == 16_000 && !answer.isFloat32)
        let expected = try resampled(audio)
        #expect(answer.samples.count == expected.count)
        // The same resampling, streamed a second at a time; only 16-bit rounding differs.
        let worst = zip(answer.samples, expected).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= 1.0 / 16_384, "largest difference \(worst)")
        #expect(try size(of: dir.file("answer.wav")) <= audio.count * 4 + 79)
    }

    @Test func whatDoesNotFitEvenAt16kHzKeepsItsEndWithinTheBudget() throws {
        let dir = TemporaryDirectory("join")
        let (paths, audio) = try segments(in: dir)
        let budget = 16_000 * 2 * 2 + 80  // two seconds at 16 kHz 16-bit
        let format = try SegmentJoin.join(paths, into: dir.file("answer.wav"), maxBytes: budget)
        #expect(format == .pcm16kTail(seconds: 2))
        #expect(format.description == "16 kHz 16-bit, last 2 s only")
        #expect(try size(of: dir.file("answer.wav")) <= budget)
        let answer = try WAV.read(dir.file("answer.wav")).samples
        #expect(answer.count == 32_000)
        // It is the end of the recording: past the resampler's first milliseconds, the same samples as the end of
        // the whole recording resampled.
        let whole = try resampled(audio)
        let end = Array(whole.suffix(answer.count))
        let worst = zip(answer.dropFirst(800), end.dropFirst(800)).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= 1.0 / 4_096, "largest difference \(worst)")
        #expect(Signal.energy(answer, from: 800, count: answer.count - 800) > 0, "speech, not silence")
    }

    @Test func anUnreadableSegmentIsAnErrorNamingIt() throws {
        let dir = TemporaryDirectory("join")
        let (paths, _) = try segments(in: dir)
        try "not audio".write(toFile: paths[1], atomically: true, encoding: .utf8)
        #expect {
            _ = try SegmentJoin.join(paths, into: dir.file("answer.wav"), maxBytes: 45_000_000)
        } throws: { error in
            String(describing: error).contains(paths[1])
        }
    }
}
