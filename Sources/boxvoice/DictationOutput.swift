import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoicePresentation
import BoxVoiceKeywords
import Foundation
import Synchronization

/// Shows a dictation's events: a live status area on a terminal, plain lines otherwise (or with NO_COLOR), one JSON
/// object per event with --json. Events come from several threads; one lock keeps the screen whole.
final class DictationOutput: Sendable {
    enum Mode {
        case json, plain, terminal
    }

    let mode: Mode
    private let screen: Mutex<Screen>
    private let resultsToStdout: Bool
    /// Redraws the status area twice a second while HQ is awaited, so its wait counts up after the microphone closed
    /// (no audio events come then). Set once in init, cancelled in `finish`; a DispatchSource is thread-safe.
    nonisolated(unsafe) private let ticker: DispatchSourceTimer?

    /// What is on the terminal and what the status area shows: one owner, behind one lock.
    fileprivate struct Screen {
        var status: DictationStatus
        /// Lines of the status area on screen now (the cursor sits just below them).
        var shown = 0
        var lastDraw = Date.distantPast
        /// After `finish`: only permanent lines, no status area under the shell's prompt.
        var finished = false
        /// Messages the box refused during the run.
        var refused = 0
    }

    /// - Parameter raw: messages with their speech framing, as the box receives them, instead of as said.
    init(
        json: Bool, raw: Bool = false, vocabulary: Vocabulary,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        var status = DictationStatus(vocabulary: vocabulary)
        status.raw = raw
        screen = Mutex(Screen(status: status))
        if json {
            mode = .json
        } else if isatty(STDERR_FILENO) == 1, environment["NO_COLOR"] == nil, environment["TERM"] != "dumb" {
            mode = .terminal
        } else {
            mode = .plain
        }
        resultsToStdout = isatty(STDOUT_FILENO) != 1
        ticker = mode == .terminal ? DispatchSource.makeTimerSource(queue: .global()) : nil
        ticker?.schedule(deadline: .now() + 0.5, repeating: 0.5)
        ticker?.setEventHandler { [weak self] in self?.tick() }
        ticker?.resume()
    }

    private func tick() {
        screen.withLock { screen in
            if screen.status.isAwaitingHQ { screen.draw(above: [], force: true) }
        }
    }

    func notice(_ line: String, json event: EventRecord.Kind) {
        switch mode {
        case .json: Console.out(EventRecord.notice(event, message: line).line)
        case .plain: Console.err(line)
        case .terminal: screen.withLock { $0.draw(above: [line], force: true) }
        }
    }

    /// Messages the box refused during the run (the exit status says so).
    var refusals: Int { screen.withLock { $0.refused } }

    func handle(_ event: DictationEvent) {
        if case .refused = event { screen.withLock { $0.refused += 1 } }
        switch mode {
        case .json: Self.json(event)
        case .plain: screen.withLock { $0.plain(event) }
        case .terminal:
            let resultsToStdout = self.resultsToStdout
            screen.withLock { screen in
                let lines = screen.status.apply(event)
                if resultsToStdout, case .queued(_, let message, let text) = event {
                    Console.out(screen.status.raw ? message : SpeechFraming.asSaid(text))
                }
                if resultsToStdout, case .delivered(let id) = event { Console.out("delivered \(id)") }
                screen.draw(above: lines, force: !lines.isEmpty)
            }
        }
    }

    /// The box the messages go to (known once the box is chosen).
    func show(box: String) {
        screen.withLock { $0.status.box = box }
    }

    /// A key was pressed: said at once, whatever it starts takes (HQ can take seconds).
    func acknowledge(_ trigger: DictationTrigger) {
        switch mode {
        case .json: break
        case .plain: DictationStatus.acknowledgement(of: trigger).forEach(Console.err)
        case .terminal: screen.withLock { $0.draw(above: DictationStatus.acknowledgement(of: trigger), force: true) }
        }
    }

    /// Tab was pressed: says at once whether a message was waiting for HQ.
    func acknowledgeLiveTextNow(sent: Bool) {
        let line = DictationStatus.liveTextNowAcknowledgement(sent: sent)
        switch mode {
        case .json: break
        case .plain: Console.err(line)
        case .terminal: screen.withLock { $0.draw(above: [line], force: true) }
        }
    }

    /// Clears the status area (what was printed above it stays): the terminal is left as a shell expects it.
    func finish() {
        ticker?.cancel()
        guard mode == .terminal else { return }
        screen.withLock { screen in
            if screen.shown > 0 { FileHandle.standardError.write(Data("\r\u{1B}[\(screen.shown)A\u{1B}[J".utf8)) }
            screen.shown = 0
            screen.finished = true
        }
    }

    private static func json(_ event: DictationEvent) {
        if let record = EventRecord(event) { Console.out(record.line) }
    }
}

extension DictationOutput.Screen {
    /// Clears the status area, prints `above` where it was, and draws the area again (at most ten times a second
    /// unless something permanent was printed).
    mutating func draw(above: [String], force: Bool) {
        // After the end, only permanent lines: no status area is drawn again under the shell's prompt.
        if finished {
            if !above.isEmpty { FileHandle.standardError.write(Data(above.map { $0 + "\n" }.joined().utf8)) }
            return
        }
        let now = Date()
        guard force || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        var text = shown > 0 ? "\r\u{1B}[\(shown)A\u{1B}[J" : ""
        for line in above { text += line + "\n" }
        let area = status.render(width: Self.width(), color: true)
        for line in area { text += line + "\n" }
        shown = area.count
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func width() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 10 else { return 80 }
        return Int(size.ws_col)
    }

    mutating func plain(_ event: DictationEvent) {
        switch event {
        case .level, .partial, .segment, .hearingBehind: break
        case .listeningEnded: status.apply(event).forEach(Console.err)
        case .uploadCodec(let format, let reason):
            Console.err("HQ uploads go as \(format == .opus ? "Opus" : "WAV"): \(reason)")
        case .final(let text): Console.out("… \(text)")
        case .keyword(let action, let phrase, let at):
            Console.out("[\(at.formatted(2)) s] \(DictationStatus.name(of: action)) (\"\(phrase)\")")
        case .hq(_, let index, let state):
            switch state {
            case .uploading: break
            case .done: Console.err("HQ segment \(index): done")
            case .retrying(let attempt): Console.err("HQ segment \(index): retrying (attempt \(attempt))")
            case .failed(let failure):
                Console.err("HQ segment \(index): failed: \(failure.map { status.words(for: $0) } ?? "no text")")
            }
        case .fallback(let reason, let failure, let redoneLater):
            let why = failure.map { status.words(for: $0) } ?? reason
            Console.err(
                redoneLater
                    ? "HQ waits for the box (\(why)); \(DictationStatus.redoneLater)"
                    : "HQ unavailable, sending the live text: \(why)")
        case .committed: break
        case .commandChecked(let action, let outcome, let seconds):
            Console.err(
                "second opinion on \(DictationStatus.name(of: action)): \(outcome.rawValue) in \(seconds.formatted(2)) "
                    + "s"
            )
        case .awaitingPause(let action, _):
            Console.err("\(DictationStatus.name(of: action)) once you pause (go on talking and it stays text)")
        case .speechWentOn(let action):
            Console.err("\(DictationStatus.name(of: action)) not taken: you went on talking")
        case .commandNotTaken(let action, let phrase, let doubt):
            Console.err(
                "\(DictationStatus.name(of: action)) not taken: heard \"\(phrase)\", \(doubt.explanation) (say it "
                    + "again or press Enter)")
        case .queued(_, let message, let text): Console.out(status.raw ? message : SpeechFraming.asSaid(text))
        case .hqRedone(let id, let message, let text):
            Console.err("HQ text of \(id), sending: \(status.raw ? message : SpeechFraming.asSaid(text))")
        case .recovered(let report): Console.err(report.summary)
        case .delivered(let id): Console.out("delivered \(id)")
        case .postponed(let id, let failure):
            Console.err("kept in the outbox: \(id) (\(status.words(for: failure))); \(FollowView.retrier)")
        case .failed(let id, let reason):
            Console.err("not delivered (kept in the outbox)\(id.map { ": \($0)" } ?? ""): \(reason)")
        case .refused(let id, let reason, _): Console.err("not delivered (kept in the outbox): \(id): \(reason)")
        case .heldForSession(let id):
            Console.err("kept in the outbox until the box names this run's new conversation: \(id)")
        case .draft(let id): Console.out("kept as a draft: \(id)")
        case .discarded: Console.out("discarded")
        case .notHeardLive, .captureLost, .whisperMissed: status.apply(event).forEach(Console.err)
        }
    }
}
