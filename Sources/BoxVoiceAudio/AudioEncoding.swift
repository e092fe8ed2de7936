import Foundation

/// What a recording is compressed to once it no longer changes: on the wire (an HQ upload) or on disk (a retained
/// recording).
public enum CompressedCodec: Sendable, Equatable, CustomStringConvertible {
    /// Ogg Opus at about this many bits per second.
    case opus(bitsPerSecond: Int)
    /// FLAC, 24-bit: lossless, about half the size of Float32 WAV.
    case flac

    /// 64 kbit/s: the lowest rate at which `make bench` measured boxsim's recognizer giving the same text for the Opus
    /// upload as for the WAV within 5 % word error over every sample (3.9 %; 48 kbit/s: 6.5 %, 24 kbit/s: 9.3 %), at 27
    /// times fewer bytes than 48 kHz Float32 (BENCHMARKS.md at 7c182fc).
    public static let speechOpus = CompressedCodec.opus(bitsPerSecond: 64_000)

    /// The file name extension the box reads the format from (contract §1).
    public var fileExtension: String {
        switch self {
        case .opus: "ogg"
        case .flac: "flac"
        }
    }

    /// The part's Content-Type on the wire.
    public var mimeType: String {
        switch self {
        case .opus: "audio/ogg"
        case .flac: "audio/flac"
        }
    }

    public var description: String {
        switch self {
        case .opus(let rate): "Ogg Opus \(rate / 1_000) kbit/s"
        case .flac: "FLAC"
        }
    }
}

/// Encodes finished audio files into one compressed file, a second at a time: an hour costs no more memory than a
/// second, and the inputs are only read.
public enum AudioEncoding {
    public struct Encoded: Sendable, Equatable {
        /// 48 kHz frames encoded.
        public var frames: Int64
        public var bytes: Int64
        /// CPU time the encoding took (this thread), for the bench and for choosing a codec by the link.
        public var cpuSeconds: Double
    }

    /// Writes the audio of `inputs` (48 kHz mono files of any format libsndfile reads), in order, to `output`.
    /// `output` is written under a temporary name, synced, then renamed: it is whole or absent.
    @discardableResult
    public static func encode(_ inputs: [String], to output: String, as codec: CompressedCodec) throws -> Encoded {
        let started = threadCPUSeconds()
        let partial = output + ".partial"
        unlink(partial)
        do {
            let file: SoundFile =
                switch codec {
                case .opus(let rate): try SoundFile.createOggOpus(path: partial, bitsPerSecond: rate)
                case .flac: try SoundFile.createFLAC(path: partial)
                }
            var frames: Int64 = 0
            for input in inputs {
                let source = try SoundFile.open(path: input)
                guard source.sampleRate == AudioRate.hertz, source.channels == 1 else {
                    throw SoundFileError(
                        path: input, operation: "encode",
                        libraryMessage: "expected 48 kHz mono, found \(source.sampleRate) Hz × \(source.channels)")
                }
                while true {
                    let chunk = try source.read(maxFrames: AudioRate.hertz)
                    if chunk.isEmpty { break }
                    try file.write(chunk)
                    frames += Int64(chunk.count)
                }
                try source.close()
            }
            try file.close()
            try sync(partial)
            guard rename(partial, output) == 0 else {
                let code = errno
                throw SoundFileError(
                    path: output, operation: "rename", libraryMessage: String(cString: strerror(code)),
                    systemError: code)
            }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int64) ?? 0
            return Encoded(frames: frames, bytes: bytes, cpuSeconds: threadCPUSeconds() - started)
        } catch {
            unlink(partial)
            throw error
        }
    }

    private static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            let code = errno
            throw SoundFileError(
                path: path, operation: "sync", libraryMessage: String(cString: strerror(code)), systemError: code)
        }
    }

    /// CPU seconds used by the calling thread so far.
    static func threadCPUSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
