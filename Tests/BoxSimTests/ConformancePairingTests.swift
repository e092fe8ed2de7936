import BoxVoiceTestSupport
import Foundation
import Testing

/// Pairing (§6) as the revised contract states it, checked over the wire.
@Suite struct ConformancePairingTests {
    private func redeem(_ box: ConformanceBox, _ body: [String: Any]) throws -> RawHTTP.Response {
        try box.post("/api/pairing/redeem", json: body, headers: [("Content-Type", "application/json")])
    }

    @Test func aRedeemAnswersWithAFortyThreeCharacterToken() throws {
        // §6: 200 {"boxSlug","label","deviceId","deviceLabel","token"}; tokens are 32 random bytes, base64url (43
        // chars).
        let box = try ConformanceBox()
        let answer = try redeem(box, ["pairingToken": box.box.mintTicket(), "deviceLabel": "laptop"])
        let json = try #require(answer.json)
        #expect(Set(json.keys) == ["boxSlug", "label", "deviceId", "deviceLabel", "token"])
        let token = try #require(json["token"] as? String)
        #expect(token.count == 43 && token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(box.token.count == 43)
    }

    @Test func aPairingLinksTicketIsFortyThreeCharacters() throws {
        let box = try ConformanceBox()
        #expect(box.box.mintTicket().count == 43)
    }

    @Test func aTicketIsSingleUse() throws {
        // §6: 401 {"error":"Pairing code is invalid or expired."}; tickets are single-use.
        let box = try ConformanceBox()
        let ticket = box.box.mintTicket()
        #expect(try redeem(box, ["pairingToken": ticket]).status == 200)
        let again = try redeem(box, ["pairingToken": ticket])
        #expect(again.status == 401 && again.json?["error"] as? String == "Pairing code is invalid or expired.")
    }

    @Test(arguments: [#"{"deviceLabel":""}"#, #"{"deviceLabel":3}"#, #"{"deviceLabel":null}"#])
    func aBadDeviceLabelIs400AndLeavesTheTicketUnspent(_ json: String) throws {
        let label = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        // §6: deviceLabel, if present, a non-empty string ("" or a non-string → 400, ticket unspent).
        let box = try ConformanceBox()
        let ticket = box.box.mintTicket()
        let refused = try redeem(box, label.merging(["pairingToken": ticket]) { $1 })
        #expect(refused.status == 400 && refused.json?["error"] is String, "\(refused)")
        #expect(
            try redeem(box, ["pairingToken": ticket, "deviceLabel": "ok"]).status == 200, "the ticket was not spent")
    }

    @Test(arguments: [(nil, "iOS companion"), ("   ", "iOS companion"), ("  desk  ", "desk")] as [(String?, String)])
    func theLabelIsTrimmedAndDefaults(_ label: String?, _ shown: String) throws {
        // §6: the box trims it; missing or blank → "iOS companion", which the answer's deviceLabel then shows.
        let box = try ConformanceBox()
        var body: [String: Any] = ["pairingToken": box.box.mintTicket()]
        if let label { body["deviceLabel"] = label }
        #expect(try redeem(box, body).json?["deviceLabel"] as? String == shown)
    }

    @Test func redeemNeedsJSON() throws {
        // §2 (every JSON route parses by Content-Type): a body without one → 415.
        let box = try ConformanceBox()
        let answer = try box.post(
            "/api/pairing/redeem", body: RawHTTP.json(["pairingToken": box.box.mintTicket()]), headers: [])
        #expect(answer.status == 415, "\(answer)")
    }

    @Test func aPairingSessionSetsTheMobileCookieWhichAuthenticates() throws {
        // §6: POST /api/pairing/session (bearer) → 204 + Set-Cookie: bbx_mobile=…; Path=/<slug>; HttpOnly;
        // SameSite=Lax;
        // every bearer-authenticated answer sets the same cookie, which then authenticates like the bearer.
        let box = try ConformanceBox()
        let answer = try RawHTTP.exchange(
            port: box.port, method: "POST", path: box.prefix + "/api/pairing/session", headers: [box.bearer])
        #expect(answer.status == 204)
        let cookie = try #require(answer.headers["set-cookie"])
        #expect(
            cookie.hasPrefix("bbx_mobile=") && cookie.hasSuffix("; Path=/main/test1; HttpOnly; SameSite=Lax"),
            "\(cookie)")
        #expect(
            try box.get("/api/chat/default").headers["set-cookie"] == cookie, "every bearer answer sets the same cookie"
        )
        let value = String(cookie.split(separator: ";")[0])
        #expect(try box.get("/api/chat/default", headers: [("Cookie", value)]).status == 200)
        #expect(try box.get("/api/chat/default", headers: [("Cookie", "bbx_mobile=forged")]).status == 401)
    }

    @Test func anUnknownTokenIs401NotAuthenticated() throws {
        // §2/§6: 401 {"error":"Not authenticated"} means re-pair.
        let box = try ConformanceBox()
        let answer = try box.get(
            "/api/chat/default", headers: [("Authorization", "Bearer " + String(repeating: "a", count: 43))])
        #expect(answer.status == 401 && answer.json?["error"] as? String == "Not authenticated")
    }
}
