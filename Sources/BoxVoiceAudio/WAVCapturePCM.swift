import Foundation

/// The end of a finite capture source (a file played as a microphone): not a failure.
public struct CaptureEnded: Error, Sendable, Equatable {
    public init() {}
}

/// A sound file played as a capture PCM, so `--input FILE` runs the same capture path as a microphone.
/// Delivers 48 kHz mono Float32 in 20 ms periods as fast as it is read (wrap it in `PacedCapturePCM` for real
/// time). The file is streamed, a period at a time: an hour-long input costs no more memory than a minute.
public final class WAVCapturePCM: CapturePCM, @unchecked Sendable {
    // @unchecked: the file is read by the one capture thread that reads this PCM, like a device handle.
    public let name: String
    public let format = SampleFormat.float32LE
    public let sampleRate = AudioRate.hertz
    public let periodFrames = 960
    public let hasDeviceClock = false
    /// Length of the input at 48 kHz (estimated to a frame when the file is resampled).
    public let frames: Int
    private let file: SoundFile
    private let resampler: Resampler?
    /// Converted samples not handed out yet.
    private var pending: [Float] = []
    private var pendingStart = 0
    private var fileEnded = false

    public init(path: String) throws {
        name = path
        file = try SoundFile.open(path: path)
        resampler =
            file.sampleRate == AudioRate.hertz
            ? nil : try Resampler(from: Double(file.sampleRate), to: AudioRate.perSecond)
        frames = Int((Double(file.frames) * AudioRate.perSecond / Double(file.sampleRate)).rounded())
    }

    /// A sound file as 48 kHz mono Float32, all at once (for short files: clips, retained segments).
    public static func load(_ path: String) throws -> [Float] {
        let file = try SoundFile.open(path: path)
        var mono = try file.readAllMono()
        if file.sampleRate != AudioRate.hertz {
            let resampler = try Resampler(from: Double(file.sampleRate), to: AudioRate.perSecond)
            mono = try resampler.process(mono) + resampler.flush()
        }
        return mono
    }

    /// Tops up `pending` to at least `count` samples unless the file has run out.
    private func fill(_ count: Int) throws {
        if pendingStart > 0, pendingStart >= pending.count / 2 {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        while pending.count - pendingStart < count, !fileEnded {
            var mono = try file.readMono(maxFrames: 4_800)
            if mono.isEmpty {
                fileEnded = true
                mono = try resampler?.flush() ?? []
            } else if let resampler {
                mono = try resampler.process(mono)
            }
            pending += mono
        }
    }

    public func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws -> PCMReadOutcome {
        try fill(frames)
        let available = pending.count - pendingStart
        guard available > 0 else { throw CaptureEnded() }
        let count = min(frames, available)
        pending.withUnsafeBufferPointer { source in
            buffer.copyMemory(from: source.baseAddress! + pendingStart, byteCount: count * 4)
        }
        pendingStart += count
        return .frames(count)
    }

    public func recover(from outcome: PCMReadOutcome) throws {}
    public func close() {}
}
