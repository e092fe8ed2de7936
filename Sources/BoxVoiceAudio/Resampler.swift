import CSoxr

/// A failure reported by libsoxr.
public struct ResamplerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let libraryMessage: String
    public var description: String { "resampling failed: \(libraryMessage)" }
}

/// Streaming mono sample-rate conversion through libsoxr (high quality). This file is the only place
/// that imports the soxr C module. Feeds the live recognizer (16 kHz) and compact answers (§7.2).
///
/// Not thread-safe: one owner at a time.
public final class Resampler {
    public let inputRate: Double
    public let outputRate: Double
    private let handle: soxr_t

    public init(from inputRate: Double, to outputRate: Double) throws {
        self.inputRate = inputRate
        self.outputRate = outputRate
        var error: soxr_error_t?
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
        guard let created = soxr_create(inputRate, outputRate, 1, &error, &io, &quality, nil), error == nil else {
            throw ResamplerError(libraryMessage: error.map { String(cString: $0) } ?? "soxr_create returned nothing")
        }
        handle = created
    }

    deinit { soxr_delete(handle) }

    /// Converts the next stretch of input; output lags by the filter's delay until `flush`.
    public func process(_ input: [Float]) throws -> [Float] {
        input.isEmpty ? [] : try run(input, last: false)
    }

    /// Drains what the filter still holds at the end of the stream.
    public func flush() throws -> [Float] {
        try run([], last: true)
    }

    private func run(_ input: [Float], last: Bool) throws -> [Float] {
        let block = 4096
        var output: [Float] = []
        output.reserveCapacity(Int((Double(input.count) * outputRate / inputRate).rounded(.up)) + block)
        var scratch = [Float](repeating: 0, count: block)
        var offset = 0
        while true {
            var consumed = 0
            var produced = 0
            let error: soxr_error_t? = input.withUnsafeBufferPointer { inBuf in
                scratch.withUnsafeMutableBufferPointer { outBuf in
                    // A nil input tells soxr the stream has ended, so it flushes its filter.
                    let source = last ? nil : UnsafeRawPointer(inBuf.baseAddress.map { $0 + offset })
                    return soxr_process(
                        handle, source, last ? 0 : input.count - offset, &consumed,
                        outBuf.baseAddress, block, &produced)
                }
            }
            if let error { throw ResamplerError(libraryMessage: String(cString: error)) }
            offset += consumed
            output.append(contentsOf: scratch[0..<produced])
            if last ? produced == 0 : (offset >= input.count && produced < block) { break }
        }
        return output
    }
}
