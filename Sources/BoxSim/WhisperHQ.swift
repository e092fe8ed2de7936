import BoxVoiceLive

/// What boxsim's `--hq whisper` makes of an upload: the recording as the recognizers take it (16-bit samples at
/// 16 kHz), decoded by Whisper as a recording (window by window, no prompt). The bench's stand-in for a box's
/// second opinion asks this same function, so the two cannot drift apart.
public enum WhisperHQ {
    /// The text of `samples` (16 kHz, 16-bit, as `SpeechConversion.recognizerSamples` gives them).
    public static func text(of samples: [Int16], by model: WhisperModel) throws -> String {
        try model.transcribe(samples.map { Float($0) / 32_768 }, prompt: nil, oneSegment: false).text
    }
}
