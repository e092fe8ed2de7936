import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct SampleSanitizerTests {
    @Test(
        arguments: [
            (Float.nan, Float(0)), (-Float.nan, Float(0)), (Float.signalingNaN, Float(0)), (Float.infinity, Float(1)),
            (-Float.infinity, Float(-1)), (Float(1e30), Float(1)), (Float(-1e30), Float(-1)),
            (Float(1.000_001), Float(1)),
            (Float(-1.5), Float(-1)), (Float.greatestFiniteMagnitude, Float(1)),
        ] as [(Float, Float)])
    func aDamagedSampleIsRepaired(_ bad: Float, _ repaired: Float) {
        var samples: [Float] = [0.25, bad, -0.5]
        #expect(SampleSanitizer.sanitize(&samples) == 1)
        #expect(samples == [0.25, repaired, -0.5])
    }

    @Test(
        arguments: [Float(0), -0.0, 1, -1, 0.999_999, Float.leastNonzeroMagnitude, -Float.leastNormalMagnitude]
            as [Float])
    func aSampleInRangeIsLeftBitExact(_ good: Float) {
        var samples = [good]
        #expect(SampleSanitizer.sanitize(&samples) == 0)
        #expect(samples[0].bitPattern == good.bitPattern)
    }

    /// The 16-bit conversion every recognizer path uses never traps, whatever it is handed.
    @Test(
        arguments: [
            (Float.nan, Int16(0)), (Float.infinity, Int16.max), (-Float.infinity, Int16.min), (Float(1e30), Int16.max),
            (Float(-1e30), Int16.min), (Float(1), Int16.max), (Float(-1), Int16.min), (Float(0.5), Int16(16_384)),
            (Float(-0.5), Int16(-16_384)), (Float(0), Int16(0)),
        ] as [(Float, Int16)])
    func sixteenBitConversionClipsAndNeverTraps(_ sample: Float, _ expected: Int16) {
        #expect(SampleSanitizer.int16(sample) == expected)
    }

    /// A file is where audio enters too: a WAV holding NaN and Inf reads back repaired, and counted.
    @Test func aDamagedFileReadsBackRepaired() throws {
        let dir = TemporaryDirectory("sanitize-file")
        try WAV.write([0.1, .nan, .infinity, -.infinity, 3, -0.2], to: dir.file("bad.wav"))
        let file = try SoundFile.open(path: dir.file("bad.wav"))
        #expect(try file.readAll() == [0.1, 0, 1, -1, 1, -0.2])
        #expect(file.samplesRepaired == 4)
    }
}
