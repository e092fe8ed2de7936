import BoxVoiceDictation
import BoxVoiceKeywords
import Testing

@Suite struct DictationStateMachineTests {
    static let triggers: [DictationTrigger] =
        KeywordAction.allCases.map { .keyword($0) } + [.enter, .escape, .endOfInput]

    /// The table, written out independently of the implementation: effects for a message with content, and whether
    /// listening goes on (without `once`).
    private func expected(_ trigger: DictationTrigger, policy: DictationStateMachine.EndOfInputPolicy) -> (
        [DictationEffect], Bool
    ) {
        switch trigger {
        case .keyword(.send): ([.deliver(spoken: .send)], true)
        case .keyword(.sendHq): ([.deliver(spoken: .sendHq)], true)
        case .enter: ([.deliver(spoken: nil)], true)
        case .keyword(.sendCheckpoint): ([.deliver(spoken: .sendCheckpoint)], true)
        case .keyword(.sendClose): ([.deliver(spoken: .sendClose)], false)
        case .keyword(.erase): ([.discard], true)
        case .keyword(.cancel), .escape: ([.discard], false)
        case .keyword(.micOff): ([.keepDraft], false)
        case .endOfInput:
            switch policy {
            case .send: ([.deliver(spoken: nil)], false)
            case .draft: ([.keepDraft], false)
            case .discard: ([.discard], false)
            }
        }
    }

    @Test(arguments: triggers)
    func everyTriggerWithContentDoesWhatTheTableSays(_ trigger: DictationTrigger) {
        for policy in DictationStateMachine.EndOfInputPolicy.allCases {
            for once in [false, true] {
                var machine = DictationStateMachine(once: once, endOfInput: policy)
                let (effects, listens) = expected(trigger, policy: policy)
                // `once` stops after a delivery that would otherwise keep listening; erase keeps listening regardless.
                let keepsListening =
                    listens
                    && !(once && effects.contains { if case .deliver = $0 { return true } else { return false } })
                let got = machine.handle(trigger, hasContent: true)
                #expect(
                    got == effects + [keepsListening ? .beginNextMessage : .stop],
                    "\(trigger) once=\(once) eof=\(policy)")
                #expect(machine.isStopped == !keepsListening)
                #expect(machine.messageNumber == (keepsListening ? 2 : 1))
            }
        }
    }

    @Test(arguments: triggers)
    func anEmptyMessageIsNeverDeliveredOrKept(_ trigger: DictationTrigger) {
        for policy in DictationStateMachine.EndOfInputPolicy.allCases {
            var machine = DictationStateMachine(endOfInput: policy)
            let effects = machine.handle(trigger, hasContent: false)
            #expect(
                !effects.contains { if case .deliver = $0 { return true } else { return $0 == .keepDraft } },
                "\(trigger)")
            #expect(effects.first == .discard)
        }
    }

    @Test func nothingHappensAfterStopping() {
        var machine = DictationStateMachine()
        _ = machine.handle(.keyword(.sendClose), hasContent: true)
        for trigger in Self.triggers { #expect(machine.handle(trigger, hasContent: true).isEmpty) }
    }

    @Test func aSessionOfSeveralMessagesCountsThem() {
        var machine = DictationStateMachine()
        #expect(
            machine.handle(.keyword(.sendCheckpoint), hasContent: true) == [
                .deliver(spoken: .sendCheckpoint), .beginNextMessage,
            ])
        #expect(machine.handle(.keyword(.erase), hasContent: true) == [.discard, .beginNextMessage])
        #expect(machine.handle(.enter, hasContent: true) == [.deliver(spoken: nil), .beginNextMessage])
        #expect(machine.messageNumber == 4)
        #expect(machine.handle(.keyword(.micOff), hasContent: true) == [.keepDraft, .stop])
        #expect(machine.isStopped)
    }
}
