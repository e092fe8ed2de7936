import BoxVoiceSync
import Foundation
import Synchronization

/// A microphone kept open between dictation turns so that a turn starts with what was said just before the key
/// press: the last `preRollSeconds` are held in memory only (never written anywhere) and overwritten as they age.
/// A turn reads them first, then the live audio, through the `CapturePCM` that `beginTurn` returns.
///
/// One reader thread owns the device; turns never touch it.
public final class PreRollMicrophone: Sendable {
    private struct State {
        /// The newest audio while no turn runs, oldest first, at most `capacity` bytes.
        var ring: [UInt8] = []
        /// What the running turn has not read yet.
        var pending: [UInt8] = []
        var turnOpen = false
        var stopped = false
        var failure: String?
    }

    public let name: String
    public let format: SampleFormat
    public let sampleRate: Int
    public let periodFrames: Int
    public let preRollSeconds: Double
    private let capacity: Int
    private let state = Mutex(State())
    /// Rung when the state changes: audio came, the device failed, a stop, the reader's end.
    private let changed = WakeUp()
    // The device: read by the reader thread alone, closed by it when stopped.
    private nonisolated(unsafe) let source: CapturePCM
    private let finished = Mutex(false)

    public init(_ source: CapturePCM, preRollSeconds: Double = 0.5) {
        self.source = source
        name = source.name
        format = source.format
        sampleRate = source.sampleRate
        periodFrames = source.periodFrames
        self.preRollSeconds = preRollSeconds
        capacity = Int(preRollSeconds * Double(source.sampleRate)) * source.format.bytesPerSample
        let thread = Thread { [self] in readForever() }
        thread.name = "boxvoice pre-roll microphone"
        thread.start()
    }

    /// Starts a turn: its PCM first yields the held pre-roll, then live audio, until it is closed.
    public func beginTurn() -> CapturePCM {
        state.withLock { state in
            state.pending = state.ring
            state.ring.removeAll(keepingCapacity: true)
            state.turnOpen = true
        }
        return TurnPCM(microphone: self)
    }

    /// Closes the device (the held audio is dropped).
    public func stop() {
        state.withLock {
            $0.stopped = true; $0.ring = []; $0.pending = []
        }
        changed.ring()
        changed.wait { finished.withLock { $0 } }
    }

    private func readForever() {
        let bytesPerFrame = format.bytesPerSample
        var buffer = [UInt8](repeating: 0, count: periodFrames * bytesPerFrame)
        while true {
            do {
                let read = try buffer.withUnsafeMutableBytes {
                    try source.readPeriod(
                        into: $0.baseAddress!, frames: periodFrames, stopping: { state.withLock { $0.stopped } })
                }
                guard let count = read else { break }
                let bytes = buffer[..<(count * bytesPerFrame)]
                state.withLock { state in
                    if state.turnOpen {
                        state.pending.append(contentsOf: bytes)
                    } else {
                        state.ring.append(contentsOf: bytes)
                        if state.ring.count > capacity { state.ring.removeFirst(state.ring.count - capacity) }
                    }
                }
                changed.ring()
            } catch {
                state.withLock { $0.failure = "\(error)" }
                changed.ring()
                break
            }
        }
        source.close()
        finished.withLock { $0 = true }
        changed.ring()
    }

    /// Blocks until audio (or the end) is there; copies at most `frames` frames.
    fileprivate func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws -> PCMReadOutcome {
        let bytesPerFrame = format.bytesPerSample
        while true {
            let ticket = changed.ticket
            let taken = state.withLock { state -> Result<Int, Error>? in
                if let failure = state.failure { return .failure(PreRollFailure(message: failure)) }
                if state.stopped { return .success(0) }
                let count = min(frames, state.pending.count / bytesPerFrame)
                guard count > 0 else { return nil }
                state.pending.withUnsafeBytes {
                    buffer.copyMemory(from: $0.baseAddress!, byteCount: count * bytesPerFrame)
                }
                state.pending.removeFirst(count * bytesPerFrame)
                return .success(count)
            }
            if let taken { return .frames(try taken.get()) }
            changed.wait(until: .distantFuture, after: ticket)
        }
    }

    fileprivate func endTurn() {
        state.withLock { state in
            state.turnOpen = false
            state.pending = []
        }
    }
}

/// The microphone failed while held open.
public struct PreRollFailure: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// One turn's view of the held-open microphone.
private final class TurnPCM: CapturePCM, @unchecked Sendable {
    // @unchecked: read by the turn's capture thread alone; the microphone it reads from is Sendable.
    private let microphone: PreRollMicrophone
    private var closed = false

    init(microphone: PreRollMicrophone) { self.microphone = microphone }

    deinit { close() }

    var name: String { microphone.name }
    var format: SampleFormat { microphone.format }
    var sampleRate: Int { microphone.sampleRate }
    var periodFrames: Int { microphone.periodFrames }
    var hasDeviceClock: Bool { true }

    func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws -> PCMReadOutcome {
        try microphone.read(into: buffer, frames: frames)
    }

    func recover(from outcome: PCMReadOutcome) throws {}

    func close() {
        guard !closed else { return }
        closed = true
        microphone.endTurn()
    }
}
