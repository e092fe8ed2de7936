/// The sample encodings a capture device may hand us. Everything downstream is Float32 in [-1, 1],
/// so the device's encoding matters only at the capture edge.
public enum SampleFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    case float32LE = "FLOAT_LE"
    case signed32LE = "S32_LE"
    case signed16LE = "S16_LE"

    /// Preferred first: Float32 needs no conversion, S32 keeps more precision than S16.
    public static let capturePreference: [SampleFormat] = [.float32LE, .signed32LE, .signed16LE]

    public var bytesPerSample: Int {
        switch self {
        case .float32LE, .signed32LE: 4
        case .signed16LE: 2
        }
    }

    public var description: String { rawValue }

    /// Parses the ALSA spelling (`FLOAT_LE`, `S32_LE`, `S16_LE`), case-insensitively.
    public init?(alsaName: String) {
        self.init(rawValue: alsaName.uppercased())
    }

    /// Converts `frameCount` mono little-endian samples at `source` to Float32 appended to `output`.
    /// Integer scaling divides by 2^(bits-1), so full-scale negative maps to exactly -1. Float samples are sanitized
    /// (`SampleSanitizer`): this is where captured audio enters.
    /// This runs on the capture thread for every period, so it writes straight into the array's storage.
    /// - Returns: how many samples had to be repaired (NaN, ±Inf, beyond full scale).
    @discardableResult
    public func convertToFloat(_ source: UnsafeRawPointer, frameCount: Int, appendingTo output: inout [Float]) -> Int {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: frameCount))
        return output.withUnsafeMutableBufferPointer { buffer in
            let target = buffer.baseAddress! + start
            switch self {
            case .float32LE:
                #if _endian(little)
                    UnsafeMutableRawPointer(target).copyMemory(from: source, byteCount: frameCount * 4)
                #else
                    for i in 0..<frameCount {
                        target[i] = Float(
                            bitPattern: UInt32(
                                littleEndian: source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
                    }
                #endif
                return SampleSanitizer.sanitize(UnsafeMutableBufferPointer(start: target, count: frameCount))
            case .signed32LE:
                for i in 0..<frameCount {
                    let value = Int32(littleEndian: source.loadUnaligned(fromByteOffset: i * 4, as: Int32.self))
                    target[i] = Float(Double(value) * (1.0 / 2_147_483_648.0))
                }
                return 0
            case .signed16LE:
                for i in 0..<frameCount {
                    let value = Int16(littleEndian: source.loadUnaligned(fromByteOffset: i * 2, as: Int16.self))
                    target[i] = Float(value) * (1.0 / 32_768.0)
                }
                return 0
            }
        }
    }
}
