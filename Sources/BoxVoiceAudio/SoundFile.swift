import CSndFile
import Foundation

/// A failure reported by libsndfile, with its own message.
public struct SoundFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let operation: String
    public let libraryMessage: String
    /// The system's error number when the failure was the system's (libsndfile's `SF_ERR_SYSTEM`, or `open`).
    public let systemError: Int32?

    public init(path: String, operation: String, libraryMessage: String, systemError: Int32? = nil) {
        self.path = path
        self.operation = operation
        self.libraryMessage = libraryMessage
        self.systemError = systemError
    }

    /// The disk (or the user's quota) is full: what was written so far is all there is.
    public var isDiskFull: Bool { systemError == ENOSPC || systemError == EDQUOT }

    public var description: String { "\(operation) '\(path)' failed: \(libraryMessage)" }
}

/// How a sound file is stored, as libsndfile reads it.
public enum AudioContainer: String, Sendable, Equatable, Codable {
    case wav
    case oggOpus = "ogg-opus"
    case oggVorbis = "ogg-vorbis"
    case flac
    case other
}

/// A sound file (WAV, Ogg Opus, FLAC) opened through libsndfile. This file is the only place that imports the
/// libsndfile C module.
///
/// Not thread-safe: one owner at a time.
public final class SoundFile {
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    /// True when the samples are stored as 32-bit IEEE float.
    public let isFloat32: Bool
    public private(set) var frames: Int64
    public let container: AudioContainer
    private var handle: OpaquePointer?

    private init(path: String, handle: OpaquePointer, info: SF_INFO) {
        self.path = path
        self.handle = handle
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        isFloat32 = (info.format & Int32(SF_FORMAT_SUBMASK)) == Int32(SF_FORMAT_FLOAT)
        frames = info.frames
        container =
            switch (info.format & Int32(SF_FORMAT_TYPEMASK), info.format & Int32(SF_FORMAT_SUBMASK)) {
            case (Int32(SF_FORMAT_WAV), _): .wav
            case (Int32(SF_FORMAT_OGG), Int32(SF_FORMAT_OPUS)): .oggOpus
            case (Int32(SF_FORMAT_OGG), Int32(SF_FORMAT_VORBIS)): .oggVorbis
            case (Int32(SF_FORMAT_FLAC), _): .flac
            default: .other
            }
    }

    deinit { try? close() }

    /// Creates (or replaces) a WAV of 32-bit float samples: the format boxvoice records and uploads.
    public static func createFloatWAV(path: String, sampleRate: Int = AudioRate.hertz, channels: Int = 1) throws
        -> SoundFile
    {
        try create(
            path: path, sampleRate: sampleRate, channels: channels,
            format: Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT))
    }

    /// Creates (or replaces) a WAV of 16-bit signed samples (the compact answer format of contract §7.2).
    public static func createPCM16WAV(path: String, sampleRate: Int, channels: Int = 1) throws -> SoundFile {
        try create(
            path: path, sampleRate: sampleRate, channels: channels,
            format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
    }

    /// Creates (or replaces) an Ogg Opus file (48 kHz: Opus's own rate) coded at about `bitsPerSecond`.
    public static func createOggOpus(path: String, channels: Int = 1, bitsPerSecond: Int) throws -> SoundFile {
        let file = try create(
            path: path, sampleRate: AudioRate.hertz, channels: channels, format: Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS))
        // libsndfile sets Opus's target bitrate from a "compression level" in 0…1, linear between its 256 kbit/s and
        // 6 kbit/s per channel (level 0 is the highest rate).
        let perChannel = Double(bitsPerSecond) / Double(channels)
        var level = min(1, max(0, (256_000 - perChannel) / (256_000 - 6_000)))
        guard
            sf_command(file.handle, Int32(SFC_SET_COMPRESSION_LEVEL), &level, Int32(MemoryLayout<Double>.size))
                == Int32(SF_TRUE)
        else {
            throw file.failure("set the Opus bitrate of")
        }
        return file
    }

    /// Creates (or replaces) a FLAC file of 24-bit samples: lossless for what a microphone delivers.
    public static func createFLAC(path: String, sampleRate: Int = AudioRate.hertz, channels: Int = 1) throws
        -> SoundFile
    {
        try create(
            path: path, sampleRate: sampleRate, channels: channels, format: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_24))
    }

    private static func create(path: String, sampleRate: Int, channels: Int, format: Int32) throws -> SoundFile {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = format
        // Recordings are private (mode 0600), and a symlink planted in the file's place is never followed.
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            throw SoundFileError(
                path: path, operation: "create", libraryMessage: String(cString: strerror(code)), systemError: code)
        }
        guard let handle = sf_open_fd(fd, Int32(SFM_WRITE), &info, Int32(SF_TRUE)) else {
            Glibc.close(fd)
            throw SoundFileError(path: path, operation: "create", libraryMessage: String(cString: sf_strerror(nil)))
        }
        // A PEAK chunk would be rewritten on close only; without it the header is just fmt/fact/data,
        // which keeps mid-recording header refreshes and crash repair simple.
        if format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_WAV) {
            sf_command(handle, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        }
        return SoundFile(path: path, handle: handle, info: info)
    }

    /// Opens an existing sound file for reading.
    public static func open(path: String) throws -> SoundFile {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw SoundFileError(path: path, operation: "open", libraryMessage: String(cString: sf_strerror(nil)))
        }
        return SoundFile(path: path, handle: handle, info: info)
    }

    private func requireHandle(_ operation: String) throws -> OpaquePointer {
        guard let handle else {
            throw SoundFileError(path: path, operation: operation, libraryMessage: "file is closed")
        }
        return handle
    }

    /// Called right after the failing call, so `errno` is still the system's answer to it.
    private func failure(_ operation: String) -> SoundFileError {
        let code = errno
        return SoundFileError(
            path: path, operation: operation, libraryMessage: String(cString: sf_strerror(handle)),
            systemError: sf_error(handle) == Int32(SF_ERR_SYSTEM) ? code : nil)
    }

    /// Appends interleaved frames.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws {
        let handle = try requireHandle("write")
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        let wanted = sf_count_t(samples.count / channels)
        let written = sf_writef_float(handle, base, wanted)
        guard written == wanted else { throw failure("write") }
        frames += written
    }

    public func write(_ samples: [Float]) throws {
        try samples.withUnsafeBufferPointer { try write($0) }
    }

    /// Rewrites the header for the frames written so far, so a reader (or a crash) sees a valid file.
    public func updateHeader() throws {
        let handle = try requireHandle("update header")
        sf_command(handle, Int32(SFC_UPDATE_HEADER_NOW), nil, 0)
        guard sf_error(handle) == 0 else { throw failure("update header") }
    }

    /// Cuts the file back to its first `frameCount` frames.
    public func truncate(toFrames frameCount: Int64) throws {
        let handle = try requireHandle("truncate")
        var count = sf_count_t(frameCount)
        guard sf_command(handle, Int32(SFC_FILE_TRUNCATE), &count, Int32(MemoryLayout<sf_count_t>.size)) == 0 else {
            throw failure("truncate")
        }
        frames = frameCount
    }

    /// Reads up to `maxFrames` interleaved frames from the current position (fewer at the end of the file), sanitized
    /// (`SampleSanitizer`): a file is where audio enters too.
    public func read(maxFrames: Int) throws -> [Float] {
        let handle = try requireHandle("read")
        var samples = [Float](repeating: 0, count: maxFrames * channels)
        let got = samples.withUnsafeMutableBufferPointer {
            sf_readf_float(handle, $0.baseAddress, sf_count_t(maxFrames))
        }
        if got < 0 { throw failure("read") }
        samples.removeLast((maxFrames - Int(got)) * channels)
        samplesRepaired += SampleSanitizer.sanitize(&samples)
        return samples
    }

    /// How many samples read so far were NaN, infinite or beyond full scale, and repaired.
    public private(set) var samplesRepaired = 0

    /// Moves the read position to `frame`.
    public func seek(toFrame frame: Int64) throws {
        let handle = try requireHandle("seek")
        guard sf_seek(handle, sf_count_t(frame), SEEK_SET) == frame else { throw failure("seek") }
    }

    /// Every remaining frame.
    public func readAll() throws -> [Float] {
        try read(maxFrames: Int(max(0, frames)))
    }

    /// Reads up to `maxFrames` frames as mono, sanitized like `read`. Every reader of a file that may not be mono goes
    /// through here, so a stereo file means the same audio to the recorder, the recognizers and HQ.
    public func readMono(maxFrames: Int) throws -> [Float] {
        Self.downmix(try read(maxFrames: maxFrames), channels: channels)
    }

    /// The whole file from the current position, as mono.
    public func readAllMono() throws -> [Float] {
        Self.downmix(try readAll(), channels: channels)
    }

    /// The mean of each frame's channels: a voice on one side of a stereo recording is kept (taking the first
    /// channel would drop it), and a voice on both stays at its level.
    public static func downmix(_ interleaved: [Float], channels: Int) -> [Float] {
        guard channels > 1 else { return interleaved }
        let scale = 1 / Float(channels)
        return stride(from: 0, to: interleaved.count - channels + 1, by: channels).map { start in
            var sum: Float = 0
            for offset in 0..<channels { sum += interleaved[start + offset] }
            return sum * scale
        }
    }

    public func close() throws {
        guard let handle else { return }
        self.handle = nil
        let rc = sf_close(handle)
        guard rc == 0 else {
            throw SoundFileError(path: path, operation: "close", libraryMessage: String(cString: sf_error_number(rc)))
        }
    }
}
