import BoxVoiceKeywords
import Foundation

/// What `boxvoice status --follow` shows of the daemon's event lines: words for a person, or the state a status bar
/// (waybar, polybar) draws. Pure: an event in, text out.
public enum FollowView {
    /// A line for a person, or nil for an event too frequent to print (levels, partial words).
    public static func line(_ event: EventRecord) -> String? {
        let id = event.messageId?.rawValue ?? ""
        switch event.event {
        case .listening: return "listening"
        case .listeningEnded: return "microphone closed: finishing what was said"
        case .final: return event.text.map { "… " + $0 }
        case .keyword: return "heard \"\(event.phrase ?? "")\" (\(words(event.action)))"
        case .committed: return "kept: the message is safe in the outbox"
        case .codec: return "HQ uploads go as \(event.codec == .opus ? "Opus" : "WAV"): \(event.reason ?? "")"
        case .fallback:
            return event.redoneLater == true
                ? "HQ waits for the box (\(event.reason ?? "")); \(DictationStatus.redoneLater)"
                : "HQ unavailable, the live text is sent: \(event.reason ?? "")"
        case .queued: return "sending \(id)"
        case .hqRedone: return "HQ text made for \(id), sending it"
        case .postponed: return "kept in the outbox \(id): \(event.reason ?? ""); \(retrier)"
        case .held: return "kept in the outbox until the box names this turn's new conversation: \(id)"
        case .delivered: return "delivered \(id)"
        case .failed: return "not delivered (kept in the outbox)\(id.isEmpty ? "" : " " + id): \(event.reason ?? "")"
        case .draft: return "kept as a draft: \(id)"
        case .discarded: return "discarded"
        case .recovered: return event.message
        case .idle: return "idle"
        default: return nil
        }
    }

    /// Who sends a held message, and when: said wherever a message is held, so the user knows to do nothing.
    public static let retrier = "the daemon (or the next boxvoice command) sends it when the box answers"

    /// The status-bar state after `event`: recording while a turn hears, holding while a message waits for the box,
    /// failed after a refusal, idle otherwise; stopped while no daemon runs.
    public enum BarState: String, Sendable, Equatable {
        case idle, recording, sending, holding, failed, stopped
    }

    public static func state(after event: EventRecord, from current: BarState) -> BarState {
        switch event.event {
        case .listening, .partial, .final, .keyword, .segment, .committed: .recording
        case .hq: current == .sending ? .sending : .recording
        case .listeningEnded: .sending
        case .postponed, .held: .holding
        case .failed: .failed
        case .idle: current == .recording || current == .sending ? .idle : current
        case .delivered: current == .holding ? .idle : current
        default: current
        }
    }

    /// One line of waybar's `return-type: json` (also read by polybar scripts): text, tooltip and a class to style.
    public static func bar(_ state: BarState) -> String {
        let (text, tooltip): (String, String) =
            switch state {
            case .idle: ("", "boxvoice: idle")
            case .recording: ("● dictating", "boxvoice: dictating (toggle to send)")
            case .sending: ("↑ sending", "boxvoice: microphone closed; the message is being transcribed and sent")
            case .holding: ("⏸ held", "boxvoice: a message waits in the outbox for the box")
            case .failed: ("✗ not sent", "boxvoice: the box refused a message; `boxvoice outbox` lists it")
            case .stopped: ("○ off", "boxvoice: no daemon is running (`systemctl --user start boxvoice`)")
            }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Four strings: encoding cannot fail.
        return String(
            decoding: try! encoder.encode(
                Bar(text: text, tooltip: tooltip, class: state.rawValue, alt: state.rawValue)), as: UTF8.self)
    }

    private struct Bar: Encodable {
        let text: String
        let tooltip: String
        let `class`: String
        let alt: String
    }

    private static func words(_ action: KeywordAction?) -> String {
        switch action {
        case .send, .sendHq: "send"
        case .sendClose: "send, then end the turn"
        case .sendCheckpoint: "send this part"
        case .micOff: "pause, keep a draft"
        case .cancel: "cancel"
        case .erase: "drop what was said so far"
        case nil: ""
        }
    }
}
