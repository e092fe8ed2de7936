import Foundation

/// Gives a capture PCM without a clock (a file played as a microphone, ALSA's `file` and `null` plugins) the pace
/// of a real device: a read returns no sooner than the frames handed out so far take to play at `sampleRate`.
///
/// Anything that ends by wall-clock time needs this: a daemon turn lasts from `start` to `stop`, and an unpaced file
/// PCM would fill those seconds with minutes of audio. Once paced, the source behaves like a microphone, so a slow
/// consumer loses chunks as it would live.
public final class PacedCapturePCM: CapturePCM, @unchecked Sendable {
    // @unchecked: its counters belong to the one capture thread that reads it, like the PCM it wraps.
    private let source: CapturePCM
    private var delivered: Int64 = 0
    private var started: ContinuousClock.Instant?

    public init(_ source: CapturePCM) {
        self.source = source
    }

    public var name: String { source.name }
    public var format: SampleFormat { source.format }
    public var sampleRate: Int { source.sampleRate }
    public var periodFrames: Int { source.periodFrames }
    public var hasDeviceClock: Bool { true }

    public func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws -> PCMReadOutcome {
        let clock = ContinuousClock()
        let start = started ?? clock.now
        started = start
        // Frames come out when they would have been recorded, not before.
        let due = start + .nanoseconds(delivered * 1_000_000_000 / Int64(sampleRate))
        let wait = clock.now.duration(to: due)
        if wait > .zero {
            Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18)
        }
        let outcome = try source.read(into: buffer, frames: frames)
        if case .frames(let count) = outcome { delivered += Int64(count) }
        return outcome
    }

    public func recover(from outcome: PCMReadOutcome) throws { try source.recover(from: outcome) }
    public func close() { source.close() }
}

extension CapturePCM {
    /// This PCM paced to real time when `realtime` (and it has no clock of its own), else itself.
    public func paced(_ realtime: Bool = true) -> CapturePCM {
        realtime && !hasDeviceClock ? PacedCapturePCM(self) : self
    }
}
