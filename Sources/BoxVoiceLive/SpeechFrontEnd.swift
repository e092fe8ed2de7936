import CSpeexDSP
import Foundation

/// What the live path hears is cleaned before the recognizers see it: speexdsp's preprocessor (noise suppression and
/// automatic gain, 20 ms frames at 16 kHz). Only the live path: the recording and HQ get the raw audio. This file is
/// the only place that imports the speexdsp C module.
public struct SpeechFrontEndError: Error, Sendable, CustomStringConvertible {
    public var description: String { "the speexdsp preprocessor could not start (speex_preprocess_state_init failed)" }
}

public final class SpeechFrontEnd {
    /// What the preprocessor does.
    public struct Settings: Sendable, Equatable {
        /// Maximum noise attenuation in dB (negative), nil for no noise suppression.
        public var noiseSuppressDB: Int32?
        /// Automatic gain towards this level (0–32768), nil for none.
        public var agcLevel: Float?

        public init(noiseSuppressDB: Int32? = -25, agcLevel: Float? = 8_000) {
            self.noiseSuppressDB = noiseSuppressDB
            self.agcLevel = agcLevel
        }
    }

    static let frameSamples = 320
    private let state: OpaquePointer
    private var carry: [Int16] = []

    init(settings: Settings, sampleRate: Int32 = 16_000) throws {
        guard let state = speex_preprocess_state_init(Int32(Self.frameSamples), sampleRate) else {
            throw SpeechFrontEndError()
        }
        self.state = state
        var on: Int32 = 1, off: Int32 = 0
        if var level = settings.noiseSuppressDB {
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DENOISE, &on)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &level)
        } else {
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DENOISE, &off)
        }
        if var target = settings.agcLevel {
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC, &on)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_LEVEL, &target)
        }
    }

    deinit { speex_preprocess_state_destroy(state) }

    /// Cleans whole 20 ms frames; a partial frame waits for the next call (output lags input by < 20 ms, and the last
    /// < 20 ms of a stream is not heard).
    func process(_ samples: [Int16]) -> [Int16] { processKeepingRaw(samples).cleaned }

    /// The same whole frames as they came in and as cleaned, sample for sample aligned: for choosing, frame by frame,
    /// which one the recognizers hear while the preprocessor keeps learning the room's noise either way.
    func processKeepingRaw(_ samples: [Int16]) -> (raw: [Int16], cleaned: [Int16]) {
        carry += samples
        let whole = carry.count / Self.frameSamples * Self.frameSamples
        guard whole > 0 else { return ([], []) }
        let raw = Array(carry[..<whole])
        var out = raw
        carry.removeFirst(whole)
        out.withUnsafeMutableBufferPointer { buffer in
            for start in stride(from: 0, to: whole, by: Self.frameSamples) {
                _ = speex_preprocess_run(state, buffer.baseAddress! + start)
            }
        }
        return (raw, out)
    }
}
