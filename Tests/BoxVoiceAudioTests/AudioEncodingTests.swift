import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct AudioEncodingTests {
    let dir = TemporaryDirectory("encoding")

    @Test func opusHoldsTheSameDurationInAFractionOfTheBytes() throws {
        let input = Checkout.sample("long-meeting-notes.wav")
        let wav = try WAV.read(input)
        let output = dir.file("notes.ogg")
        let encoded = try AudioEncoding.encode([input], to: output, as: .speechOpus)
        #expect(encoded.frames == Int64(wav.samples.count))
        let wavBytes = try #require(try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int)
        #expect(Int64(wavBytes) / encoded.bytes >= 25, "\(wavBytes) B as WAV, \(encoded.bytes) B as Opus")
        let decoded = try SoundFile.open(path: output)
        #expect(decoded.container == .oggOpus && decoded.sampleRate == 48_000 && decoded.channels == 1)
        let samples = try decoded.readAll()
        #expect(abs(samples.count - wav.samples.count) <= 960, "\(samples.count) vs \(wav.samples.count) frames")
        // Lossy, but the same speech: every second with speech in it keeps its loudness within 3 dB.
        var voiced = 0
        for second in stride(from: 0, to: min(samples.count, wav.samples.count) - 48_000, by: 48_000) {
            let a = rms(wav.samples[second..<second + 48_000]), b = rms(samples[second..<second + 48_000])
            guard a > 0.01 else { continue }
            voiced += 1
            #expect(abs(20 * log10(b / a)) <= 3, "second \(second / 48_000): \(a) vs \(b)")
        }
        #expect(voiced > 10)
    }

    @Test func aHigherBitrateMakesALargerFile() throws {
        let input = Checkout.sample("none-weather.wav")
        let low = try AudioEncoding.encode([input], to: dir.file("low.ogg"), as: .opus(bitsPerSecond: 12_000))
        let high = try AudioEncoding.encode([input], to: dir.file("high.ogg"), as: .opus(bitsPerSecond: 64_000))
        #expect(high.bytes > low.bytes * 2, "\(low.bytes) vs \(high.bytes)")
    }

    @Test func flacIsLosslessAt24Bits() throws {
        let input = Checkout.sample("none-weather.wav")
        let wav = try WAV.samples(input)
        let encoded = try AudioEncoding.encode([input], to: dir.file("w.flac"), as: .flac)
        let decoded = try SoundFile.open(path: dir.file("w.flac"))
        #expect(decoded.container == .flac)
        let samples = try decoded.readAll()
        #expect(samples.count == wav.count && encoded.frames == Int64(wav.count))
        let worst = zip(samples, wav).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= 1.0 / Float(1 << 23), "largest difference \(worst)")
    }

    @Test func segmentsAreJoinedInOrder() throws {
        let a = Checkout.sample("none-weather.wav"), b = Checkout.sample("none-budget.wav")
        let encoded = try AudioEncoding.encode([a, b], to: dir.file("ab.flac"), as: .flac)
        let expected = try WAV.samples(a) + WAV.samples(b)
        let decoded = try SoundFile.open(path: dir.file("ab.flac")).readAll()
        #expect(encoded.frames == Int64(expected.count) && decoded.count == expected.count)
        #expect(zip(decoded, expected).allSatisfy { abs($0 - $1) <= 1.0 / Float(1 << 23) })
    }

    @Test func aFailedEncodingLeavesNoFile() throws {
        let notAudio = dir.file("notes.txt")
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: notAudio))
        #expect(throws: SoundFileError.self) {
            try AudioEncoding.encode([notAudio], to: dir.file("x.ogg"), as: .speechOpus)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.ogg")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.ogg.partial")))
    }

    private func rms(_ samples: ArraySlice<Float>) -> Float {
        (samples.reduce(0) { $0 + $1 * $1 } / Float(max(samples.count, 1))).squareRoot()
    }
}
