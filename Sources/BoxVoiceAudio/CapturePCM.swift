/// What one read from a capture PCM produced.
public enum PCMReadOutcome: Sendable, Equatable {
    case frames(Int)
    /// The device's buffer filled before we read it (`-EPIPE`): audio was lost and the stream must be re-prepared.
    case overrun
    /// The system suspended the device (`-ESTRPIPE`); it must be resumed or re-prepared.
    case suspended
}

/// The read seam between the capture loop and a PCM. `ALSACapturePCM` is the real one; a test double
/// may script overruns and suspends, which no file-backed PCM can produce on demand.
public protocol CapturePCM: AnyObject {
    var name: String { get }
    var format: SampleFormat { get }
    var sampleRate: Int { get }
    var periodFrames: Int { get }
    /// False for PCMs with no hardware clock (ALSA's `file` and `null` plugins deliver as fast as they are read),
    /// where waiting for the consumer loses nothing and dropping would lose data for no reason.
    var hasDeviceClock: Bool { get }
    /// Blocks until up to `frames` frames are read into `buffer` (interleaved, `format`, mono).
    func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws -> PCMReadOutcome
    /// Brings the stream back after an overrun or suspend.
    func recover(from outcome: PCMReadOutcome) throws
    func close()
}

extension CapturePCM {
    /// Reads the next period into `buffer` the way every reader of a microphone must: an overrun or a suspend is
    /// told to `interrupted` and recovered from, and reading goes on until the device gives frames (returned, 0 at
    /// the end of a file) or `stopping` says to end (nil). The one read loop both `AudioCapture` and
    /// `PreRollMicrophone` run on their threads.
    func readPeriod(
        into buffer: UnsafeMutableRawPointer, frames: Int, stopping: () -> Bool,
        interrupted: (PCMReadOutcome) -> Void = { _ in }
    ) throws -> Int? {
        while !stopping() {
            let outcome = try read(into: buffer, frames: frames)
            if case .frames(let count) = outcome { return count }
            interrupted(outcome)
            try recover(from: outcome)
        }
        return nil
    }
}
