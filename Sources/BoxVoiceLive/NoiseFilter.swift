import CDeepFilter
import Foundation

/// DeepFilterNet3 over 48 kHz mono Float32 (the capture rate): noise out, speech kept. This file is the only place
/// that imports its C module. It cleans what the recognizers hear; the recording and the uploads never pass
/// through it. Not thread-safe.
public final class NoiseFilter {
    private let state: OpaquePointer
    /// Samples per hop (480: 10 ms).
    public let hop: Int
    private var carry: [Float] = []

    /// - Parameter attenuationLimit: the most noise, in dB, taken away (100: as much as the model will).
    public init(path: String, attenuationLimit: Float = 100) throws {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw HearingError(
                code: .modelUnusable,
                detail: "the noise filter's model \(path) is missing; run `make setup` (it places it)")
        }
        guard let state = df_create(path, attenuationLimit, nil) else {
            throw HearingError(
                code: .modelUnusable,
                detail: "\(path) is not a DeepFilterNet model the library can load; run `make setup` again")
        }
        self.state = state
        hop = Int(df_get_frame_length(state))
    }

    deinit { df_free(state) }

    /// Cleans whole hops of `carry + samples`; the rest waits for the next call (at most one hop, 10 ms, held back).
    public func process(_ samples: [Float]) -> [Float] {
        let pending = carry + samples
        let whole = pending.count / hop * hop
        carry = Array(pending[whole...])
        guard whole > 0 else { return [] }
        var input = Array(pending[..<whole])
        var output = [Float](repeating: 0, count: whole)
        input.withUnsafeMutableBufferPointer { inputs in
            output.withUnsafeMutableBufferPointer { outputs in
                for start in stride(from: 0, to: whole, by: hop) {
                    _ = df_process_frame(state, inputs.baseAddress! + start, outputs.baseAddress! + start)
                }
            }
        }
        return output
    }

    /// What is still held back (less than one hop), given as it is at the end of the stream.
    public func flush() -> [Float] {
        defer { carry = [] }
        return carry
    }
}
