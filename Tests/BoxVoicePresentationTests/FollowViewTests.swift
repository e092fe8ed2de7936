import BoxVoiceCore
import BoxVoicePresentation
import Foundation
import Testing

@Suite struct FollowViewTests {
    @Test(arguments: [
        (#"{"event":"listening"}"#, "listening"),
        (#"{"event":"final","text":"buy milk"}"#, "… buy milk"),
        (#"{"event":"keyword","action":"sendClose","phrase":"over and out","at":3.2}"#, "heard \"over and out\" (send, then end the turn)"),
        (#"{"event":"delivered","messageId":"A1"}"#, "delivered A1"),
        (#"{"event":"queued","messageId":"A1","reason":"box down"}"#, "kept in the outbox, will retry A1: box down"),
        (#"{"event":"held","messageId":"A1","reason":"x"}"#, "kept in the outbox until the box names this turn's new conversation: A1"),
        (#"{"event":"codec","codec":"opus","reason":"link 2.0 Mbit/s"}"#, "HQ uploads go as Opus: link 2.0 Mbit/s"),
        (#"{"event":"idle"}"#, "idle"),
    ])
    func eventsReadAsWords(_ json: String, _ expected: String) throws {
        let event = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(FollowView.line(event) == expected)
    }

    @Test func levelsAndPartialWordsAreNotPrinted() throws {
        for json in [#"{"event":"level","elapsed":1,"dBFS":-20}"#, #"{"event":"partial","text":"bu"}"#, #"{"event":"segment","index":1}"#] {
            let event = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(FollowView.line(event) == nil, "\(json)")
        }
    }

    /// The bar: a turn records; a message the box cannot take yet holds it after the turn; delivery clears it; a
    /// refusal shows until the next turn.
    @Test func theBarFollowsATurnAndWhatBecomesOfItsMessage() throws {
        func next(_ state: FollowView.BarState, _ json: String) throws -> FollowView.BarState {
            FollowView.state(after: try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]), from: state)
        }
        var state = FollowView.BarState.idle
        state = try next(state, #"{"event":"listening"}"#)
        #expect(state == .recording)
        state = try next(state, #"{"event":"queued","messageId":"A","reason":"box down"}"#)
        #expect(state == .holding)
        state = try next(state, #"{"event":"idle"}"#)
        #expect(state == .holding, "the turn ended, the message still waits")
        state = try next(state, #"{"event":"delivered","messageId":"A"}"#)
        #expect(state == .idle)
        state = try next(state, #"{"event":"listening"}"#)
        state = try next(state, #"{"event":"failed","messageId":"B","reason":"401"}"#)
        state = try next(state, #"{"event":"idle"}"#)
        #expect(state == .failed)
        let line = try #require(try JSONSerialization.jsonObject(with: Data(FollowView.bar(.recording).utf8)) as? [String: String])
        #expect(line["class"] == "recording" && line["text"] == "● dictating" && line["tooltip"] != nil)
    }
}
