import BoxVoiceTestSupport
import Foundation
import Testing

/// The box's chat routes as the revised contract states them (§2 send, §5 sessions), checked over the wire.
@Suite struct ConformanceSendTests {
    @Test func jsonAnswersAreTypedUTF8() throws {
        // Contract, opening: JSON answers are `application/json; charset=utf-8`.
        let box = try ConformanceBox()
        #expect(try box.get("/api/chat/default").headers["content-type"] == "application/json; charset=utf-8")
        #expect(
            try box.get("/api/chat/default", headers: []).headers["content-type"] == "application/json; charset=utf-8")
    }

    @Test func theDefaultKeyIsAlwaysPresent() throws {
        // §5: 200 → {"sessionId": string | null}; the key is always present.
        let box = try ConformanceBox()
        let answer = try box.get("/api/chat/default")
        #expect(answer.status == 200)
        #expect(answer.json?.keys.contains("sessionId") == true && answer.json?["sessionId"] is NSNull, "\(answer)")
    }

    @Test func theBodyIsParsedByItsContentTypeBeforeAuthentication() throws {
        // §2: text/plain makes the body a string → 400; another type, or a body without one → 415; malformed or empty
        // JSON → 400; parsing precedes authentication.
        let box = try ConformanceBox()
        let json = RawHTTP.json(["message": "hi", "messageId": "A", "session": "new"])
        #expect(
            try box.post("/api/chat/send", body: json, headers: [box.bearer, ("Content-Type", "text/plain")]).status
                == 400)
        #expect(try box.post("/api/chat/send", body: json, headers: [box.bearer]).status == 415)
        #expect(
            try box.post("/api/chat/send", body: json, headers: [box.bearer, ("Content-Type", "application/xml")])
                .status == 415)
        #expect(
            try box.post(
                "/api/chat/send", body: Array("{nope".utf8),
                headers: [box.bearer, ("Content-Type", "application/json")]
            ).status == 400)
        #expect(
            try box.post("/api/chat/send", body: [], headers: [box.bearer, ("Content-Type", "application/json")]).status
                == 400)
        #expect(
            try box.post("/api/chat/send", body: Array("{nope".utf8), headers: [("Content-Type", "application/json")])
                .status == 400,
            "a malformed body is 400 even without a token")
        #expect(
            try box.post("/api/chat/send", body: json, headers: [("Content-Type", "application/json")]).status == 401)
        #expect(
            try box.post(
                "/api/chat/send", body: json,
                headers: [("Authorization", "Bearer nope"), ("Content-Type", "application/json")]
            )
            .json?["error"] as? String == "Not authenticated")
        #expect(
            try box.post(
                "/api/chat/send", body: json,
                headers: [box.bearer, ("Content-Type", "application/json; charset=utf-8")]
            ).status == 200)
    }

    @Test(arguments: [
        #"{"messageId":"A","session":"new"}"#,
        #"{"message":"","messageId":"A","session":"new"}"#,
        #"{"message":"hi","messageId":"A"}"#,
        #"{"message":"hi","messageId":"A","session":""}"#,
        #"{"message":"hi","messageId":7,"session":"new"}"#,
        #"{"message":"hi","messageId":"A","session":"new","channel":"desktop"}"#,
        #"{"message":"hi","messageId":"A","session":"new","exactSession":"true"}"#,
        #"{"message":5,"messageId":"A","session":"new"}"#,
        "[1]",
    ])
    func aBodyOutsideTheSchemaIs400AndClaimsNothing(_ json: String) throws {
        // §2: {"message","messageId","session"} (message, session non-empty); channel only web-desktop, web-mobile,
        // ios-native; exactSession a JSON boolean; a refused send claims nothing.
        let body = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let box = try ConformanceBox()
        let answer = try box.post("/api/chat/send", json: body)
        #expect(answer.status == 400, "\(answer)")
        #expect(answer.json?["error"] is String)
        #expect(
            try box.send("hi", id: "A", session: "new").json?["turnId"] is String,
            "the id was not claimed by the refused send")
    }

    @Test func everyAllowedChannelIsAccepted() throws {
        let box = try ConformanceBox()
        for (index, channel) in ["web-desktop", "web-mobile", "ios-native"].enumerated() {
            #expect(try box.send("hi", id: "C\(index)", session: "new", extra: ["channel": channel]).status == 200)
        }
    }

    @Test func anAbsentOrEmptyMessageIdIsAcceptedAndNeverDeduplicated() throws {
        // §2: messageId absent or "" is accepted and never deduplicated.
        let box = try ConformanceBox { $0.defaultSession = "s1" }
        for id in [nil, "", nil, ""] as [String?] {
            let answer = try box.send("hi", id: id, session: "s1")
            #expect(answer.status == 200 && answer.json?["deduplicated"] == nil, "\(answer)")
        }
    }

    @Test func aRepeatedMessageIdIsDeduplicatedAndEmitsNothing() throws {
        // §2: {"deduplicated": true} when the id was already accepted; only accepted sends emit chat-user-message.
        let box = try ConformanceBox { $0.defaultSession = "s1" }
        let socket = try box.subscribed()
        #expect(try box.send("hi", id: "M1", session: "s1").json?["turnId"] is String)
        #expect(eventOf(socket.nextJSON())?.name == "chat-user-message")
        let again = try box.send("hi", id: "M1", session: "s1")
        #expect(again.status == 200 && again.json?["deduplicated"] as? Bool == true, "\(again)")
        #expect(socket.nextJSON(timeout: 1) == nil, "a deduplicated send emits no event")
    }

    @Test func exactSessionRefusesToCreateOrFallBack() throws {
        // §2: exactSession true — with "new" → 400; a session that is gone → 404 {"error"} (no code); one being
        // deleted → 410.
        let box = try ConformanceBox {
            $0.defaultSession = "s1"; $0.extraSessions = ["s2"]
        }
        #expect(try box.send("hi", id: "E1", session: "new", extra: ["exactSession": true]).status == 400)
        let gone = try box.send("hi", id: "E2", session: "nowhere", extra: ["exactSession": true])
        #expect(gone.status == 404 && gone.json?["error"] is String && gone.json?["code"] == nil, "\(gone)")
        box.box.server.setSession("s2", .deleting)
        let deleting = try box.send("hi", id: "E3", session: "s2", extra: ["exactSession": true])
        #expect(deleting.status == 410, "\(deleting)")
        #expect(try box.send("hi", id: "E4", session: "s1", extra: ["exactSession": true]).status == 200)
    }

    @Test func anUnavailableSessionIs410WithItsCode() throws {
        // §2: 410 {"error","code":"CHAT_SESSION_UNAVAILABLE"}.
        let box = try ConformanceBox { $0.extraSessions = ["s2"] }
        box.box.server.setSession("s2", .deleting)
        let answer = try box.send("hi", id: "U1", session: "s2")
        #expect(answer.status == 410 && answer.json?["code"] as? String == "CHAT_SESSION_UNAVAILABLE", "\(answer)")
    }

    @Test func theTargetIsCheckedBeforeTheDedupClaim() throws {
        // §2: checks run body, target, then dedup — a retry of an accepted id whose session became unavailable is 410.
        let box = try ConformanceBox { $0.defaultSession = "s1" }
        #expect(try box.send("hi", id: "R1", session: "s1").status == 200)
        box.box.server.setSession("s1", .deleting)
        let retry = try box.send("hi", id: "R1", session: "s1")
        #expect(retry.status == 410, "\(retry)")
    }

    @Test func anAcceptedSendEmitsChatUserMessageWithoutAMessageId() throws {
        // §2: chat-user-message {"sessionId" (null for "new"), "message", "user", "timestamp"}; no messageId field.
        let box = try ConformanceBox { $0.defaultSession = "s1" }
        let socket = try box.subscribed()
        _ = try box.send("<speech message-id=\"X\">hi</speech>", id: "X", session: "s1")
        let event = try #require(eventOf(socket.nextJSON()))
        #expect(event.name == "chat-user-message")
        #expect(event.data["sessionId"] as? String == "s1")
        #expect((event.data["message"] as? String)?.contains("hi") == true)
        #expect(event.data.keys.contains("user") && event.data.keys.contains("timestamp"))
        #expect(event.data["messageId"] == nil)
        #expect(event.storedId != nil, "chat events are stored events")
    }

    @Test func aNewSendGetsOnlyATurnIdThenItsSessionIsAssignedAndBecomesTheDefault() throws {
        // §5: a "new" send's answer carries only turnId; chat-session-assigned {"sessionId"} follows and makes that
        // session the default. §2: its chat-user-message has sessionId null.
        let box = try ConformanceBox()
        let socket = try box.subscribed()
        let answer = try box.send("hi", id: "N1", session: "new")
        #expect(answer.json?.keys.sorted() == ["turnId"], "\(answer)")
        let message = try #require(eventOf(socket.nextJSON()))
        #expect(message.name == "chat-user-message" && message.data["sessionId"] is NSNull)
        let assigned = try #require(eventOf(socket.nextJSON()))
        #expect(assigned.name == "chat-session-assigned")
        let session = try #require(assigned.data["sessionId"] as? String)
        #expect(box.defaultSession as? String == session)
        #expect(try box.send("again", id: "N2", session: session).status == 200, "the assigned session takes messages")
    }

    @Test func aRunThatStartsMovesTheDefaultAndAQueuedSendDoesNot() throws {
        // §5: a send that starts a run in an existing session (not a queued one) makes it the default.
        let box = try ConformanceBox {
            $0.defaultSession = "s1"; $0.extraSessions = ["s2", "s3"]; $0.turnSeconds = 60
        }
        #expect(try box.send("one", id: "D1", session: "s2").json?["turnId"] is String)
        #expect(box.defaultSession as? String == "s2")
        #expect(try box.send("two", id: "D2", session: "s3").json?["turnId"] is String)
        #expect(box.defaultSession as? String == "s3")
        #expect(
            try box.send("three", id: "D3", session: "s2").json?["queued"] as? Bool == true,
            "s2 is still running its turn")
        #expect(box.defaultSession as? String == "s3", "a queued send does not move the default")
    }

    @Test func otherClientsMoveTheDefaultToo() throws {
        // §5: other clients move it too (boxsim: POST /boxsim/default stands in for them).
        let box = try ConformanceBox { $0.defaultSession = "s1" }
        _ = try RawHTTP.exchange(port: box.port, method: "POST", path: "/boxsim/default?session=elsewhere")
        #expect(box.defaultSession as? String == "elsewhere")
    }

    @Test func anUnknownRouteIsFastifys404() throws {
        let box = try ConformanceBox()
        let answer = try box.get("/api/chat/nothing-here")
        #expect(answer.status == 404 && answer.json?["statusCode"] as? Int == 404, "\(answer)")
    }
}
