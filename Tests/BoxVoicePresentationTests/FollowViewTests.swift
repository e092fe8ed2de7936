import BoxVoiceDictation
import BoxVoicePresentation
import Foundation
import Testing

@Suite struct FollowViewTests {
    static let id = "6F9619FF-8B86-D011-B42D-00C04FC964FF"

    @Test(arguments: [
        (#"{"event":"listening"}"#, "listening"),
        (#"{"event":"final","text":"buy milk"}"#, "… buy milk"),
        (
            #"{"event":"keyword","action":"sendClose","phrase":"over and out","at":3.2}"#,
            "heard \"over and out\" (send, then end the turn)"
        ),
        (#"{"event":"delivered","messageId":"\#(id)"}"#, "delivered \(id)"),
        (#"{"event":"queued","messageId":"\#(id)"}"#, "sending \(id)"),
        (#"{"event":"hq-redone","messageId":"\#(id)"}"#, "HQ text made for \(id), sending it"),
        (
            #"{"event":"fallback","reason":"box down","redoneLater":true}"#,
            "HQ waits for the box (box down); the recording is kept and HQ is redone before the message is sent"
        ),
        (#"{"event":"fallback","reason":"no key"}"#, "HQ unavailable, the live text is sent: no key"),
        (
            #"{"event":"postponed","messageId":"\#(id)","reason":"box down"}"#,
            "kept in the outbox \(id): box down; the daemon (or the next boxvoice command) sends it when the box "
                + "answers"
        ),
        (
            #"{"event":"held","messageId":"\#(id)","reason":"x"}"#,
            "kept in the outbox until the box names this turn's new conversation: \(id)"
        ),
        (#"{"event":"codec","codec":"opus","reason":"link 2.0 Mbit/s"}"#, "HQ uploads go as Opus: link 2.0 Mbit/s"),
        (
            #"{"event":"failed","reason":"the store is unreadable"}"#,
            "not delivered (kept in the outbox): the store is unreadable"
        ),
        (#"{"event":"idle"}"#, "idle"),
    ])
    func eventsReadAsWords(_ json: String, _ expected: String) throws {
        let event = try #require(EventRecord(line: json))
        #expect(FollowView.line(event) == expected)
    }

    @Test func partialWordsAndSegmentsAreNotPrintedAndUnknownLinesAreNotEvents() throws {
        for json in [#"{"event":"partial","text":"bu"}"#, #"{"event":"segment","index":1}"#] {
            #expect(FollowView.line(try #require(EventRecord(line: json))) == nil, "\(json)")
        }
        for json in [
            #"{"event":"level","elapsed":1}"#, #"{"event":"queued","messageId":"not-an-id"}"#, "[]", "nonsense",
        ] {
            #expect(EventRecord(line: json) == nil, "\(json)")
        }
    }

    /// The bar: a turn records; a message the box cannot take yet holds it after the turn; delivery clears it; a
    /// refusal shows until the next turn.
    @Test func theBarFollowsATurnAndWhatBecomesOfItsMessage() throws {
        func next(_ state: FollowView.BarState, _ json: String) throws -> FollowView.BarState {
            FollowView.state(after: try #require(EventRecord(line: json)), from: state)
        }
        var state = FollowView.BarState.idle
        state = try next(state, #"{"event":"listening"}"#)
        #expect(state == .recording)
        state = try next(state, #"{"event":"postponed","messageId":"\#(Self.id)","reason":"box down"}"#)
        #expect(state == .holding)
        state = try next(state, #"{"event":"idle"}"#)
        #expect(state == .holding, "the turn ended, the message still waits")
        state = try next(state, #"{"event":"delivered","messageId":"\#(Self.id)"}"#)
        #expect(state == .idle)
        state = try next(state, #"{"event":"listening"}"#)
        state = try next(state, #"{"event":"failed","messageId":"\#(Self.id)","reason":"401"}"#)
        state = try next(state, #"{"event":"idle"}"#)
        #expect(state == .failed)
        let line = try #require(
            try JSONSerialization.jsonObject(with: Data(FollowView.bar(.recording).utf8)) as? [String: String])
        #expect(line["class"] == "recording" && line["text"] == "● dictating" && line["tooltip"] != nil)
    }

    /// Once the turn's microphone closes the bar says the message is being sent, not that it is still recording.
    @Test func theEndOfATurnLooksLikeSendingNotRecording() throws {
        func next(_ state: FollowView.BarState, _ json: String) throws -> FollowView.BarState {
            FollowView.state(after: try #require(EventRecord(line: json)), from: state)
        }
        var state = try next(.idle, #"{"event":"listening"}"#)
        state = try next(state, #"{"event":"committed","messageId":"\#(Self.id)"}"#)
        #expect(state == .recording)
        state = try next(state, #"{"event":"listening-ended"}"#)
        #expect(state == .sending)
        state = try next(state, #"{"event":"hq","messageId":"\#(Self.id)","segment":1,"state":"uploading"}"#)
        #expect(state == .sending, "HQ after the microphone closed is part of sending")
        state = try next(state, #"{"event":"idle"}"#)
        #expect(state == .idle)
        #expect(
            FollowView.line(try #require(EventRecord(line: #"{"event":"listening-ended"}"#)))
                == "microphone closed: finishing what was said")
        let bar = try #require(
            try JSONSerialization.jsonObject(with: Data(FollowView.bar(.sending).utf8)) as? [String: String])
        #expect(bar["class"] == "sending" && bar["text"] == "↑ sending")
    }
}
