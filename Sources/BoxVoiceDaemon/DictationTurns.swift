import BoxVoiceDictation
import BoxVoiceAudio
import BoxVoiceSync
import Foundation
import Synchronization

/// The daemon's dictation turns, driven by control-socket commands (hotkeys): one turn at a time, each the same
/// `DictationSession` that `boxvoice dictate` runs, on a thread of its own so the socket keeps answering. The
/// microphone is open only during a turn.
public final class DictationTurns: Sendable {
    /// Opens the audio input and builds the session for a new turn.
    public typealias Begin = @Sendable () throws -> (session: DictationSession, pcm: CapturePCM)

    private struct Turn: Sendable {
        let stop: StopSignal
        let control: DictationControl
        let started: Date
    }

    private let begin: Begin
    private let onEnd: @Sendable (Error?) -> Void
    private let turn = Mutex<Turn?>(nil)
    /// Rung when a turn is over, for `finish`.
    private let turnEnded = WakeUp()

    /// - Parameter onEnd: called when a turn is over (with the error that ended it, if any).
    public init(begin: @escaping Begin, onEnd: @escaping @Sendable (Error?) -> Void = { _ in }) {
        self.begin = begin
        self.onEnd = onEnd
    }

    public var isDictating: Bool { turn.withLock { $0 != nil } }

    /// Answers a control command (`status` is answered by the caller, who knows more than turns do).
    public func handle(_ command: ControlRequest.Command) -> ControlReply {
        switch command {
        case .start: return start()
        case .stop: return stop()
        case .toggle: return isDictating ? stop() : start()
        case .cancel: return press(.escape, done: "cancelled: the message is dropped and the turn ends")
        case .send: return press(.enter, done: "sending what was said; still listening")
        case .status: return status()
        }
    }

    public func status() -> ControlReply {
        turn.withLock { turn in
            guard let turn else {
                return ControlReply(
                    ok: true, state: .idle, message: "idle: `boxvoice start` (or toggle) begins a dictation")
            }
            return ControlReply(
                ok: true, state: .dictating, message: "dictating for \(Int(Date().timeIntervalSince(turn.started))) s")
        }
    }

    /// Ends the turn in progress the way `stop` does and waits for it (daemon shutdown).
    public func finish(timeout: TimeInterval = 30) {
        _ = stop()
        turnEnded.wait(until: Date(timeIntervalSinceNow: timeout)) { !isDictating }
    }

    private func start() -> ControlReply {
        let claimed = turn.withLock { turn -> Turn? in
            guard turn == nil else { return nil }
            let new = Turn(stop: StopSignal(), control: DictationControl(), started: Date())
            turn = new
            return new
        }
        guard let claimed else {
            return ControlReply(
                ok: false, state: .dictating, message: "already dictating: `boxvoice stop` ends the turn")
        }
        let opened: (session: DictationSession, pcm: CapturePCM)
        do {
            opened = try begin()
        } catch {
            turn.withLock { $0 = nil }
            turnEnded.ring()
            return ControlReply(ok: false, state: .idle, message: "could not start dictating: \(error)")
        }
        let onEnd = self.onEnd
        let handOver = HandOver(session: opened.session, pcm: opened.pcm)
        let thread = Thread { [self] in
            var failure: Error?
            do { try handOver.session.run(pcm: handOver.pcm, stop: claimed.stop, control: claimed.control) } catch {
                failure = error
            }
            // The microphone closes with the turn (a held-open one goes back to keeping its pre-roll).
            handOver.pcm.close()
            turn.withLock { $0 = nil }
            turnEnded.ring()
            onEnd(failure)
        }
        thread.name = "boxvoice dictation turn"
        thread.start()
        return ControlReply(
            ok: true, state: .dictating, message: "dictating: speak, then say a send command or run `boxvoice stop`")
    }

    private func stop() -> ControlReply {
        guard let current = turn.withLock({ $0 }) else {
            return ControlReply(ok: false, state: .idle, message: "not dictating")
        }
        current.stop.request()
        return ControlReply(ok: true, state: .dictating, message: "ending the turn: what was said is being sent")
    }

    private func press(_ trigger: DictationTrigger, done: String) -> ControlReply {
        guard let current = turn.withLock({ $0 }) else {
            return ControlReply(ok: false, state: .idle, message: "not dictating")
        }
        current.control.press(trigger)
        return ControlReply(ok: true, state: .dictating, message: done)
    }
}

/// The device opened for a turn, passed to the turn's thread and used by it alone from then on.
/// `@unchecked`: the opening thread lets go of both at the hand-over, so only the turn's thread ever touches them.
private struct HandOver: @unchecked Sendable {
    let session: DictationSession
    let pcm: CapturePCM
}
