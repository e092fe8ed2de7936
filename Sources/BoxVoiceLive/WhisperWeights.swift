import CWhisper
import Foundation
import Synchronization

/// whisper.cpp and ggml write their progress to stderr unless given a callback; the live path's own events say
/// what matters.
private let quietLog: @convention(c) (ggml_log_level, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
    _, _, _ in
}

/// Called before any whisper.cpp context is made (the model's, the VAD's).
func silenceWhisperLogs() { whisper_log_set(quietLog, nil) }

/// Whisper's weights, loaded once per process for each model file and shared by every `WhisperModel` decoding with
/// them: each transcriber (every dictation, each of the daemon's turns, each of boxsim's HQ requests) would
/// otherwise read and lay out the 82 MB again. whisper.cpp only reads a context's weights while decoding, each
/// decoder with a state of its own, so one context serves any number of threads.
final class WhisperWeights: Sendable {
    // Safe to share: after loading, whisper.cpp only reads the context (decodes write to their own states).
    nonisolated(unsafe) let context: OpaquePointer

    private init(context: OpaquePointer) { self.context = context }

    deinit { whisper_free(context) }

    /// The weights of the model at `path`, loaded now if this process has not yet.
    static func of(_ path: String) throws -> WhisperWeights {
        try loaded.value(of: path) {
            var parameters = whisper_context_default_params()
            parameters.use_gpu = false
            parameters.flash_attn = false
            // Word times from the alignment heads' attention (dynamic time warping): a decode given the seconds before
            // its utterance keeps only the words said after them (`UtteranceEnds.ownWords`). The token-probability
            // times whisper.cpp also offers are not set without timestamp tokens.
            parameters.dtw_token_timestamps = true
            parameters.dtw_aheads_preset = try ModelShape(path).alignmentHeads
            guard let context = whisper_init_from_file_with_params_no_state(path, parameters) else {
                throw HearingError(
                    code: .modelUnusable,
                    detail: "\(path) is not a Whisper model whisper.cpp can load; run `make setup` again")
            }
            return WhisperWeights(context: context)
        }
    }

    private static let loaded = ModelFileMemo<WhisperWeights>(limit: 2)
}

/// The size of a Whisper model, read from its ggml header before loading: word timing needs the model's own
/// alignment heads (the attention heads that follow the audio), and whisper.cpp is told which set before it loads.
struct ModelShape: Equatable {
    var vocabulary: Int32
    var textState: Int32
    var textLayers: Int32

    init(vocabulary: Int32, textState: Int32, textLayers: Int32) {
        self.vocabulary = vocabulary
        self.textState = textState
        self.textLayers = textLayers
    }

    init(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw HearingError(code: .modelUnusable, detail: "\(path) cannot be read; run `make setup` again")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 40)) ?? Data()
        let fields = header.count == 40 ? header.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) } : []
        guard fields.count == 10, UInt32(bitPattern: fields[0].littleEndian) == 0x6767_6D6C else {
            throw HearingError(
                code: .modelUnusable, detail: "\(path) is not a Whisper model in ggml format; run `make setup` again")
        }
        self.init(
            vocabulary: fields[1].littleEndian, textState: fields[7].littleEndian, textLayers: fields[9].littleEndian)
    }

    /// Multilingual models have the language tokens (51,865 tokens and more); English-only ones 51,864.
    var isMultilingual: Bool { vocabulary >= 51_865 }

    /// whisper.cpp's alignment heads for this size; a size it has none for uses its top text layers' heads.
    var alignmentHeads: whisper_alignment_heads_preset {
        switch (textState, textLayers) {
        case (384, 4): isMultilingual ? WHISPER_AHEADS_TINY : WHISPER_AHEADS_TINY_EN
        case (512, 6): isMultilingual ? WHISPER_AHEADS_BASE : WHISPER_AHEADS_BASE_EN
        case (768, 12): isMultilingual ? WHISPER_AHEADS_SMALL : WHISPER_AHEADS_SMALL_EN
        case (1024, 24): isMultilingual ? WHISPER_AHEADS_MEDIUM : WHISPER_AHEADS_MEDIUM_EN
        default: WHISPER_AHEADS_N_TOP_MOST
        }
    }
}
