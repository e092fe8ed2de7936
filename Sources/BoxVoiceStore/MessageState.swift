/// Where a dictated message is in its life. Stored as the raw value, so the spelling is part of the schema.
public enum MessageState: String, Sendable, CaseIterable, Codable {
    /// Audio is being written and no command has ended it yet.
    case recording
    /// A send ended it and it is committed; the box's HQ text is still to come (from this run, or from its retained
    /// segments after a restart).
    case awaitingHQ = "awaiting-hq"
    /// Framed and due for delivery (or its last attempt's outcome is unknown): will be (re)sent with the same id.
    case pending
    /// The box accepted it.
    case delivered
    /// The box refused it for good (4xx) or the device must re-pair: kept, shown, never retried by itself.
    case failed
    /// Refused on a retry after an attempt whose answer was lost: the first attempt may have reached the box.
    case possiblyDelivered = "possibly-delivered"
    /// Kept for the user (mic off, a fault, a crash mid-recording): not sent until asked.
    case draft
    /// Dropped by the user (erase, cancel, discard): no text and no audio are kept.
    case discarded

    /// Its audio is still being written or is still needed for its HQ text: never evicted.
    public var needsAudio: Bool { self == .recording || self == .awaitingHQ }
}

/// What happens to a message. Each is one row change in one transaction.
public enum MessageTransition: String, Sendable, CaseIterable {
    /// A send (spoken, key, end of input, stop) ended it; its HQ text is still to come.
    case commandAwaitingHQ
    /// A send ended it and HQ will not run (unavailable this run): it goes out with its live text.
    case commandLiveOnly
    /// Its text is final (HQ text, or the live text when HQ failed) and framed.
    case framed
    /// Mic-off, a fault while recording, or a crash before its command: kept as a draft.
    case keptAsDraft
    /// The user sends a draft: HQ runs on its audio first.
    case sendDraft
    /// Neither the live pass nor HQ heard a word: an empty message is never sent, and it goes back to being a draft.
    case nothingHeard
    /// The box accepted it.
    case accepted
    /// HQ owed to a pending message was redone from its recording (or given up): its text is final now.
    case owedHQSettled
    /// No usable answer: tried again later with the same id.
    case uncertain
    /// The box refused it for good.
    case refused
    /// Refused on a retry after an attempt whose outcome was unknown.
    case refusedAfterUncertain
    /// The user asks for a failed (or possibly delivered) message to be sent again, or for a pending one now.
    case retry
    /// Erase, cancel, `outbox discard`.
    case discard
}

extension MessageState {
    /// The transition table: the state `transition` leads to, or nil when it is not allowed from here.
    /// Pure; `MessageStore` applies nothing this table refuses.
    public func after(_ transition: MessageTransition) -> MessageState? {
        switch (self, transition) {
        case (.recording, .commandAwaitingHQ): .awaitingHQ
        case (.recording, .commandLiveOnly): .pending
        case (.recording, .keptAsDraft): .draft
        case (.recording, .discard): .discarded
        case (.awaitingHQ, .framed): .pending
        case (.awaitingHQ, .nothingHeard): .draft
        case (.draft, .sendDraft): .awaitingHQ
        case (.draft, .discard): .discarded
        case (.pending, .accepted): .delivered
        case (.pending, .owedHQSettled): .pending
        case (.pending, .uncertain): .pending
        case (.pending, .refused): .failed
        case (.pending, .refusedAfterUncertain): .possiblyDelivered
        case (.pending, .retry): .pending
        case (.pending, .discard): .discarded
        case (.failed, .retry), (.possiblyDelivered, .retry): .pending
        case (.failed, .discard), (.possiblyDelivered, .discard): .discarded
        default: nil
        }
    }
}
