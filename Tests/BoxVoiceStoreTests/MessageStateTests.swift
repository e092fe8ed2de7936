import BoxVoiceContract
import BoxVoiceStore
import Testing

@Suite struct MessageStateTests {
    /// The whole table, written out independently of `MessageState.after`: every (state, transition) pair not listed
    /// here must be refused.
    static let allowed: [MessageState: [MessageTransition: MessageState]] = [
        .recording: [
            .commandAwaitingHQ: .awaitingHQ, .commandLiveOnly: .pending, .keptAsDraft: .draft, .discard: .discarded,
        ],
        .awaitingHQ: [.framed: .pending, .nothingHeard: .draft],
        .pending: [
            .accepted: .delivered, .uncertain: .pending, .owedHQSettled: .pending, .refused: .failed,
            .refusedAfterUncertain: .possiblyDelivered,
            .retry: .pending, .discard: .discarded,
        ],
        .delivered: [:],
        .failed: [.retry: .pending, .discard: .discarded],
        .possiblyDelivered: [.retry: .pending, .discard: .discarded],
        .draft: [.sendDraft: .awaitingHQ, .discard: .discarded],
        .discarded: [:],
    ]

    @Test(arguments: MessageState.allCases)
    func everyTransitionFromAStateIsTheTablesOrRefused(_ state: MessageState) {
        for transition in MessageTransition.allCases {
            #expect(state.after(transition) == Self.allowed[state]?[transition], "\(state) on \(transition)")
        }
    }

    @Test func deliveredAndDiscardedAreFinal() {
        for transition in MessageTransition.allCases {
            #expect(MessageState.delivered.after(transition) == nil)
            #expect(MessageState.discarded.after(transition) == nil)
        }
    }

    @Test func nothingLeavesAwaitingHQButItsFramingOrAnEmptyOnesReturnToDraft() {
        // A committed send can never be dropped: it reaches the box, unless not a word was heard in it (an empty
        // message is never sent; it goes back to the drafts, where it came from).
        #expect(
            MessageTransition.allCases.filter { MessageState.awaitingHQ.after($0) != nil } == [.framed, .nothingHeard])
        #expect(MessageState.awaitingHQ.after(.discard) == nil)
    }

    @Test func stateSpellingsAreTheSchemas() {
        #expect(
            MessageState.allCases.map(\.rawValue) == [
                "recording", "awaiting-hq", "pending", "delivered", "failed", "possibly-delivered", "draft",
                "discarded",
            ])
    }

    @Test func messageIdsHaveOneCanonicalSpelling() throws {
        let lower = "0f8fad5b-d9cb-469f-a165-70867728950e"
        let id = try #require(MessageID(parsing: lower))
        #expect(id.rawValue == lower.uppercased())
        #expect(MessageID(exactly: lower) == nil)
        #expect(MessageID(exactly: lower.uppercased()) == id)
        #expect(MessageID(parsing: "not-a-uuid") == nil)
        let fresh = MessageID.new()
        #expect(fresh.rawValue == fresh.rawValue.uppercased())
        #expect(MessageID(exactly: fresh.rawValue) == fresh)
    }
}
