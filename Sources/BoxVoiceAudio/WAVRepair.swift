import Foundation

/// Fixes a WAV whose header disagrees with the data that follows it — what a killed recorder leaves behind.
///
/// The header is rewritten in place from the file's real length: the RIFF size, the `data` size
/// (whole frames only) and, when present, the `fact` frame count. Sample data is never touched.
public enum WAVRepair {
    public enum Outcome: Sendable, Equatable {
        case intact(frames: Int64)
        /// `headerFrames` is what the damaged header claimed; `frames` what the file really holds.
        case repaired(headerFrames: Int64, frames: Int64)
    }

    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot repair '\(path)': \(reason); the file was left as it was" }
    }

    private struct Layout {
        var riffSize: UInt32
        var blockAlign: Int
        var dataSizeOffset: Int  // where the data chunk's size field is
        var dataStart: Int
        var dataSize: UInt32
        var factCountOffset: Int?
    }

    /// Repairs `path` if needed.
    @discardableResult
    public static func repair(path: String) throws -> Outcome {
        guard let handle = FileHandle(forUpdatingAtPath: path) else {
            throw Failure(path: path, reason: "it cannot be opened for writing")
        }
        defer { try? handle.close() }
        let fileSize = Int(try handle.seekToEnd())
        try handle.seek(toOffset: 0)
        let head = try handle.read(upToCount: min(fileSize, 4096)) ?? Data()
        let layout = try parse([UInt8](head), path: path)
        let available = fileSize - layout.dataStart
        let frames = Int64(available / layout.blockAlign)
        let dataSize = UInt32(clamping: Int(frames) * layout.blockAlign)
        let headerFrames = Int64(Int(layout.dataSize) / layout.blockAlign)
        let riffSize = UInt32(clamping: layout.dataStart - 8 + Int(dataSize))
        if dataSize == layout.dataSize && riffSize == layout.riffSize { return .intact(frames: frames) }

        func put(_ value: UInt32, at offset: Int) throws {
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: withUnsafeBytes(of: value.littleEndian) { Data($0) })
        }
        try put(riffSize, at: 4)
        try put(dataSize, at: layout.dataSizeOffset)
        if let fact = layout.factCountOffset { try put(UInt32(clamping: frames), at: fact) }
        // A partial trailing frame would make the RIFF chunk odd; drop it.
        if available % layout.blockAlign != 0 {
            try handle.truncate(atOffset: UInt64(layout.dataStart) + UInt64(dataSize))
        }
        try handle.synchronize()
        return .repaired(headerFrames: headerFrames, frames: frames)
    }

    /// Repairs every `seg-*.wav` under `directory` (recursively); returns what was repaired.
    public static func repairSegments(under directory: String) -> [(path: String, result: Result<Outcome, Error>)] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var results: [(String, Result<Outcome, Error>)] = []
        for case let relative as String in walker where relative.hasSuffix(".wav") {
            let path = (directory as NSString).appendingPathComponent(relative)
            let result = Result { try repair(path: path) }
            if case .success(.intact) = result { continue }
            results.append((path, result))
        }
        return results.sorted { $0.0 < $1.0 }
    }

    private static func parse(_ bytes: [UInt8], path: String) throws -> Layout {
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else {
            throw Failure(path: path, reason: "it is not a RIFF/WAVE file")
        }
        var offset = 12
        var blockAlign: Int?
        var factCount: Int?
        while offset + 8 <= bytes.count {
            let id = tag(offset)
            let size = Int(u32(offset + 4))
            if id == "fmt ", offset + 22 <= bytes.count {
                blockAlign = Int(bytes[offset + 20]) | Int(bytes[offset + 21]) << 8
            } else if id == "fact" {
                factCount = offset + 8
            } else if id == "data" {
                guard let blockAlign, blockAlign > 0 else {
                    throw Failure(path: path, reason: "no usable fmt chunk before the data")
                }
                return Layout(
                    riffSize: u32(4), blockAlign: blockAlign, dataSizeOffset: offset + 4,
                    dataStart: offset + 8, dataSize: u32(offset + 4), factCountOffset: factCount)
            }
            offset += 8 + size + (size & 1)
        }
        throw Failure(path: path, reason: "no data chunk in its first 4 KiB")
    }
}
