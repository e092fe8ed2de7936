import BoxVoiceAudio
import Foundation

/// A sample clip in seeded white noise: the same noise every run, so a condition can be calibrated on and measured.
public enum Noise {
    /// Seeded Gaussian white noise (Box–Muller), unit variance.
    public static func white(_ count: Int, seed: UInt64) -> [Float] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ -> Float in
            let u = max(Double.random(in: 0..<1, using: &random), 1e-12), v = Double.random(in: 0..<1, using: &random)
            return Float(sqrt(-2 * log(u)) * cos(2 * .pi * v))
        }
    }

    /// 48 kHz samples of `clip` with Gaussian white noise `snr` dB below its speech (speech taken as twice its RMS).
    public static func clip(_ clip: String, snr: Double, seed: UInt64) throws -> [Float] {
        let clean = try WAVCapturePCM.load(Checkout.sample(clip))
        let noise = white(clean.count, seed: seed)
        let level = sqrt(clean.reduce(0) { $0 + Double($1) * Double($1) } / Double(clean.count)) * 2
        let gain = Float(level / pow(10, snr / 20))
        return zip(clean, noise).map { $0 + gain * $1 }
    }
}
