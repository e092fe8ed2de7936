import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoicePresentation
import BoxVoiceStore
import Foundation
import Testing

/// The one spelling of a dictation's events: `dictate --json` writes it, the daemon streams it, `status --follow`
/// reads it back.
@Suite struct EventRecordTests {
    static let id = MessageID(parsing: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!

    static let events: [DictationEvent] = {
        var report = RecoveryReport()
        report.adoptedDrafts = [id]
        report.repairedFiles = 2
        return [
            .partial("buy"), .final("buy milk"), .listeningEnded, .keyword(action: .send, phrase: "x", at: 3.25),
            .segment(index: 1, seconds: 60), .hq(messageId: id, index: 1, state: .uploading),
            .hq(messageId: id, index: 2, state: .retrying(attempt: 3)),
            .hq(messageId: id, index: 3, state: .failed(nil)),
            .fallback(reason: "box down", failure: nil), .committed(messageId: id),
            .fallback(reason: "box down", failure: .unreachable(operation: "hq", reason: "refused"), redoneLater: true),
            .hqRedone(messageId: id, message: "<speech>buy milk.</speech>", text: "buy milk."),
            .queued(messageId: id, message: "<speech>buy milk</speech>", text: "buy milk"), .delivered(messageId: id),
            .postponed(messageId: id, failure: .uncertain(operation: "send", reason: "connection refused")),
            .heldForSession(messageId: id), .uploadCodec(format: .opus, reason: "slow link"),
            .failed(messageId: id, reason: "x"), .failed(messageId: nil, reason: "the store is unreadable"),
            .refused(messageId: id, reason: "401", needsRePair: true), .draft(messageId: id), .discarded,
            .recovered(report), .commandChecked(action: .cancel, outcome: .rejected, seconds: 1.5),
            .awaitingPause(action: .send, phrase: "x"), .speechWentOn(action: .send),
            .hearingBehind(seconds: 1.25), .notHeardLive(seconds: 8, at: 30), .whisperMissed(reason: .abandoned, at: 2),
            .captureLost(frames: 4_800, overruns: 1),
        ]
    }()

    @Test func everyEventReadsBackAsWhatWasWritten() throws {
        for event in Self.events {
            let record = try #require(EventRecord(event), "\(event)")
            #expect(EventRecord(line: record.line) == record, "\(record.line)")
        }
        #expect(EventRecord(.level(elapsed: 1, dBFS: -20)) == nil, "levels are for the status area only")
    }

    @Test func aFailureOfNoOneMessageCarriesNoMessageId() throws {
        let line = try #require(EventRecord(.failed(messageId: nil, reason: "the store is unreadable"))).line
        #expect(line == #"{"event":"failed","reason":"the store is unreadable"}"#)
    }

    @Test func aPostponedMessageIsNotSpelledAsOneBeingSent() throws {
        let postponed = try #require(
            EventRecord(.postponed(messageId: Self.id, failure: .uncertain(operation: "send", reason: "down"))))
        let queued = try #require(EventRecord(.queued(messageId: Self.id, message: "m", text: "t")))
        #expect(postponed.event == .postponed && queued.event == .queued)
    }

    /// The daemon's journal gets events without what the user said.
    @Test func theLogFormKeepsNoWords() throws {
        for event in Self.events {
            let line = try #require(EventRecord(event)).withoutWords.line
            #expect(!line.contains("buy"), "\(line)")
        }
    }
}
