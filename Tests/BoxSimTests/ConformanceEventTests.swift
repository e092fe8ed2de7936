import BoxSim
import BoxVoiceTestSupport
import Foundation
import Testing

/// The event WebSocket (§7.1) as the revised contract states it, checked frame by frame on a raw socket.
@Suite struct ConformanceEventTests {
    private func socket(_ box: ConformanceBox) throws -> RawWebSocket {
        try RawWebSocket(port: box.port, path: box.prefix + "/api/trpc", headers: [box.bearer])
    }

    @Test func theUpgradeAuthenticatesByBearer() throws {
        // §7.1: authenticate on the upgrade request with Authorization: Bearer; 401 on the upgrade → re-pair.
        let box = try ConformanceBox()
        #expect(try socket(box).upgraded)
        let refused = try RawWebSocket(
            port: box.port, path: box.prefix + "/api/trpc", headers: [("Authorization", "Bearer nope")])
        #expect(refused.handshake.hasPrefix("HTTP/1.1 401"), "\(refused.handshake)")
    }

    @Test func idsAreEchoedAsSentWithJsonrpc() throws {
        // §7.1: ids may be numbers or strings and are echoed as sent; a request's "jsonrpc":"2.0" is echoed.
        let box = try ConformanceBox()
        let ws = try socket(box)
        ws.send(#"{"id":"sub-a","jsonrpc":"2.0","method":"subscription","params":{"path":"events.subscribe"}}"#)
        let started = try #require(ws.nextJSON())
        #expect(started["id"] as? String == "sub-a" && started["jsonrpc"] as? String == "2.0", "\(started)")
        ws.send(#"{"id":7,"method":"subscription","params":{"path":"events.subscribe"}}"#)
        let second = try #require(ws.nextJSON())
        #expect(second["id"] as? Int == 7 && second["jsonrpc"] == nil, "\(second)")
        ws.send(#"{"id":"sub-a","jsonrpc":"2.0","method":"subscription.stop"}"#)
        let stopped = try #require(ws.nextJSON())
        #expect(
            (stopped["result"] as? [String: Any])?["type"] as? String == "stopped"
                && stopped["id"] as? String == "sub-a")
    }

    @Test func aStopForAnIdWithoutSubscriptionGetsNoAnswer() throws {
        let box = try ConformanceBox()
        let ws = try socket(box)
        ws.send(#"{"id":9,"method":"subscription.stop"}"#)
        #expect(ws.nextText(timeout: 1) == nil)
    }

    @Test func anUnknownPathIsNotFound() throws {
        // §7.1: unknown path → −32004 NOT_FOUND, data.path that path.
        let box = try ConformanceBox()
        let ws = try socket(box)
        ws.send(#"{"id":1,"method":"subscription","params":{"path":"events.nope"}}"#)
        let frame = try #require(ws.nextJSON())
        let error = try #require(frame["error"] as? [String: Any])
        let data = try #require(error["data"] as? [String: Any])
        #expect(frame["id"] as? Int == 1 && error["code"] as? Int == -32_004 && data["code"] as? String == "NOT_FOUND")
        #expect(
            data["path"] as? String == "events.nope" && data["httpStatus"] as? Int == 404 && error["message"] is String)
    }

    @Test func aDuplicateIdIsRefusedAndTheFirstStaysLive() throws {
        // §7.1: subscribe with a live id → −32600 "Duplicate id <n>" under that id (the earlier subscription stays
        // live).
        let box = try ConformanceBox { $0.defaultSession = "s1" }
        let ws = try box.subscribed(id: 1)
        ws.send(ConformanceBox.text(["id": 1, "method": "subscription", "params": ["path": "events.subscribe"]]))
        let frame = try #require(ws.nextJSON())
        let error = try #require(frame["error"] as? [String: Any])
        #expect(
            frame["id"] as? Int == 1 && error["code"] as? Int == -32_600
                && error["message"] as? String == "Duplicate id 1", "\(frame)")
        _ = try box.send("hi", id: "D", session: "s1")
        #expect(eventOf(ws.nextJSON())?.name == "chat-user-message", "the first subscription still delivers")
    }

    @Test func aFrameThatIsNotJSONIsAParseErrorWithNullId() throws {
        // §7.1: non-JSON frame → "id":null, −32700 PARSE_ERROR.
        let box = try ConformanceBox()
        let ws = try socket(box)
        ws.send("hello?")
        let frame = try #require(ws.nextJSON())
        #expect(frame["id"] is NSNull)
        let error = try #require(frame["error"] as? [String: Any])
        #expect(
            error["code"] as? Int == -32_700 && (error["data"] as? [String: Any])?["code"] as? String == "PARSE_ERROR")
    }

    @Test func aLastEventIdThatIsNotAStringIsAnErrorFrame() throws {
        // §7.1: lastEventId, a JSON string (anything else is an error frame).
        let box = try ConformanceBox()
        let ws = try socket(box)
        ws.send(#"{"id":1,"method":"subscription","params":{"path":"events.subscribe","lastEventId":3}}"#)
        let frame = try #require(ws.nextJSON())
        #expect(frame["error"] is [String: Any] && frame["id"] as? Int == 1, "\(frame)")
    }

    @Test func storedEventsReplayAfterTheGivenIdInOrderThenLive() throws {
        // §7.1: lastEventId replays the stored events after it, in order, then goes live; in params or params.input.
        let box = try ConformanceBox { $0.defaultSession = "s1" }
        let live = try box.subscribed()
        for index in 1...3 { _ = try box.send("m\(index)", id: "M\(index)", session: "s1") }
        let ids = try (0..<3).map { _ in try #require(eventOf(live.nextJSON())).storedId }
        let numbers = ids.compactMap { $0.flatMap(Int.init) }
        #expect(numbers.count == 3 && numbers == numbers.sorted() && Set(numbers).count == 3, "\(ids)")
        try #require(numbers.count == 3)
        let ws = try socket(box)
        ws.send(
            ConformanceBox.text([
                "id": 2, "method": "subscription",
                "params": ["path": "events.subscribe", "input": ["lastEventId": String(numbers[0])]],
            ]))
        #expect((try #require(ws.nextJSON())["result"] as? [String: Any])?["type"] as? String == "started")
        let replayed = try (0..<2).map { _ in try #require(eventOf(ws.nextJSON())).storedId }
        #expect(replayed == [String(numbers[1]), String(numbers[2])])
        _ = try box.send("live", id: "M4", session: "s1")
        #expect(eventOf(ws.nextJSON())?.data["message"] as? String == "live")
    }

    @Test(arguments: ["0", "", "abc"])
    func zeroEmptyOrNonNumericReplaysNothing(_ lastEventId: String) throws {
        let box = try ConformanceBox { $0.defaultSession = "s1" }
        _ = try box.send("stored", id: "Z", session: "s1")
        let ws = try box.subscribed(lastEventId: lastEventId)
        #expect(ws.nextText(timeout: 1) == nil)
    }

    @Test func storedIdsKeepIncreasingAcrossARestart() throws {
        // §7.1: stored ids (AUTOINCREMENT) keep increasing across restarts.
        let data = TemporaryDirectory("conformance-restart")
        var configuration = BoxSimConfiguration(dataDirectory: data.file("data"), defaultSession: "s1")
        let first = try RestartableBox.start(configuration)
        let before = first.emitStoredEvent("probe", ["n": 1])
        let port = first.port
        first.stop()
        configuration.defaultSession = nil
        let second = try RestartableBox.restart(configuration, port: port)
        defer { second.stop() }
        let after = second.emitStoredEvent("probe", ["n": 2])
        #expect(after > before, "\(before) then \(after)")
    }

    @Test func aLastAudioRequestIsTransientAndNeverReplayed() throws {
        // §7.1: the request event is transient: never stored, never replayed on reconnect.
        let box = try ConformanceBox()
        let ws = try box.subscribed()
        let port = box.port
        let asked = Thread {
            _ = try? RawHTTP.exchange(
                port: port, method: "POST", path: "/boxsim/retranscribe",
                headers: [("Content-Type", "application/json")],
                body: RawHTTP.json(["messageId": "T", "timeoutMs": 300]))
        }
        asked.start()
        let event = try #require(eventOf(ws.nextJSON()))
        #expect(event.name == "chat-last-audio-request" && event.storedId == nil)
        #expect(event.data["requestId"] is String && event.data["messageId"] as? String == "T")
        let again = try box.subscribed(lastEventId: "1")
        #expect(again.nextText(timeout: 1) == nil)
    }

    @Test func aSilentClientGetsTwoPingsThenIsCutWithoutACloseFrame() throws {
        // §7.1: after the idle time the server sends the raw text PING twice and, unless a frame arrives within the
        // grace, terminates the socket (TCP close, no close frame).
        let box = try ConformanceBox {
            $0.pingIntervalSeconds = 0.5; $0.pongGraceSeconds = 0.5
        }
        let ws = try box.subscribed()
        #expect(ws.next(timeout: 5) == .text("PING"))
        #expect(ws.next(timeout: 5) == .text("PING"))
        #expect(ws.next(timeout: 5) == .cut)
    }

    @Test func aPongKeepsTheConnectionAndAClientPingGetsPong() throws {
        // §7.1: answer every PING with PONG; any text frame re-arms the timer; a client's raw PING gets PONG.
        let box = try ConformanceBox {
            $0.pingIntervalSeconds = 0.5; $0.pongGraceSeconds = 0.5
        }
        let ws = try box.subscribed()
        for _ in 0..<3 {
            #expect(ws.next(timeout: 5) == .text("PING"))
            #expect(ws.next(timeout: 5) == .text("PING"))
            ws.send("PONG")
        }
        ws.send("PING")
        #expect(ws.next(timeout: 5) == .text("PONG"))
    }

    @Test func controlPingsDoNotReArmTheTimer() throws {
        // §7.1: RFC 6455 pings get pongs but do not re-arm the timer.
        let box = try ConformanceBox {
            $0.pingIntervalSeconds = 0.5; $0.pongGraceSeconds = 0.5
        }
        let ws = try box.subscribed()
        var sawCut = false
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, !sawCut {
            ws.sendControlPing()
            if case .cut = ws.next(timeout: 0.2) { sawCut = true }
        }
        #expect(sawCut)
    }

    @Test func aFailingSubscriptionGetsAnErrorFrameThenStopped() throws {
        // §7.1: a subscription failing inside gets an error frame for its id, then `stopped`.
        let box = try ConformanceBox()
        let ws = try box.subscribed(id: "s")
        _ = try RawHTTP.exchange(port: box.port, method: "POST", path: "/boxsim/fail-subscriptions")
        let error = try #require(ws.nextJSON())
        #expect(error["error"] is [String: Any] && error["id"] as? String == "s")
        let stopped = try #require(ws.nextJSON())
        #expect(
            (stopped["result"] as? [String: Any])?["type"] as? String == "stopped" && stopped["id"] as? String == "s")
    }
}
