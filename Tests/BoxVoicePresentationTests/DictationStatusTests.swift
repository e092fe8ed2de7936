import BoxVoiceContract
import BoxVoiceDictation
import BoxVoicePresentation
import BoxVoiceKeywords
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct DictationStatusTests {
    static let m = MessageID(parsing: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!

    private func status() throws -> DictationStatus {
        DictationStatus(vocabulary: try Vocabulary.load(path: Checkout.keywordVocabulary))
    }

    @Test func hintsComeFromTheVocabularyFile() throws {
        let vocabulary = try Vocabulary.load(path: Checkout.keywordVocabulary)
        let hints = try status().hints
        #expect(hints.count == 3)
        let detector = KeywordDetector(vocabulary: vocabulary)
        #expect(hints.map { detector.detect($0)?.action } == [.send, .sendClose, .cancel])
    }

    @Test func aLongTranscriptShowsItsNewestWordsCutToTheWidth() throws {
        var view = try status()
        let said = (0..<2_000).map { "utterance \($0)" }
        for text in said { _ = view.apply(.final(text)) }
        _ = view.apply(.partial("and then"))
        let full = (said + ["and then"]).joined(separator: " ")
        let line = view.render(width: 40, color: false)[1]
        #expect(line == "… …" + full.suffix(37))
        #expect(line.count == 40)
    }

    @Test func theAreaShowsTimeLevelSegmentsTranscriptHintsAndHQ() throws {
        var view = try status()
        #expect(view.apply(.level(elapsed: 75.4, dBFS: -24)).isEmpty)
        _ = view.apply(.final("please buy milk"))
        _ = view.apply(.partial("and eggs"))
        _ = view.apply(.segment(index: 1, seconds: 60))
        _ = view.apply(.hq(messageId: Self.m, index: 1, state: .done))
        _ = view.apply(.hq(messageId: Self.m, index: 2, state: .retrying(attempt: 1)))
        let lines = view.render(width: 120, color: false)
        #expect(lines[0] == "● 01:15  [######----]  segments 1  HQ 1✓ 2↻1")
        #expect(lines[1] == "… please buy milk and eggs")
        #expect(lines[2].hasSuffix("Enter send · Esc cancel"))
        #expect(lines.count == 3)
    }

    @Test func permanentLinesAreReturnedAndAMessageEndResetsTheArea() throws {
        var view = try status()
        _ = view.apply(.final("hello"))
        _ = view.apply(.segment(index: 1, seconds: 3))
        #expect(view.apply(.keyword(action: .send, phrase: "x", at: 3.2)) == ["[00:03] send (\"x\")"])
        #expect(view.apply(.committed(messageId: Self.m)).isEmpty)
        #expect(view.heard.isEmpty && view.segments == 0)
        #expect(
            view.apply(.queued(messageId: Self.m, message: "<speech>hello</speech>", text: "hello")) == [
                "sending: hello"
            ])
        #expect(view.apply(.delivered(messageId: Self.m)) == ["delivered \(Self.m)"])
        #expect(
            !view.render(width: 80, color: false).contains("delivered \(Self.m)"),
            "printed once, above the area, not again in it")
        #expect(
            view.apply(.keyword(action: .sendClose, phrase: "x", at: 4)) == ["[00:04] send, end of turn (\"x\")"],
            "no code names on screen")
    }

    /// After a send, the area counts the wait for HQ and offers Tab; the message's final text ends both.
    @Test func anHQWaitIsTimedAndOffersTheLiveTextNow() throws {
        var view = try status()
        let sent = Date(timeIntervalSince1970: 1_000)
        _ = view.apply(.committed(messageId: Self.m), at: sent)
        _ = view.apply(.hq(messageId: Self.m, index: 1, state: .uploading), at: sent)
        #expect(view.isAwaitingHQ)
        let waiting = view.render(width: 120, color: false, now: sent.addingTimeInterval(3.25))
        #expect(waiting[0].hasSuffix("HQ 1↑  HQ wait 3.2 s"), "\(waiting[0])")
        #expect(waiting[2].hasSuffix("Enter send · Esc cancel · Tab live text now"))
        let narrow = view.render(width: 50, color: false, now: sent.addingTimeInterval(12))
        #expect(narrow.allSatisfy { $0.count <= 50 }, "\(narrow)")
        #expect(narrow.joined(separator: " ").contains("Tab live text now"))
        _ = view.apply(.queued(messageId: Self.m, message: "<speech>hi</speech>", text: "hi"))
        #expect(!view.isAwaitingHQ)
        let after = view.render(width: 120, color: false, now: sent.addingTimeInterval(4))
        #expect(!after[0].contains("HQ wait") && !after[2].contains("Tab"))
        #expect(DictationStatus.liveTextNowAcknowledgement(sent: false) == "Tab: no message is waiting for HQ")
    }

    /// After the microphone closes the dot is hollow: nothing more is recorded while the last message is finished.
    @Test func aClosedMicrophoneIsShownAsSuch() throws {
        var view = try status()
        #expect(view.render(width: 80, color: false)[0].hasPrefix("● "))
        #expect(view.apply(.listeningEnded) == ["microphone closed: finishing what was said"])
        #expect(view.render(width: 80, color: false)[0].hasPrefix("○ "))
        #expect(view.render(width: 80, color: true)[0].hasPrefix("\u{1B}[90m○\u{1B}[0m "))
    }

    @Test func keysAreAcknowledgedAtOnceAndTheBoxIsShown() throws {
        var view = try status()
        view.box = "bee-box"
        #expect(DictationStatus.acknowledgement(of: .enter) == ["Enter: sending…"])
        #expect(DictationStatus.acknowledgement(of: .escape) == ["Esc: cancelling…"])
        #expect(view.render(width: 80, color: false)[0].hasPrefix("● 00:00 → bee-box  "))
    }

    /// At 50 columns every hint is still there, on two lines, and no line is longer than the terminal.
    @Test func atFiftyColumnsTheHintsWrapInsteadOfBeingCut() throws {
        var view = try status()
        view.box = "bee-box"
        let wide = view.render(width: 120, color: false)
        let narrow = view.render(width: 50, color: false)
        #expect(wide.count == 3 && narrow.count == 4, "\(narrow)")
        #expect(narrow.allSatisfy { $0.count <= 50 }, "\(narrow)")
        #expect(narrow[2...].joined(separator: " · ") == wide[2])
        #expect(!narrow[2...].joined().contains("…"), "nothing cut")
    }

    @Test func longLinesAreCutToTheWidthAndTheTranscriptKeepsItsNewestWords() throws {
        var view = try status()
        _ = view.apply(.final(String(repeating: "word ", count: 40) + "newest"))
        let lines = view.render(width: 40, color: true)
        #expect(lines[1].hasSuffix("newest"))
        #expect(lines[1].count <= 40)
        #expect(lines[2].count <= 40)
        #expect(lines[0].contains("\u{1B}[31m●\u{1B}[0m"))
    }

    @Test(arguments: [
        (-120.0, "[----------]"), (-60.0, "[----------]"), (-30.0, "[#####-----]"), (0.0, "[##########]"),
        (6.0, "[##########]"),
    ])
    func theMeterSpansSixtyDecibels(_ level: Double, _ drawn: String) {
        #expect(DictationStatus.meter(level) == drawn)
    }

    @Test func theSameUnreachableBoxIsToldOnceThenInAFewWords() throws {
        var view = try status()
        let down = BoxFailure.uncertain(operation: "transcribe audio", reason: "connection refused")
        #expect(view.words(for: down) == down.description)
        #expect(
            view.words(for: .uncertain(operation: "send message", reason: "connection refused"))
                == "the box is still unreachable")
        let other = BoxFailure.uncertain(operation: "send message", reason: "timed out")
        #expect(view.words(for: other) == other.description, "a new cause is told whole")
        let refused = BoxFailure.unauthorized(operation: "send message")
        #expect(view.words(for: refused) == refused.description)
    }
}
