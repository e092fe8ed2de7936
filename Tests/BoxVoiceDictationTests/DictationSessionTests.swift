import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

/// The dictation path end to end on real parts: a sample played through the capture path, pocketsphinx, boxsim over
/// loopback, SQLite on disk.
@Suite struct DictationSessionTests {
    private func dictate(_ clip: String, box: SimulatedBox) throws -> (DictationRun, MessageStore, TemporaryDirectory) {
        let run = try DictationRun(box: box)
        try run.run([clip])
        return (run, run.store, run.data)
    }

    @Test func aSpokenSendDeliversTheHQTextWithTheKeywordTagAndRetainsTheRecording() throws {
        let box = try SimulatedBox {
            $0.hq = .fixed("Please buy milk and eggs on the way home. Send message."); $0.defaultSession = "s1"
        }
        let (run, store, data) = try dictate("send-buy-milk.wav", box: box)
        defer { _ = data }  // the recordings live in it
        #expect(
            run.events.contains(
                .keyword(
                    action: .send, phrase: "send message",
                    at: run.events.compactMap {
                        if case .keyword(.send, "send message", let at) = $0 { return at } else { return nil }
                    }.first ?? -1)))
        let messages = box.server.messages
        #expect(messages.count == 1)
        let body = try #require(messages.first?.message)
        let id = try #require(messages.first?.messageId)
        #expect(body.hasPrefix("<speech stt-service=\"boxsim\" message-id=\"\(id)\" local-time=\""))
        #expect(
            body.hasSuffix(
                ">Please buy milk and eggs on the way home. <send-message phrase=\"Send message\" />.</speech>"))
        #expect(id == id.uppercased() && UUID(uuidString: id) != nil)
        #expect(try store.message(try #require(MessageID(exactly: id)))?.state == .delivered)
        let ownId = try #require(MessageID(exactly: id))
        let kept = try #require(try store.retainedRecording(box: "home", id: ownId))
        #expect(kept.text.hasPrefix("Please buy milk"))
        // Committed and sent: kept compressed, one Ogg Opus file for the whole recording.
        #expect(kept.segments.map { ($0 as NSString).lastPathComponent } == ["audio.ogg"])
        #expect(run.events.contains(.delivered(messageId: try #require(MessageID(exactly: id)))))
        // The command was announced only once the message was durable, and before any HQ or POST.
        let order = run.events.compactMap { event -> String? in
            switch event {
            case .keyword: "keyword"
            case .committed: "committed"
            case .queued: "queued"
            case .delivered: "delivered"
            default: nil
            }
        }
        #expect(order == ["keyword", "committed", "queued", "delivered"])
    }

    @Test func aPermanentHQFailureSendsTheLiveTextOnce() throws {
        let box = try SimulatedBox {
            $0.hq = .fail(code: "missing_api_key"); $0.defaultSession = "s1"
        }
        let (run, _, _) = try dictate("send-buy-milk.wav", box: box)
        let body = try #require(box.server.messages.first?.message)
        #expect(body.hasPrefix("<speech stt=\"live\" message-id=\""))
        #expect(body.contains("<send-message phrase=\"send message\" /></speech>"))
        #expect(run.events.filter { if case .fallback = $0 { return true } else { return false } }.count == 1)
    }

    @Test func aSpokenCancelDiscardsEverything() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let (run, store, data) = try dictate("cancel-forget-it.wav", box: box)
        #expect(run.events.contains(.discarded))
        #expect(box.server.messages.isEmpty)
        #expect(try store.messages().isEmpty)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: data.file("store/recordings/home"))) ?? []
        #expect(left.isEmpty)
    }
}
