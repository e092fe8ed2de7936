/// Float32 audio as it may arrive (a broken driver, a damaged or hostile file): NaN, ±Inf or values far outside
/// [-1, 1]. Everything downstream assumes finite samples in range, and a conversion to an integer traps on NaN or on
/// a value past its range, so samples are repaired once, where audio enters, and the repairs are counted.
public enum SampleSanitizer {
    /// NaN → 0, ±Inf and anything beyond full scale → ±1. Returns how many samples were changed.
    @discardableResult
    public static func sanitize(_ samples: UnsafeMutableBufferPointer<Float>) -> Int {
        var repaired = 0
        for index in samples.indices {
            let value = samples[index]
            // One comparison covers the common case: finite and in range (NaN fails it too).
            if value >= -1, value <= 1 { continue }
            samples[index] = value.isNaN ? 0 : (value > 0 ? 1 : -1)
            repaired += 1
        }
        return repaired
    }

    @discardableResult
    public static func sanitize(_ samples: inout [Float]) -> Int {
        samples.withUnsafeMutableBufferPointer { sanitize($0) }
    }

    /// A sample as 16-bit PCM, rounding and clipping at full scale; NaN is silence. Never traps.
    @inline(__always)
    public static func int16(_ sample: Float) -> Int16 {
        guard !sample.isNaN else { return 0 }
        return Int16((min(max(sample, -1), 32_767.0 / 32_768.0) * 32_768).rounded())
    }
}
