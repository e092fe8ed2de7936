import BoxVoiceAudio
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceContract
import BoxVoiceKeywords
import BoxVoiceStore
import Foundation

/// What the terminal's live status area shows, folded from the session's events. Pure: the CLI draws `render`'s
/// lines and prints `apply`'s lines above them, so the whole look is tested without a terminal.
public struct DictationStatus: Sendable {
    public private(set) var elapsed: Double = 0
    public private(set) var dBFS: Double = -120
    /// Segments closed in the message being dictated.
    public private(set) var segments = 0
    /// The live transcript of the message being dictated: finished utterances, then the partial one.
    public private(set) var heard: [String] = []
    public private(set) var partial = ""
    /// HQ state per segment number of the latest message that has any.
    public private(set) var hq: [Int: HQState] = [:]
    private var hqMessage: MessageID?
    /// The microphone closed: the area's dot is hollow, nothing is being recorded.
    public private(set) var microphoneClosed = false
    /// Messages committed whose final text is still to come (HQ awaited), and since when.
    private var awaitingHQ: [MessageID: Date] = [:]

    /// HQ text is being waited for: the elapsed time shows, and Tab sends the live text now.
    public var isAwaitingHQ: Bool { !awaitingHQ.isEmpty }
    /// What segments go to the box as (`wav`, `opus`), once the first was chosen.
    public private(set) var uploadFormat: UploadChoice.Format?
    /// Spoken commands to remind the user of, as the vocabulary spells them.
    public let hints: [String]
    /// Seconds of this run the live recognizer skipped because it fell behind (marked in the first line).
    public private(set) var notHeardLive: Double = 0
    /// How far the live transcript is behind the recording now (a busy machine).
    public private(set) var behind: Double = 0

    /// Show messages with their speech framing (`--raw`) rather than as said.
    public var raw = false
    /// The box the messages go to, shown in the first line.
    public var box: String?

    /// What a command is called on screen (never the code's name for it).
    public static func name(of action: KeywordAction) -> String {
        switch action {
        case .send: "send"
        case .sendHq: "send, cleaned up by HQ"
        case .sendClose: "send, end of turn"
        case .sendCheckpoint: "send this part"
        case .micOff: "hold as draft"
        case .cancel: "cancel"
        case .erase: "erase"
        }
    }

    /// What happens to a message whose HQ could not reach the box.
    public static let redoneLater = "the recording is kept and HQ is redone before the message is sent"

    /// The cause of the box being unreachable, once told.
    private var toldUnreachable: String?

    /// A failure in words: whole the first time the box is found unreachable, in a few words while the cause stays the
    /// same (one run with the box down said the same network error four times).
    public mutating func words(for failure: BoxFailure) -> String {
        switch failure {
        case .uncertain(_, let cause), .unreachable(_, let cause):
            if toldUnreachable == cause { return "the box is still unreachable" }
            toldUnreachable = cause
        default: break
        }
        return failure.description
    }

    /// The line Tab gets: whether a message was waiting for its HQ text.
    public static func liveTextNowAcknowledgement(sent: Bool) -> String {
        sent ? "Tab: sending the live text now, without HQ…" : "Tab: no message is waiting for HQ"
    }

    /// The line a key press gets at once, before anything it starts has finished (HQ can take seconds).
    public static func acknowledgement(of trigger: DictationTrigger) -> [String] {
        switch trigger {
        case .enter: ["Enter: sending…"]
        case .escape: ["Esc: cancelling…"]
        default: []
        }
    }

    /// - Parameter vocabulary: the hints are the first phrase of the send, send-and-close and cancel sections.
    public init(vocabulary: Vocabulary) {
        hints = [KeywordAction.send, .sendClose, .cancel].compactMap { action in
            vocabulary.sections.first { $0.action == action }?.patterns.first?.expansions().first?.joined(
                separator: " ")
        }
    }

    /// Takes in an event; returns the lines that should stay on screen above the status area.
    /// - Parameter now: when it came (an HQ wait is timed from its `committed`).
    public mutating func apply(_ event: DictationEvent, at now: Date = Date()) -> [String] {
        // Said as the status stood before the event (the first upload format is not announced).
        let lines = announcement(of: event)
        track(event, at: now)
        return lines
    }

    /// What the event changes in the status area.
    private mutating func track(_ event: DictationEvent, at now: Date) {
        switch event {
        case .committed(let id):
            awaitingHQ[id] = now
            newMessage()
        case .queued(let id, _, _), .refused(let id, _, _), .failed(let id?, _):
            awaitingHQ[id] = nil
        case .draft(let id):
            awaitingHQ[id] = nil
            newMessage()
        case .discarded:
            newMessage()
        case .level(let elapsed, let dBFS):
            self.elapsed = elapsed
            self.dBFS = dBFS
        case .listeningEnded:
            microphoneClosed = true
        case .partial(let text):
            partial = text
        case .final(let text):
            heard.append(text)
            partial = ""
        case .segment:
            segments += 1
        case .hq(let id, let index, let state):
            if id != hqMessage {
                hqMessage = id
                hq = [:]
            }
            hq[index] = state
        case .uploadCodec(let format, _):
            uploadFormat = format
        case .hearingBehind(let seconds):
            behind = seconds
        case .notHeardLive(let seconds, _):
            notHeardLive += seconds
        default:
            break
        }
    }

    /// The lines the event leaves above the status area.
    private mutating func announcement(of event: DictationEvent) -> [String] {
        switch event {
        case .listeningEnded:
            ["microphone closed: finishing what was said"]
        case .keyword(let action, let phrase, let at):
            ["[\(Self.clock(at))] \(Self.name(of: action)) (\"\(phrase)\")"]
        case .fallback(let reason, let failure, let redoneLater):
            [
                redoneLater
                    ? "HQ waits for the box (\(failure.map { words(for: $0) } ?? reason)); \(Self.redoneLater)"
                    : "HQ unavailable, the live text is sent: \(failure.map { words(for: $0) } ?? reason)"
            ]
        case .hqRedone(_, let message, let text):
            [raw ? message : "HQ text, sending: \(SpeechFraming.asSaid(text))"]
        case .uploadCodec(let format, let reason):
            uploadFormat == nil ? [] : ["uploads now go as \(format == .opus ? "Opus" : "WAV"): \(reason)"]
        case .commandChecked(let action, .rejected, _):
            ["(\(Self.name(of: action)) not taken: the box heard ordinary words)"]
        case .awaitingPause(let action, _):
            ["(\(Self.name(of: action)) once you pause; go on talking and it stays text, Enter acts now)"]
        case .speechWentOn(let action):
            ["(\(Self.name(of: action)) not taken: you went on talking)"]
        case .commandNotTaken(let action, let phrase, let doubt):
            [
                "(\(Self.name(of: action)) not taken: heard \"\(phrase)\", \(doubt.explanation); say it again or "
                    + "press Enter)"
            ]
        case .queued(_, let message, let text):
            [raw ? message : "sending: \(SpeechFraming.asSaid(text))"]
        case .recovered(let report):
            [report.summary]
        case .delivered(let id):
            ["delivered \(id)"]
        case .postponed(let id, let failure):
            ["kept in the outbox \(id) (\(words(for: failure))); \(FollowView.retrier)"]
        case .failed(let id, let reason):
            ["not delivered, kept in the outbox\(id.map { ": \($0)" } ?? ""): \(reason)"]
        case .refused(let id, let reason, _):
            ["not delivered, kept in the outbox: \(id): \(reason)"]
        case .heldForSession(let id):
            ["kept in the outbox until the box names this run's new conversation: \(id)"]
        case .draft(let id):
            ["kept as a draft: \(id)  (boxvoice outbox send \(id) | discard \(id))"]
        case .discarded:
            ["discarded"]
        case .notHeardLive(let seconds, let at):
            [
                "[\(Self.clock(at))] the machine is busy: \(Self.seconds(seconds)) not heard live (recorded, and HQ "
                    + "hears it)"
            ]
        case .whisperMissed(let reason, let at):
            [
                "[\(Self.clock(at))] Whisper was \(reason == .abandoned ? "too slow for" : "unable to hear") this "
                    + "sentence: pocketsphinx's words stand in (HQ hears it again)"
            ]
        case .captureLost(let frames, let overruns):
            [
                "audio lost before it was recorded: \(Self.seconds(Double(frames) / AudioRate.perSecond)) in "
                    + "all\(overruns > 0 ? ", \(overruns) device overrun(s)" : "")"
            ]
        default:
            []
        }
    }

    private mutating func newMessage() {
        heard = []
        partial = ""
        segments = 0
    }

    /// The status area, each line at most `width` columns. `color` adds ANSI colour (the recording dot, the meter).
    /// - Parameter now: the time an HQ wait is measured to.
    public func render(width: Int, color: Bool, now: Date = Date()) -> [String] {
        // Both colour codes take nine characters and no columns (see the width cut below).
        let dot =
            microphoneClosed
            ? (color ? "\u{1B}[90m○\u{1B}[0m" : "○") : (color ? "\u{1B}[31m●\u{1B}[0m" : "●")
        var first =
            "\(dot) \(Self.clock(elapsed))\(box.map { " → \($0)" } ?? "")  \(Self.meter(dBFS))  segments \(segments)"
        if behind >= 1 { first += "  live \(Self.seconds(behind)) behind" }
        if notHeardLive > 0 { first += "  live: \(Self.seconds(notHeardLive)) not heard" }
        if !hq.isEmpty {
            first +=
                "  HQ" + (uploadFormat.map { "(\($0.rawValue))" } ?? "") + " "
                + hq.keys.sorted().map { "\($0)\(Self.symbol(hq[$0]!))" }.joined(separator: " ")
        }
        if let since = awaitingHQ.values.min() {
            first += "  HQ wait \(Self.seconds(max(0, now.timeIntervalSince(since))))"
        }
        // Only the newest utterances can show: an hour of dictation is not joined ten times a second.
        var newest: [String] = partial.isEmpty ? [] : [partial]
        var length = partial.count
        for utterance in heard.reversed() where length <= width {
            newest.append(utterance)
            length += utterance.count + 1
        }
        let transcript = newest.reversed().joined(separator: " ")
        // The hints wrap rather than being cut: at 50 columns they take two lines. The last result is printed above
        // the area once, not repeated in it.
        var lines = [first, "… " + Self.tail(transcript, width: width - 2)]
        var hintLine = ""
        let keys = ["Enter send", "Esc cancel"] + (awaitingHQ.isEmpty ? [] : ["Tab live text now"])
        for hint in hints.map({ "\"\($0)\"" }) + keys {
            let joined = hintLine.isEmpty ? hint : hintLine + " · " + hint
            if joined.count > width && !hintLine.isEmpty {
                lines.append(hintLine)
                hintLine = hint
            } else {
                hintLine = joined
            }
        }
        lines.append(hintLine)
        // Plain text is cut to the width; the colour codes in the first line take no columns.
        return lines.enumerated().map { index, line in
            let visible = index == 0 && color ? line.count - 9 : line.count
            return visible <= width ? line : String(line.prefix(width - 1 + (line.count - visible))) + "…"
        }
    }

    /// A duration in words: tenths under ten seconds, whole seconds above.
    static func seconds(_ value: Double) -> String {
        value < 10 ? String(format: "%.1f s", value) : "\(Int(value.rounded())) s"
    }

    /// mm:ss of audio.
    public static func clock(_ seconds: Double) -> String {
        let whole = max(0, Int(seconds))
        return String(format: "%02d:%02d", whole / 60, whole % 60)
    }

    /// Ten cells from -60 dBFS (empty) to 0 dBFS (full).
    public static func meter(_ dBFS: Double) -> String {
        let filled = max(0, min(10, Int(((dBFS + 60) / 6).rounded(.down))))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 10 - filled) + "]"
    }

    static func symbol(_ state: HQState) -> String {
        switch state {
        case .uploading: "↑"
        case .done: "✓"
        case .retrying(let attempt): "↻\(attempt)"
        case .failed: "✗"
        }
    }

    /// The end of the transcript that fits: the newest words matter most while talking.
    static func tail(_ text: String, width: Int) -> String {
        guard width > 1, text.count > width else { return text }
        return "…" + text.suffix(width - 1)
    }
}
