import CWhisper
import Foundation

/// Silero VAD (v6.2, run by whisper.cpp) over a 16 kHz stream: the probability that each 32 ms window holds speech.
/// This file is the only place that calls whisper.cpp's VAD. Its recurrent state runs on across calls, as the
/// stream does; not thread-safe.
public final class VoiceActivity {
    /// Samples per window the model judges (32 ms at 16 kHz).
    public static let window = 512
    private let context: OpaquePointer

    public init(path: String) throws {
        silenceWhisperLogs()
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw HearingError(
                code: .modelUnusable, detail: "the VAD model \(path) is missing; run `make setup` (it places it)")
        }
        var parameters = whisper_vad_default_context_params()
        parameters.n_threads = 1
        parameters.use_gpu = false
        guard let context = whisper_vad_init_from_file_with_params(path, parameters) else {
            throw HearingError(
                code: .modelUnusable,
                detail: "\(path) is not a Silero VAD model whisper.cpp can load; run `make setup` again")
        }
        self.context = context
        // The recurrent state starts undefined: the streaming call never resets it.
        whisper_vad_reset_state(context)
    }

    deinit { whisper_vad_free(context) }

    /// The speech probability of each whole window of `samples`; a remainder shorter than a window is not judged
    /// (the caller, which pairs windows with their audio, keeps it for its next call).
    public func probabilities(_ samples: [Float]) -> [Float] {
        let whole = samples.count / Self.window * Self.window
        guard whole > 0 else { return [] }
        let ok = samples.withUnsafeBufferPointer {
            whisper_vad_detect_speech_no_reset(context, $0.baseAddress, Int32(whole))
        }
        guard ok, let probabilities = whisper_vad_probs(context) else {
            return Array(repeating: 0, count: whole / Self.window)
        }
        return Array(UnsafeBufferPointer(start: probabilities, count: Int(whisper_vad_n_probs(context))))
    }
}
