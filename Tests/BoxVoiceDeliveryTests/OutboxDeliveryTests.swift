import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceKeywords
import BoxVoiceDelivery
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Synchronization
import Testing

@Suite struct OutboxDeliveryTests {
    let data = TemporaryDirectory("delivery")

    private func outbox() throws -> MessageStore { try MessageStore(directory: data.file("store")) }

    /// A message committed with its live text as `body`, pending.
    private func commit(_ store: MessageStore, session: String?, body: (MessageID) -> String) throws -> MessageID {
        let recording = try store.beginRecording(box: "home", session: session)
        try store.commitSend(
            recording.id, MessageStore.Ending(heardText: "x", command: nil, liveText: "x"), liveBody: body(recording.id)
        )
        return recording.id
    }

    private func token(for server: BoxSimServer) throws -> String { try deviceToken(for: server, label: "delivery") }

    /// A draft nobody said a word in (its audio silence, and HQ hears nothing either) was sent as an empty message.
    @Test func aDraftWithNoWordsIsNotSentAndStaysADraft() throws {
        let box = try SimulatedBox {
            $0.hq = .fixed(""); $0.defaultSession = "s1"
        }
        let store = try outbox()
        // The run that recorded it is over (its lease let go when `recording` went out of scope).
        let id: MessageID = try {
            let recording = try store.beginRecording(box: "home", session: "s1")
            try WAV.write([Float](repeating: 0, count: 48_000), to: recording.folder + "/seg-0001.wav")
            try store.keepDraft(recording.id, MessageStore.Ending(heardText: "", command: nil, liveText: ""))
            return recording.id
        }()
        _ = try store.requestSend(id)
        let events = EventLog()
        let courier = BoxCourier(
            store: store, box: "home", client: BoxClient(baseURL: box.baseURL, token: try token(for: box.server)),
            detector: try KeywordDetector(contentsOf: Checkout.keywordVocabulary)
        ) { events.add($0) }
        _ = courier.run(everything: true)
        #expect(box.server.messages.isEmpty)
        #expect(try store.message(id)?.state == .draft)
        #expect(
            events.all.contains {
                if case .failed(id, let reason) = $0 { reason.contains("not a word was heard") } else { false }
            })
    }

    /// Two couriers (the daemon and a command) post one message at the same moment: the box deduplicates it, and
    /// the one that records second finds it delivered. That once came back as "the outbox could not be read".
    @Test func aMessageAnotherProcessDeliveredMeanwhileIsReportedDelivered() throws {
        let store = try outbox()
        let id = try commit(store, session: "s1") { "<speech stt=\"live\" message-id=\"\($0)\">x</speech>" }
        let box = try HostileServer { request, send in
            // The other courier's answer is recorded while this one's request is in flight.
            guard request.contains(id.rawValue) else { return }
            try? store.recordAccepted(id, as: .started(turn: "other"))
            let body = #"{"turnId":"t1"}"#
            _ = send(
                Array(
                    ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                        + "\(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
                        .utf8))
        }
        defer { box.stop() }
        let reports = OutboxDelivery(store: store, box: "home", client: BoxClient(baseURL: box.baseURL, token: "t"))
            .deliverDue(everything: true)
        #expect(reports == [.delivered(id, acceptance: .started(turnId: "t1"))])
        #expect(try store.message(id)?.state == .delivered)
    }

    @Test func aMessageCommittedWhileTheBoxIsDownIsDeliveredOnceWhenItComesBack() throws {
        let data = TemporaryDirectory("delivery-box")
        let configuration = BoxSimConfiguration(dataDirectory: data.path, hq: .describe, defaultSession: "s1")
        let first = try RestartableBox.start(configuration)
        let token = try token(for: first)
        let port = first.port
        let baseURL = first.baseURL
        first.stop()

        let box = try outbox()
        var body = ""
        let id = try commit(box, session: "s1") { id in
            body = SpeechFraming.frame("Buy milk", origin: .live, messageId: id, localTime: (9, 30))
            return body
        }
        let delivery = OutboxDelivery(store: box, box: "home", client: BoxClient(baseURL: baseURL, token: token))
        let start = Date()
        guard case .postponed(id, _, let retryAt)? = delivery.deliverDue(now: start).first else {
            Issue.record("expected a postponed delivery while the box is down")
            return
        }
        #expect(abs((retryAt?.timeIntervalSince(start) ?? 0) - 10) < 0.001)  // the first backoff step
        #expect(delivery.deliverDue(now: start.addingTimeInterval(5)).isEmpty)  // not due yet

        let second = try RestartableBox.restart(configuration, port: port)
        defer { second.stopInTheBackground() }
        let reports = delivery.deliverDue(now: start.addingTimeInterval(10))
        #expect(reports.count == 1)
        #expect(second.messages.map(\.messageId) == [id.rawValue])
        #expect(second.messages.first?.message == body)
        #expect(try box.message(id)?.state == .delivered)
        #expect(delivery.deliverDue(now: start.addingTimeInterval(1_000)).isEmpty)
    }

    @Test func aRetryAfterAnUnknownOutcomeIsDeduplicatedByTheBox() throws {
        // The POST reached the box but the process died before recording the outcome: the row is still pending.
        let sim = try SimulatedBox { $0.defaultSession = "s1" }
        let token = try token(for: sim.server)
        let client = BoxClient(baseURL: sim.baseURL, token: token)
        let box = try outbox()
        let id = try commit(box, session: "s1") { _ in "<speech stt=\"live\">hi</speech>" }
        // the lost attempt
        _ = try client.send(message: "<speech stt=\"live\">hi</speech>", messageId: id, session: "s1")
        let reports = OutboxDelivery(store: try outbox(), box: "home", client: client).deliverDue()
        #expect(reports == [.delivered(id, acceptance: .deduplicated)])
        #expect(sim.server.messages.count == 1)
        #expect(try box.message(id)?.acceptance == .deduplicated)
    }

    @Test func aRefusalFailsTheMessageAndKeepsItsText() throws {
        let sim = try SimulatedBox()
        let token = try token(for: sim.server)
        let box = try outbox()
        let id = try commit(box, session: "no-such-session") { _ in "keep me" }
        let reports = OutboxDelivery(store: box, box: "home", client: BoxClient(baseURL: sim.baseURL, token: token))
            .deliverDue()
        guard case .refused(id, .definitive(_, let status, _, _), .failed)? = reports.first else {
            Issue.record("expected a refusal, got \(reports)")
            return
        }
        #expect(status == 410)
        #expect(try box.message(id)?.state == .failed)
        #expect(try box.message(id)?.body == "keep me")
    }

    @Test func aRefusalAfterALostAnswerIsReportedAsPossiblyDelivered() throws {
        let sim = try SimulatedBox()
        let token = try token(for: sim.server)
        let box = try outbox()
        let id = try commit(box, session: "no-such-session") { _ in "maybe there" }
        try box.recordUncertain(id, reason: "timeout")
        let reports = OutboxDelivery(store: box, box: "home", client: BoxClient(baseURL: sim.baseURL, token: token))
            .deliverDue(everything: true)
        guard case .refused(id, _, .possiblyDelivered)? = reports.first else {
            Issue.record("expected possibly delivered, got \(reports)")
            return
        }
        #expect(reports.first?.summary.contains("may already have reached the box") == true)
    }

    /// Acceptance: the first attempt was accepted but its answer lost; the session then went away; the retry's 410
    /// (the box checks the target before the dedup claim) ends "possibly delivered", never "refused" — and the user can
    /// send it again as a new message, which goes where the box's default says, with a new id.
    @Test func aLost200Then410EndsPossiblyDeliveredAndResendsAsANewMessage() throws {
        let sim = try SimulatedBox {
            $0.defaultSession = "s1"; $0.extraSessions = ["s2"]
        }
        let token = try token(for: sim.server)
        let client = BoxClient(baseURL: sim.baseURL, token: token)
        let box = try outbox()
        let id = try commit(box, session: "s2") { id in
            SpeechFraming.frame("Buy milk", origin: .live, messageId: id, localTime: (9, 30))
        }
        let body = try #require(try box.message(id)?.body)
        // accepted; the answer never came back
        _ = try client.send(message: body, messageId: id, session: "s2")
        try box.recordUncertain(id, reason: "timed out")
        sim.server.setSession("s2", .deleting)
        let delivery = OutboxDelivery(store: box, box: "home", client: client)
        let reports = delivery.deliverDue(everything: true)
        guard case .refused(id, .definitive(_, 410, _, _), .possiblyDelivered)? = reports.first else {
            Issue.record("expected possibly delivered after a 410, got \(reports)")
            return
        }
        #expect(try box.message(id)?.state == .possiblyDelivered)
        #expect(try box.message(id)?.body == body, "its text is kept")

        let fresh = try box.resendAsNew(id)
        #expect(fresh != id)
        #expect(try box.message(id)?.state == .discarded)
        let again = delivery.deliverDue()
        guard case .delivered(fresh, _)? = again.first else {
            Issue.record("expected the new message delivered, got \(again)")
            return
        }
        let last = try #require(sim.server.messages.last)
        // The first send moved the default to s2; its deletion cleared it, so the box's default says "new".
        #expect(last.messageId == fresh.rawValue && last.session != "s2" && sim.server.defaultSession == last.session)
        #expect(last.message == body.replacingOccurrences(of: id.rawValue, with: fresh.rawValue))
    }

    @Test func onlyAPossiblyDeliveredOrFailedMessageCanBeResentAsNew() throws {
        let box = try outbox()
        let id = try commit(box, session: "s1") { _ in "pending" }
        #expect(throws: StoreError.self) { try box.resendAsNew(id) }
        #expect(try box.message(id)?.state == .pending)
    }

    @Test func a401FailsWithRePair() throws {
        let sim = try SimulatedBox()
        let box = try outbox()
        let id = try commit(box, session: nil) { _ in "x" }
        let reports = OutboxDelivery(
            store: box, box: "home", client: BoxClient(baseURL: sim.baseURL, token: "revoked-token")
        ).deliverDue()
        guard case .refused(id, .unauthorized, .failed)? = reports.first else {
            Issue.record("expected a failure")
            return
        }
        #expect(reports.first?.summary.contains("boxvoice pair") == true)
        #expect(try box.message(id)?.failure == .unauthorized)
    }
}

/// What a message does while its HQ text is not there: owed until the box is back (its recording kept, HQ redone
/// before its send), or given up when the user sends the live text now.
@Suite struct WaitingForHQTests {
    let data = TemporaryDirectory("owed-hq")

    private func token(for server: BoxSimServer) throws -> String { try deviceToken(for: server, label: "owed-hq") }

    /// A message committed with a second of recorded audio and its live text, awaiting HQ; the run is over.
    private func committed(_ store: MessageStore) throws -> MessageID {
        let recording = try store.beginRecording(box: "home", session: "s1")
        try WAV.write((0..<48_000).map { Float(sin(Double($0) / 20)) * 0.2 }, to: recording.folder + "/seg-0001.wav")
        try store.commitSend(
            recording.id,
            MessageStore.Ending(heardText: "buy milk", command: nil, liveText: "buy milk"),
            liveBody: nil)
        return recording.id
    }

    private func finisher(_ store: MessageStore, _ client: BoxClient, _ events: EventLog) throws -> MessageFinisher {
        MessageFinisher(
            store: store, box: "home", client: client,
            detector: try KeywordDetector(contentsOf: Checkout.keywordVocabulary), hqRetryDelays: []
        ) { events.add($0) }
    }

    @Test func aMessageWhoseHQFoundTheBoxDownGetsItsHQTextWhenTheBoxIsBack() throws {
        let configuration = BoxSimConfiguration(
            dataDirectory: data.file("box"), hq: .fixed("Buy oat milk."), defaultSession: "s1")
        let first = try RestartableBox.start(configuration)
        let client = BoxClient(baseURL: first.baseURL, token: try token(for: first))
        let port = first.port
        first.stop()

        let store = try MessageStore(directory: data.file("store"))
        let id = try committed(store)
        let events = EventLog()
        let finisher = try finisher(store, client, events)
        finisher.resumeAbandoned()
        let framed = try #require(try store.message(id))
        #expect(framed.state == .pending && framed.hqOwed)
        #expect(framed.text == "buy milk")
        #expect(
            events.all.contains {
                if case .fallback(_, .unreachable?, redoneLater: true) = $0 { true } else { false }
            })
        // Its recording stays as recorded while HQ is owed.
        #expect(try store.compressRetained(box: "home").compressed.isEmpty)

        let delivery = OutboxDelivery(store: store, box: "home", client: client, finisher: finisher)
        let start = Date()
        guard case .postponed(id, .unreachable, _)? = delivery.deliverDue(now: start).first else {
            Issue.record("expected a postponed delivery while the box is down")
            return
        }
        #expect(try store.message(id)?.hqOwed == true, "no request reached the box: HQ is still owed")

        let second = try RestartableBox.restart(configuration, port: port)
        defer { second.stopInTheBackground() }
        let reports = delivery.deliverDue(now: start.addingTimeInterval(10))
        guard reports.count == 1, case .delivered(id, _)? = reports.first else {
            Issue.record("expected one delivery once the box is back, got \(reports)")
            return
        }
        let sent = try #require(second.messages.first)
        #expect(second.transcriptions.count == 1)
        #expect(sent.messageId == id.rawValue)
        #expect(sent.message.contains("Buy oat milk."))
        #expect(!sent.message.contains("stt=\"live\""))
        let delivered = try #require(try store.message(id))
        #expect(delivered.state == .delivered && !delivered.hqOwed)
        #expect(delivered.text == "Buy oat milk.")
        #expect(events.all.contains { if case .hqRedone(id, _, "Buy oat milk.") = $0 { true } else { false } })
    }

    @Test func aMessageWhoseHQTheBoxRefusedGetsItsHQTextAfterRePairing() throws {
        let box = try SimulatedBox {
            $0.hq = .fixed("Buy oat milk."); $0.defaultSession = "s1"
        }
        let store = try MessageStore(directory: data.file("store"))
        let id = try committed(store)
        let events = EventLog()
        let revoked = BoxClient(baseURL: box.baseURL, token: "revoked-token")
        let before = try finisher(store, revoked, events)
        before.resumeAbandoned()
        #expect(try store.message(id)?.hqOwed == true)
        let refused = OutboxDelivery(store: store, box: "home", client: revoked, finisher: before).deliverDue()
        guard case .refused(id, .unauthorized, .failed)? = refused.first else {
            Issue.record("expected the send to be refused for the device, got \(refused)")
            return
        }
        #expect(box.server.messages.isEmpty)

        // Paired again: the refused message is pending again, and its HQ is redone with the new token.
        let client = BoxClient(baseURL: box.baseURL, token: try token(for: box.server))
        #expect(try store.requeueRefusedForAuthorization(box: "home") == [id])
        let after = try finisher(store, client, events)
        let reports = OutboxDelivery(store: store, box: "home", client: client, finisher: after).deliverDue()
        guard reports.count == 1, case .delivered(id, _)? = reports.first else {
            Issue.record("expected one delivery after re-pairing, got \(reports)")
            return
        }
        #expect(box.server.messages.map(\.messageId) == [id.rawValue])
        #expect(box.server.messages.first?.message.contains("Buy oat milk.") == true)
        #expect(try store.message(id)?.text == "Buy oat milk.")
    }

    /// Tab while HQ is slow: the message is framed with its live text at once, without waiting for the upload.
    @Test func theUserCanSendTheLiveTextWithoutWaitingForHQ() throws {
        let box = try SimulatedBox {
            $0.hq = .slow(3); $0.defaultSession = "s1"
        }
        let store = try MessageStore(directory: data.file("store"))
        let id = try committed(store)
        let uploading = DispatchSemaphore(value: 0), framed = DispatchSemaphore(value: 0)
        let events = EventLog()
        let finisher = MessageFinisher(
            store: store, box: "home", client: BoxClient(baseURL: box.baseURL, token: try token(for: box.server)),
            detector: try KeywordDetector(contentsOf: Checkout.keywordVocabulary), hqRetryDelays: []
        ) { event in
            events.add(event)
            if case .hq(_, _, .uploading) = event { uploading.signal() }
            if case .queued = event { framed.signal() }
        }
        #expect(!finisher.sendLiveTextNow(), "nothing is waited for yet")
        finisher.resumeAbandoned {}
        try #require(uploading.wait(timeout: .now() + 10) == .success)
        let pressed = Date()
        #expect(finisher.sendLiveTextNow())
        try #require(framed.wait(timeout: .now() + 10) == .success)
        #expect(Date().timeIntervalSince(pressed) < 1.5, "framed at once, not after the 3 s HQ")
        let message = try #require(try store.message(id))
        #expect(message.state == .pending && message.text == "buy milk" && !message.hqOwed)
        #expect(
            events.all.contains {
                if case .fallback(MessageFinisher.notWaitedFor, nil, false) = $0 { true } else { false }
            })
        finisher.waitUntilIdle()
    }

    /// HQ that fails on a box that answers (its HQ broken) is not owed: the message goes out with its live text at
    /// once, as before.
    @Test func aMessageWhoseHQFailedOnAReachableBoxGoesOutWithItsLiveText() throws {
        let box = try SimulatedBox {
            $0.hq = .fail(code: "missing_api_key"); $0.defaultSession = "s1"
        }
        let store = try MessageStore(directory: data.file("store"))
        let id = try committed(store)
        let client = BoxClient(baseURL: box.baseURL, token: try token(for: box.server))
        let finisher = try finisher(store, client, EventLog())
        finisher.resumeAbandoned()
        #expect(try store.message(id)?.hqOwed == false)
        let reports = OutboxDelivery(store: store, box: "home", client: client, finisher: finisher).deliverDue()
        guard case .delivered(id, _)? = reports.first else {
            Issue.record("expected a delivery, got \(reports)")
            return
        }
        #expect(box.server.messages.first?.message.contains("buy milk") == true)
    }
}

/// A device token from `server`, redeemed as a box's own pairing link would be, and registered for the leak scan.
private func deviceToken(for server: BoxSimServer, label: String) throws -> String {
    let ticket = try #require(try PairingLink.parse(server.mintPairingLink()).pairingToken)
    let token = try BoxClient(baseURL: server.baseURL, token: nil).redeem(pairingToken: ticket, deviceLabel: label)
    Secrets.register(token)
    return token
}

/// Events a courier or finisher reported, from any thread.
final class EventLog: Sendable {
    private let events = Mutex<[DictationEvent]>([])
    func add(_ event: DictationEvent) { events.withLock { $0.append(event) } }
    var all: [DictationEvent] { events.withLock { $0 } }
}
