import BoxSim
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceTestSupport
import Foundation
import Testing

/// The event WebSocket (contract §7.1): libwebsockets client against boxsim's civetweb server on loopback.
@Suite struct EventStreamTests {
    private func pairedToken(_ box: SimulatedBox) throws -> String {
        let token = try BoxClient(baseURL: box.baseURL, token: nil).redeem(
            pairingToken: box.mintTicket(), deviceLabel: "events")
        Secrets.register(token)
        return token
    }

    private func stream(
        _ box: SimulatedBox, token: String, lastEventId: String? = nil, answersPings: Bool = true,
        backoff: [Double] = [0, 0.2, 0.4]
    ) -> (EventStream, UpdateLog) {
        let log = UpdateLog()
        let stream = EventStream(
            baseURL: box.baseURL, token: token, backoff: backoff, lastEventId: lastEventId,
            answersPings: answersPings
        ) { log.add($0) }
        stream.start()
        return (stream, log)
    }

    /// The box ends the subscription with an error frame (tRPC): the stream does not stay connected and deaf, it
    /// reconnects, subscribes again, and the next request reaches it.
    @Test func anErrorFrameForTheSubscriptionMakesTheStreamSubscribeAgain() throws {
        let box = try SimulatedBox()
        let token = try pairedToken(box)
        let (events, log) = stream(box, token: token)
        defer { events.stop() }
        #expect(log.wait(for: { $0 == .subscribed }, timeout: 5))
        let failed = try HTTPTransfer.perform(
            HTTPRequest(
                method: .post, url: "http://127.0.0.1:\(box.server.port)/boxsim/fail-subscriptions",
                body: .bytes(Data(), contentType: "application/json"), timeout: 5))
        #expect(failed.status == 200)
        #expect(
            log.wait(
                for: {
                    if case .disconnected(let reason, _) = $0 {
                        return reason.contains("the box ended the subscription")
                    } else {
                        return false
                    }
                }, timeout: 5))
        #expect(log.waitUntil(timeout: 5) { $0.filter { $0 == .subscribed }.count >= 2 }, "subscribed again")
        _ = RetranscribeAgent(port: box.server.port, messageId: "AFTER-ERROR", timeoutMs: 3_000)
        #expect(
            log.wait(
                for: {
                    if case .lastAudioRequest(let r) = $0 { return r.messageId == "AFTER-ERROR" } else { return false }
                }, timeout: 5))
    }

    @Test func aLastAudioRequestArrivesAndItsAnswerReachesTheAgent() throws {
        let box = try SimulatedBox()
        let token = try pairedToken(box)
        let (events, log) = stream(box, token: token)
        defer { events.stop() }
        #expect(log.wait(for: { $0 == .subscribed }, timeout: 5))

        let message = MessageID.new()
        let agent = RetranscribeAgent(port: box.server.port, messageId: message.rawValue, timeoutMs: 5_000)
        #expect(
            log.wait(
                for: {
                    if case .lastAudioRequest(let r) = $0 {
                        return r.messageId == message.rawValue
                    } else {
                        return false
                    }
                }, timeout: 5))
        let request = try #require(log.lastAudioRequests.first)
        let wav = try box.wav(seconds: 0.5)
        let client = BoxClient(baseURL: box.baseURL, token: token)
        #expect(
            try client.answerLastAudio(
                requestId: request.requestId,
                .audio(
                    wavPath: wav, recordedAt: Date(), text: "hi", messageId: try #require(request.ownMessageId),
                    sessionId: nil))
                == .settled)
        #expect(agent.wait()?.status == 200)
    }

    @Test func pingsAreAnsweredAndTheConnectionStays() throws {
        let box = try SimulatedBox {
            $0.pingIntervalSeconds = 1; $0.pongGraceSeconds = 0.5
        }
        let token = try pairedToken(box)
        let (events, log) = stream(box, token: token)
        defer { events.stop() }
        #expect(log.wait(for: { $0 == .subscribed }, timeout: 5))
        Thread.sleep(forTimeInterval: 2.7)
        #expect(log.count { $0 == .answeredPing } >= 2)
        #expect(log.count { if case .disconnected = $0 { return true } else { return false } } == 0)
        #expect(box.server.eventConnections == 1)
    }

    @Test func aClientThatIgnoresPingIsDroppedAndReconnects() throws {
        let box = try SimulatedBox {
            $0.pingIntervalSeconds = 0.3; $0.pongGraceSeconds = 0.3
        }
        let token = try pairedToken(box)
        let (events, log) = stream(box, token: token, answersPings: false)
        defer { events.stop() }
        #expect(log.wait(for: { if case .disconnected = $0 { return true } else { return false } }, timeout: 5))
        // Reconnects at once (backoff 0) and subscribes again.
        #expect(log.waitUntil(timeout: 5) { $0.filter { $0 == .subscribed }.count >= 2 })
    }

    @Test func reconnectsAfterTheBoxRestarts() throws {
        let directory = TemporaryDirectory("events-restart")
        let configuration = BoxSimConfiguration(dataDirectory: directory.path)
        let first = try RestartableBox.start(configuration)
        let ticket = try #require(try PairingLink.parse(first.mintPairingLink()).pairingToken)
        let token = try BoxClient(baseURL: first.baseURL, token: nil).redeem(pairingToken: ticket, deviceLabel: "r")
        Secrets.register(token)
        let log = UpdateLog()
        let events = EventStream(baseURL: first.baseURL, token: token, backoff: [0, 0.2, 0.2]) { log.add($0) }
        events.start()
        defer { events.stop() }
        #expect(log.wait(for: { $0 == .subscribed }, timeout: 5))
        let port = first.port
        first.stop()
        #expect(log.wait(for: { if case .disconnected = $0 { return true } else { return false } }, timeout: 5))
        let second = try RestartableBox.restart(configuration, port: port)  // same data: the device is still paired
        defer { second.stopInTheBackground() }
        #expect(log.waitUntil(timeout: 10) { $0.filter { $0 == .subscribed }.count >= 2 })
    }

    @Test func a401OnTheUpgradeStopsForGood() throws {
        let box = try SimulatedBox()
        let (events, log) = stream(box, token: "revoked-device-token")
        defer { events.stop() }
        #expect(log.wait(for: { $0 == .unauthorized }, timeout: 5))
        Thread.sleep(forTimeInterval: 0.6)
        #expect(log.count { $0 == .unauthorized } == 1)
        #expect(log.count { $0 == .subscribed } == 0)
    }

    /// libwebsockets follows a redirect on the upgrade with every header, the bearer among them, unless told not to.
    @Test(arguments: [301, 302, 307, 308])
    func aRedirectOnTheUpgradeIsNotFollowedAndIsReportedWithItsLocation(status: Int) throws {
        let elsewhere = try GarbageServer()
        defer { elsewhere.stop() }
        let location = "http://127.0.0.1:\(elsewhere.port)/steal/api/trpc"
        let redirecting = try GarbageServer(
            reply: "HTTP/1.1 \(status) Moved\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        defer { redirecting.stop() }
        let log = UpdateLog()
        let events = EventStream(baseURL: redirecting.baseURL, token: "token-that-must-stay-home", backoff: [5]) {
            log.add($0)
        }
        events.start()
        defer { events.stop() }
        // Were the redirect followed, the other server would have its request before the attempt is reported ended.
        #expect(
            log.wait(
                for: {
                    if case .disconnected(let reason, _) = $0 { return reason.contains(location) } else { return false }
                }, timeout: 5))
        #expect(elsewhere.requests.isEmpty)
        #expect(redirecting.requests.first?.contains("Authorization: Bearer token-that-must-stay-home") == true)
    }

    /// A message that never ends grew the stream's buffer until memory ran out: it is cut off at its cap, the
    /// connection closed with the reason, and the stream reconnects as after any drop.
    @Test func aWebSocketMessageThatNeverEndsClosesTheConnectionAtItsCap() throws {
        let server = try HostileServer(serve: HostileServer.endlessWebSocketMessage)
        defer { server.stop() }
        let log = UpdateLog()
        let events = EventStream(baseURL: server.baseURL, token: "token", backoff: [5]) { log.add($0) }
        events.start()
        defer { events.stop() }
        #expect(
            log.wait(
                for: {
                    if case .disconnected(let reason, _) = $0 {
                        return reason.contains("ran over 1048576 bytes")
                    } else {
                        return false
                    }
                },
                timeout: 10))
    }

    @Test func trackedEventsArriveInOrderAndReplayAfterLastEventId() throws {
        let box = try SimulatedBox()
        let token = try pairedToken(box)
        for index in 1...5 { box.server.emitStoredEvent("chat-message", ["messageId": "M\(index)"]) }
        let (events, log) = stream(box, token: token, lastEventId: "2")
        defer { events.stop() }
        #expect(log.waitUntil(timeout: 5) { UpdateLog.trackedIds(in: $0).count >= 3 })
        #expect(log.trackedIds == ["3", "4", "5"])
        for index in 6...25 { box.server.emitStoredEvent("chat-message", ["messageId": "M\(index)"]) }
        #expect(log.waitUntil(timeout: 5) { UpdateLog.trackedIds(in: $0).count >= 23 })
        #expect(log.trackedIds == (3...25).map(String.init))
        #expect(events.lastEventId == "25")
    }

    @Test func transientEventsAreNotReplayed() throws {
        let box = try SimulatedBox()
        let token = try pairedToken(box)
        let early = RetranscribeAgent(port: box.server.port, messageId: "EARLY", timeoutMs: 150)
        _ = early.wait()
        let (events, log) = stream(box, token: token, lastEventId: "0")
        defer { events.stop() }
        #expect(log.wait(for: { $0 == .subscribed }, timeout: 5))
        Thread.sleep(forTimeInterval: 0.3)
        #expect(log.lastAudioRequests.isEmpty)
    }
}

/// What an EventStream reported, for waiting on.
final class UpdateLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var updates: [EventStream.Update] = []

    func add(_ update: EventStream.Update) {
        condition.withLock {
            updates.append(update)
            condition.broadcast()
        }
    }

    func wait(for match: (EventStream.Update) -> Bool, timeout: TimeInterval) -> Bool {
        waitUntil(timeout: timeout) { $0.contains(where: match) }
    }

    /// Waits until `done` holds for everything reported so far (evaluated under the log's lock: it must not call the
    /// log).
    func waitUntil(timeout: TimeInterval, _ done: ([EventStream.Update]) -> Bool) -> Bool {
        condition.withLock {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while !done(updates) {
                if !condition.wait(until: deadline) { return done(updates) }
            }
            return true
        }
    }

    func count(_ match: (EventStream.Update) -> Bool) -> Int { condition.withLock { updates.filter(match).count } }

    var lastAudioRequests: [LastAudioRequest] {
        condition.withLock {
            updates.compactMap { if case .lastAudioRequest(let request) = $0 { return request } else { return nil } }
        }
    }

    var trackedIds: [String] { condition.withLock { Self.trackedIds(in: updates) } }

    static func trackedIds(in updates: [EventStream.Update]) -> [String] {
        updates.compactMap { if case .event(_, _, let id?) = $0 { return id } else { return nil } }
    }
}
