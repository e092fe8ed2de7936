import BoxVoiceAudio

/// Turns recordings into what the recognizer takes: 16 kHz mono 16-bit.
public enum SpeechConversion {
    /// Float32 [-1, 1] at `rate` → 16 kHz Int16 (libsoxr resampling, rounding, clipping at full scale).
    public static func recognizerSamples(from samples: [Float], rate: Int) throws -> [Int16] {
        var converted = samples
        if rate != PocketSphinxDecoder.sampleRate {
            let resampler = try Resampler(from: Double(rate), to: Double(PocketSphinxDecoder.sampleRate))
            converted = try resampler.process(samples) + resampler.flush()
        }
        return converted.map(SampleSanitizer.int16)
    }

    /// A whole sound file, mixed down to mono, as recognizer samples.
    public static func recognizerSamples(fromFile path: String) throws -> [Int16] {
        let file = try SoundFile.open(path: path)
        let mono = try file.readAllMono()
        return try recognizerSamples(from: mono, rate: file.sampleRate)
    }
}
