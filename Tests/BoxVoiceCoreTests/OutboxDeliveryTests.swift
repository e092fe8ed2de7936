import BoxSim
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceCore
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct OutboxDeliveryTests {
    let store = TemporaryDirectory("delivery")

    private func outbox() throws -> Outbox { try Outbox(database: SQLiteDatabase(path: store.file("boxvoice.sqlite"))) }

    private func token(for server: BoxSimServer) throws -> String {
        let ticket = try #require(try PairingLink.parse(server.mintPairingLink()).pairingToken)
        let token = try BoxClient(baseURL: server.baseURL, token: nil).redeem(pairingToken: ticket, deviceLabel: "delivery")
        Secrets.register(token)
        return token
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
        let id = SpeechFraming.newMessageId()
        let body = SpeechFraming.frame("Buy milk", origin: .live, messageId: id, localTime: (9, 30))
        try box.add(messageId: id, box: "home", session: "s1", body: body)
        let delivery = OutboxDelivery(outbox: box, box: "home", client: BoxClient(baseURL: baseURL, token: token))
        let start = Date()
        guard case .postponed(id, _, let retryAt)? = try delivery.deliverDue(now: start).first else {
            Issue.record("expected a postponed delivery while the box is down")
            return
        }
        #expect(abs((retryAt?.timeIntervalSince(start) ?? 0) - 10) < 0.001)  // the first backoff step
        #expect(try delivery.deliverDue(now: start.addingTimeInterval(5)).isEmpty)  // not due yet

        let second = try RestartableBox.restart(configuration, port: port)
        defer { DispatchQueue.global().async { second.stop() } }
        let reports = try delivery.deliverDue(now: start.addingTimeInterval(10))
        #expect(reports.count == 1)
        #expect(second.messages.map(\.messageId) == [id])
        #expect(second.messages.first?.message == body)
        #expect(try box.message(id)?.state == .delivered)
        #expect(try delivery.deliverDue(now: start.addingTimeInterval(1_000)).isEmpty)
    }

    @Test func aRetryAfterAnUnknownOutcomeIsDeduplicatedByTheBox() throws {
        // The POST reached the box but the process died before recording the outcome: the row is still pending.
        let sim = try SimulatedBox { $0.defaultSession = "s1" }
        let token = try token(for: sim.server)
        let client = BoxClient(baseURL: sim.baseURL, token: token)
        let id = SpeechFraming.newMessageId()
        let box = try outbox()
        try box.add(messageId: id, box: "home", session: "s1", body: "<speech stt=\"live\">hi</speech>")
        _ = try client.send(message: "<speech stt=\"live\">hi</speech>", messageId: id, session: "s1")  // the lost attempt
        let reports = try OutboxDelivery(outbox: try outbox(), box: "home", client: client).deliverDue()
        #expect(reports == [.delivered(messageId: id, acceptance: .deduplicated)])
        #expect(sim.server.messages.count == 1)
        #expect(try box.message(id)?.outcome == "deduplicated")
    }

    @Test func aRefusalFailsTheMessageAndKeepsItsText() throws {
        let sim = try SimulatedBox()
        let token = try token(for: sim.server)
        let box = try outbox()
        try box.add(messageId: "GONE-1", box: "home", session: "no-such-session", body: "keep me")
        let reports = try OutboxDelivery(outbox: box, box: "home", client: BoxClient(baseURL: sim.baseURL, token: token)).deliverDue()
        guard case .failed("GONE-1", let reason)? = reports.first else {
            Issue.record("expected a failure")
            return
        }
        #expect(reason.contains("410"))
        #expect(try box.message("GONE-1")?.state == .failed)
        #expect(try box.message("GONE-1")?.body == "keep me")
    }

    @Test func a401FailsWithRePair() throws {
        let sim = try SimulatedBox()
        let box = try outbox()
        try box.add(messageId: "AUTH-1", box: "home", session: nil, body: "x")
        let reports = try OutboxDelivery(outbox: box, box: "home", client: BoxClient(baseURL: sim.baseURL, token: "revoked-token")).deliverDue()
        guard case .failed(_, let reason)? = reports.first else {
            Issue.record("expected a failure")
            return
        }
        #expect(reason.contains("boxvoice pair"))
    }
}
