import BoxSim
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

/// One conversation per run (contract §5): the first message goes where the run asked (or the default, or "new"),
/// later ones where the box put the first — learnt from its events, or from its default when the events were missed.
@Suite struct SessionRunTests {
    let data = TemporaryDirectory("runs")

    private func token(for server: BoxSimServer) throws -> String {
        let ticket = try #require(try PairingLink.parse(server.mintPairingLink()).pairingToken)
        let token = try BoxClient(baseURL: server.baseURL, token: nil).redeem(pairingToken: ticket, deviceLabel: "runs")
        Secrets.register(token)
        return token
    }

    /// A committed message of `run`, pending with a framed live body.
    private func commit(_ store: MessageStore, run: SessionRun.ID, text: String) throws -> MessageID {
        let recording = try store.beginRecording(box: "home", session: nil, run: run)
        let body = SpeechFraming.frame(text, origin: .live, messageId: recording.id, localTime: (9, 30))
        try store.commitSend(
            recording.id, MessageStore.Ending(heardText: text, command: nil, liveText: text), liveBody: body)
        return recording.id
    }

    @Test func aNamedSessionIsKnownAtOnceAndEveryMessageCarriesIt() throws {
        let store = try MessageStore(directory: data.file("store"))
        let run = try store.beginRun(box: "home", requested: "s7")
        let id = try commit(store, run: run, text: "one")
        #expect(try store.run(run)?.state == .known)
        #expect(try store.message(id)?.session == "s7")
    }

    @Test func aNewFirstMessageHoldsTheRestUntilTheSessionIsAssigned() throws {
        let store = try MessageStore(directory: data.file("store"))
        let run = try store.beginRun(box: "home", requested: "new")
        let first = try commit(store, run: run, text: "one")
        let second = try commit(store, run: run, text: "two")
        try store.recordRunAccepted(run, message: first, sentTo: "new")
        #expect(try store.run(run)?.state == .assigning)
        #expect(try store.run(run)?.firstMessage == first)
        #expect(try store.runIsHolding(run), "the second message waits")
        try store.assignRunSession(run, session: "opened")
        #expect(try !store.runIsHolding(run))
        #expect(try store.run(run)?.state == .known)
        #expect(try store.message(first)?.session == "opened", "the first message's recording knows where it went")
        #expect(try store.message(second)?.session == "opened")
        try store.recordRunAccepted(run, message: second, sentTo: "new")
        #expect(try store.run(run)?.session == "opened", "a late answer never undoes a known session")
    }

    @Test func theAssignmentIsLearntFromTheBoxsEventsInOrder() throws {
        let store = try MessageStore(directory: data.file("store"))
        let run = try store.beginRun(box: "home", requested: nil)
        let first = try commit(store, run: run, text: "one")
        let learnt = LockedList<String>()
        let assignments = SessionAssignments(store: store) { _, session in learnt.append(session) }
        // Another client's new conversation, then ours: only the assignment after our message counts.
        assignments.handle(.event(name: "chat-session-assigned", data: ["sessionId": "someone-elses"], trackedId: "4"))
        assignments.handle(
            .event(
                name: "chat-user-message",
                data: ["message": "<speech stt=\"live\" message-id=\"\(first.rawValue)\">one</speech>"],
                trackedId: "5"))
        assignments.handle(.event(name: "chat-session-assigned", data: ["sessionId": "ours"], trackedId: "6"))
        #expect(learnt.all == ["ours"])
        #expect(try store.run(run)?.session == "ours")
        #expect(try store.message(first)?.session == "ours")
    }

    @Test func aMessageWithASessionIdIsNotAnAnnouncementOfANewOne() throws {
        let store = try MessageStore(directory: data.file("store"))
        let run = try store.beginRun(box: "home", requested: nil)
        let first = try commit(store, run: run, text: "one")
        let assignments = SessionAssignments(store: store) { _, _ in }
        assignments.handle(
            .event(
                name: "chat-user-message",
                data: ["sessionId": "s1", "message": "<speech message-id=\"\(first.rawValue)\">one</speech>"],
                trackedId: "1"))
        assignments.handle(.event(name: "chat-session-assigned", data: ["sessionId": "other"], trackedId: "2"))
        #expect(try store.run(run)?.state == .open)
    }

    @Test func withTheEventsMissedTheRunFollowsTheDefaultAfterItsPatience() throws {
        let box = try SimulatedBox { $0.hq = .describe }
        let client = BoxClient(baseURL: box.baseURL, token: try token(for: box.server))
        let store = try MessageStore(directory: data.file("store"))
        let run = try store.beginRun(box: "home", requested: nil)
        let ids = try ["one", "two", "three"].map { try commit(store, run: run, text: $0) }
        let delivery = OutboxDelivery(store: store, box: "home", client: client, assignmentPatience: 20)
        let first = delivery.deliverDue()
        #expect(first.count == 3)
        guard case .delivered(ids[0], _)? = first.first else { Issue.record("\(first)"); return }
        #expect(first.dropFirst().allSatisfy { if case .held = $0 { true } else { false } }, "\(first)")
        #expect(box.server.messages.count == 1)
        let later = delivery.deliverDue(now: Date().addingTimeInterval(21))
        #expect(later.allSatisfy { if case .delivered = $0 { true } else { false } }, "\(later)")
        let sessions = Set(box.server.messages.map(\.session))
        #expect(box.server.messages.count == 3 && sessions.count == 1, "\(box.server.messages.map(\.session))")
        #expect(try ids.allSatisfy { try store.message($0)?.session == sessions.first })
    }

    /// The acceptance case: on a box with no default, three spoken sends of one dictation land in one conversation,
    /// and each retained recording knows it (its retranscription answer carries that session's id).
    @Test func threeSpokenSendsOnABoxWithoutDefaultLandInOneConversation() throws {
        let run = try DictationRun(box: SimulatedBox { $0.hq = .describe })
        try run.run(["send-buy-milk.wav", "send-kal-dinner.wav", "send-buy-milk.wav"]) {
            $0.session = nil
            $0.sessionFromDefault = true
        }
        let messages = run.delivered
        #expect(messages.count == 3, "\(run.events)")
        let sessions = Set(messages.map(\.session))
        #expect(sessions.count == 1, "\(messages.map(\.session))")
        let session = try #require(sessions.first)
        #expect(run.box.server.defaultSession == session)
        for message in messages {
            let ownId = try #require(MessageID(exactly: message.messageId))
            let kept = try #require(try run.store.retainedRecording(box: "home", id: ownId))
            #expect(kept.session == session)
        }
    }

    @Test func explicitlyNewOpensOneConversationNotOnePerMessage() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"
            })
        try run.run(["send-buy-milk.wav", "send-kal-dinner.wav"]) { $0.session = nil }
        let messages = run.delivered
        #expect(messages.count == 2)
        #expect(
            Set(messages.map(\.session)).count == 1 && messages.first?.session != "s1", "\(messages.map(\.session))")
    }
}

/// A list filled from any thread.
final class LockedList<T: Sendable>: @unchecked Sendable {
    // @unchecked: `items` is touched under `lock` only.
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var all: [T] { lock.withLock { items } }
}
