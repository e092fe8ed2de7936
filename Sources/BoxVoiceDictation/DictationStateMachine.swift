import BoxVoiceKeywords

/// What ends or changes the message being dictated.
public enum DictationTrigger: Sendable, Equatable {
    /// The keyword detector fired on the live transcript.
    case keyword(KeywordAction)
    /// Enter: send without a spoken tag.
    case enter
    /// Esc: cancel.
    case escape
    /// `--input` ran out.
    case endOfInput
}

/// What the session must do, in order.
public enum DictationEffect: Sendable, Equatable {
    /// Resolve HQ/live text and deliver the message; `spoken` is the keyword that sent it (nil: Enter or end of input).
    case deliver(spoken: KeywordAction?)
    /// Drop the message's text and audio; nothing is kept.
    case discard
    /// Keep the message (text and audio) as a draft in the outbox, unsent.
    case keepDraft
    /// Everything after the trigger belongs to a new message.
    case beginNextMessage
    /// Stop listening.
    case stop
}

/// The dictation table of the dictation issue, as a pure state machine (exhaustively tested).
///
/// | trigger | effect |
/// |---|---|
/// | send / clean-up-and-send, or Enter | deliver; keep listening (stop with `once`) |
/// | send-and-close | deliver; stop |
/// | send checkpoint | deliver with its tag; keep listening; the next part is a new message |
/// | erase | drop this message; keep listening |
/// | cancel, or Esc | drop this message; stop |
/// | mic off | stop; keep the draft |
/// | end of input | as Enter, unless the policy says draft or discard |
///
/// A message with nothing in it is never delivered or kept as a draft: there is nothing to send.
public struct DictationStateMachine: Sendable, Equatable {
    public enum EndOfInputPolicy: String, Sendable, CaseIterable {
        case send, draft, discard
    }

    public private(set) var isStopped = false
    /// Messages begun so far (the first is 1).
    public private(set) var messageNumber = 1
    public let once: Bool
    public let endOfInput: EndOfInputPolicy

    public init(once: Bool = false, endOfInput: EndOfInputPolicy = .send) {
        self.once = once
        self.endOfInput = endOfInput
    }

    /// - Parameter hasContent: the current message holds text or audio worth sending.
    public mutating func handle(_ trigger: DictationTrigger, hasContent: Bool) -> [DictationEffect] {
        guard !isStopped else { return [] }
        var effects: [DictationEffect]
        var keepsListening: Bool
        switch trigger {
        case .keyword(.send), .keyword(.sendHq), .enter:
            effects = [send(hasContent, spoken: trigger.spokenAction)]
            keepsListening = !once
        case .keyword(.sendCheckpoint):
            effects = [send(hasContent, spoken: .sendCheckpoint)]
            keepsListening = !once
        case .keyword(.sendClose):
            effects = [send(hasContent, spoken: .sendClose)]
            keepsListening = false
        case .keyword(.erase):
            effects = [.discard]
            keepsListening = true
        case .keyword(.cancel), .escape:
            effects = [.discard]
            keepsListening = false
        case .keyword(.micOff):
            effects = [hasContent ? .keepDraft : .discard]
            keepsListening = false
        case .endOfInput:
            switch endOfInput {
            case .send: effects = [send(hasContent, spoken: nil)]
            case .draft: effects = [hasContent ? .keepDraft : .discard]
            case .discard: effects = [.discard]
            }
            keepsListening = false
        }
        if keepsListening {
            effects.append(.beginNextMessage)
            messageNumber += 1
        } else {
            effects.append(.stop)
            isStopped = true
        }
        return effects
    }

    private func send(_ hasContent: Bool, spoken: KeywordAction?) -> DictationEffect {
        hasContent ? .deliver(spoken: spoken) : .discard
    }
}

extension DictationTrigger {
    fileprivate var spokenAction: KeywordAction? {
        if case .keyword(let action) = self { return action }
        return nil
    }
}
