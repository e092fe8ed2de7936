import BoxVoiceAudio
import Testing

@Suite struct SampleFormatTests {
    private func roundTrip(_ format: SampleFormat, _ samples: [Float]) -> [Float] {
        let bytes = format.encode(samples)
        var out: [Float] = []
        _ = bytes.withUnsafeBytes {
            format.convertToFloat($0.baseAddress!, frameCount: samples.count, appendingTo: &out)
        }
        return out
    }

    @Test func floatSamplesInRangePassThroughBitExact() {
        let samples: [Float] = [0, -0.0, 1, -1, 0.123456789, -0.999999, .leastNonzeroMagnitude]
        let back = roundTrip(.float32LE, samples)
        #expect(back.map(\.bitPattern) == samples.map(\.bitPattern))
    }

    /// Where captured audio enters, a float beyond full scale is clipped (it once passed through as it was).
    @Test func floatSamplesBeyondFullScaleAreClipped() {
        #expect(roundTrip(.float32LE, [3.5, -2, 0.5]) == [1, -1, 0.5])
    }

    @Test func s16ConvertsByDividingBy32768() {
        let raw: [Int16] = [0, 1, -1, 16_384, -16_384, 32_767, -32_768]
        var bytes: [UInt8] = []
        for value in raw { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        var out: [Float] = []
        _ = bytes.withUnsafeBytes {
            SampleFormat.signed16LE.convertToFloat($0.baseAddress!, frameCount: raw.count, appendingTo: &out)
        }
        let expected: [Float] = [0, 1.0 / 32_768, -1.0 / 32_768, 0.5, -0.5, 32_767.0 / 32_768, -1]
        #expect(out == expected)
    }

    @Test func s32ConvertsByDividingBy2To31() {
        let raw: [Int32] = [0, 1 << 30, -(1 << 30), .max, .min, 65_536]
        var bytes: [UInt8] = []
        for value in raw { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        var out: [Float] = []
        _ = bytes.withUnsafeBytes {
            SampleFormat.signed32LE.convertToFloat($0.baseAddress!, frameCount: raw.count, appendingTo: &out)
        }
        let expected: [Float] = [
            0, 0.5, -0.5, Float(Double(Int32.max) / 2_147_483_648.0), -1, Float(65_536.0 / 2_147_483_648.0),
        ]
        #expect(out == expected)
    }

    @Test func integerEncodingClipsAtFullScaleAndRoundsToNearest() {
        let s16 = roundTrip(.signed16LE, [2, -2, 0.25, 1.0 / 65_536 * 3])
        #expect(s16[0] == 32_767.0 / 32_768)
        #expect(s16[1] == -1)
        #expect(s16[2] == 0.25)
        #expect(s16[3] == 2.0 / 32_768)  // 1.5 LSB rounds to 2
        let s32 = roundTrip(.signed32LE, [2, -2, 0.25])
        let expected: [Float] = [Float(Double(Int32.max) / 2_147_483_648.0), -1, 0.25]
        #expect(s32 == expected)
    }

    @Test func alsaNamesParseCaseInsensitively() {
        #expect(SampleFormat(alsaName: "float_le") == .float32LE)
        #expect(SampleFormat(alsaName: "S16_LE") == .signed16LE)
        #expect(SampleFormat(alsaName: "S24_LE") == nil)
        #expect(SampleFormat.capturePreference == [.float32LE, .signed32LE, .signed16LE])
    }
}
