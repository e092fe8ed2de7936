import Foundation

/// The end of a finite capture source (a file played as a microphone): not a failure.
public struct CaptureEnded: Error, Sendable, Equatable {
    public init() {}
}

/// A sound file played as a capture PCM, so `--input FILE` runs the same capture path as a microphone.
/// Delivers 48 kHz mono Float32 in 20 ms periods; paced to real time when asked, else as fast as it is read.
public final class WAVCapturePCM: CapturePCM, @unchecked Sendable {
    public let name: String
    public let format = SampleFormat.float32LE
    public let sampleRate = 48_000
    public let periodFrames = 960
    /// Paced input behaves like a device with a clock (slow consumers drop, as live).
    public var hasDeviceClock: Bool { realtime }
    private let realtime: Bool
    private var samples: [Float]
    private var position = 0
    private var started: Date?

    /// Reads the whole file (first channel), resampled to 48 kHz when needed.
    public init(path: String, realtime: Bool = false) throws {
        name = path
        self.realtime = realtime
        samples = try Self.load(path)
    }

    /// A sound file's first channel as 48 kHz Float32.
    public static func load(_ path: String) throws -> [Float] {
        let file = try SoundFile.open(path: path)
        let interleaved = try file.readAll()
        var mono = file.channels == 1 ? interleaved : stride(from: 0, to: interleaved.count, by: file.channels).map { interleaved[$0] }
        if file.sampleRate != 48_000 {
            let resampler = try Resampler(from: Double(file.sampleRate), to: 48_000)
            mono = try resampler.process(mono) + resampler.flush()
        }
        return mono
    }

    public var frames: Int { samples.count }

    public func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws -> PCMReadOutcome {
        guard position < samples.count else { throw CaptureEnded() }
        if realtime {
            let start = started ?? Date()
            started = start
            let wait = start.addingTimeInterval(Double(position) / Double(sampleRate)).timeIntervalSinceNow
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        }
        let count = min(frames, samples.count - position)
        samples.withUnsafeBufferPointer { source in
            buffer.copyMemory(from: source.baseAddress! + position, byteCount: count * 4)
        }
        position += count
        return .frames(count)
    }

    public func recover(from outcome: PCMReadOutcome) throws {}
    public func close() {}
}
