import BoxVoiceKeywords
import BoxVoiceContract
import Foundation

/// Why the box did not take a message, as a caller can switch on it.
public enum DeliveryFailureKind: String, Sendable, Equatable, CaseIterable {
    /// The device token is no longer accepted (401): re-pair.
    case unauthorized
    /// A 4xx: the box refused this request for good.
    case refused
    /// No usable answer (network, timeout, 5xx): retried.
    case uncertain
}

/// How the box accepted a message (the contract's send answer), as the store keeps it.
public enum BoxAcceptance: Sendable, Equatable {
    /// It started a turn in its session.
    case started(turn: String)
    /// The session was busy: it runs when the turn before it ends.
    case queued
    /// The box already had a message with this id (an earlier attempt reached it).
    case deduplicated

    /// As the `outcome` column holds it (`started:<turn>`, `queued`, `deduplicated`), as it always has.
    var storedText: String {
        switch self {
        case .started(let turn): "started:\(turn)"
        case .queued: "queued"
        case .deduplicated: "deduplicated"
        }
    }

    init?(storedText text: String) {
        switch text {
        case "queued": self = .queued
        case "deduplicated": self = .deduplicated
        case _ where text.hasPrefix("started:"): self = .started(turn: String(text.dropFirst("started:".count)))
        default: return nil
        }
    }
}

/// One dictated message: its row in the store. A value: reading it never changes it.
public struct DictatedMessage: Sendable, Equatable {
    public var id: MessageID
    public var box: BoxReference
    /// The session dictated into; nil means "new" (or, while `sessionUnresolved`, not known yet).
    public var session: String?
    public var state: MessageState
    /// The live recognizer's transcript as heard (no keyword substitution): what the resolver starts from.
    public var heardText: String
    /// Text typed before dictation started.
    public var typedPrefix: String
    /// The command that ended it (a send, or mic-off for a draft); nil for a key, end of input or a crash.
    public var command: HeardCommand?
    /// When the command was heard: the message's `local-time`.
    public var commandAt: Date?
    /// The framed `<speech …>` message exactly as posted; set from `pending` on.
    public var body: String?
    /// The committed text: resolved live text, replaced by the HQ text when it comes. Retranscription answers carry it.
    public var text: String?
    /// When its audio began.
    public var recordedAt: Date
    /// Its segments are kept on disk (bounded per box).
    public var hasAudio: Bool
    public var attempts: Int
    public var nextAttemptAt: Date?
    public var lastError: String?
    public var failure: DeliveryFailureKind?
    /// How the box accepted it; nil until it did.
    public var acceptance: BoxAcceptance?
    /// The box's default session is to be asked for when the message is sent (dictation started without asking the
    /// box: listening never waits on the network, and an unreachable box is never a reason to open a new session).
    public var sessionUnresolved: Bool
    /// The run of messages it belongs to, which all go into one conversation (nil for messages stored before runs).
    public var run: SessionRun.ID? = nil
    /// It was framed with its live text only because HQ could not reach the box (or the box refused the device), and
    /// no attempt to send it can have reached the box since: HQ is redone from its kept recording before it is sent.
    public var hqOwed: Bool = false
}
