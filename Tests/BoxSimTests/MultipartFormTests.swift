@testable import BoxSim
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct MultipartFormTests {
    private func body(_ parts: [(String, String?, String)], boundary: String = "XyZ") -> [UInt8] {
        var text = ""
        for (name, filename, content) in parts {
            text +=
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\""
                + (filename.map { "; filename=\"\($0)\"" } ?? "") + "\r\n"
            if filename != nil { text += "Content-Type: audio/wav\r\n" }
            text += "\r\n\(content)\r\n"
        }
        return Array((text + "--\(boundary)--\r\n").utf8)
    }

    @Test func partsComeBackInTheOrderSent() throws {
        let form = try MultipartForm(
            body: body([("session", nil, "s1"), ("file", "segment.wav", "RIFF...."), ("late", nil, "x")]),
            contentType: "multipart/form-data; boundary=XyZ")
        #expect(form.parts.map(\.name) == ["session", "file", "late"])
        #expect(form.parts[1].filename == "segment.wav")
        #expect(form.parts[1].contentType == "audio/wav")
        #expect(String(decoding: form.parts[0].body, as: UTF8.self) == "s1")
        #expect(String(decoding: form.parts[1].body, as: UTF8.self) == "RIFF....")
    }

    @Test func aQuotedBoundaryAndBinaryContentWork() throws {
        var bytes = Array("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\n".utf8)
        bytes += [0, 13, 10, 45, 45, 255, 0]  // CR LF -- inside the data, but not followed by the boundary
        bytes += Array("\r\n--b--\r\n".utf8)
        let form = try MultipartForm(body: bytes, contentType: "multipart/form-data; boundary=\"b\"")
        #expect(Array(form.parts[0].body) == [0, 13, 10, 45, 45, 255, 0])
    }

    @Test(arguments: [("text/plain", "not multipart"), ("multipart/form-data", "no boundary")])
    func wrongContentTypesAreRefused(_ type: String, _ reason: String) {
        #expect {
            _ = try MultipartForm(body: Array("x".utf8), contentType: type)
        } throws: { String(describing: $0).contains(reason) }
    }

    @Test func aTruncatedBodyIsRefused() {
        let truncated = Array(
            "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\nRIFF".utf8)
        #expect(throws: MultipartForm.Malformed.self) {
            try MultipartForm(body: truncated, contentType: "multipart/form-data; boundary=XyZ")
        }
    }
}

@Suite struct HQModeTests {
    @Test(arguments: [
        ("pocketsphinx", HQMode.pocketsphinx), ("describe", .describe), ("fixed:Hello: world", .fixed("Hello: world")),
        ("fail:missing_api_key", .fail(code: "missing_api_key")), ("flaky:2", .flaky(2)), ("slow:1.5", .slow(1.5)),
    ])
    func modesParse(_ text: String, _ mode: HQMode) throws {
        #expect(try HQMode.parse(text) == mode)
    }

    @Test(arguments: ["", "fixed", "flaky:-1", "slow:soon", "loud"])
    func badModesAreRefusedWithTheList(_ text: String) {
        #expect { _ = try HQMode.parse(text) } throws: { String(describing: $0).contains("fixed:TEXT") }
    }

    @Test func permanenceFollowsTheBox() {
        #expect(HQMode.isPermanent(code: "missing_api_key"))
        #expect(HQMode.isPermanent(code: "missing_openrouter_key"))
        #expect(HQMode.isPermanent(code: "http_400"))
        #expect(!HQMode.isPermanent(code: "http_429"))
        #expect(!HQMode.isPermanent(code: "http_503"))
        #expect(!HQMode.isPermanent(code: "network_error"))
    }
}

@Suite struct LastAudioPendingTests {
    private func answer(_ messageId: String?) -> LastAudioPending.Fulfillment {
        .init(
            audio: [1, 2], contentType: "audio/wav", recordedAt: nil, text: nil, messageId: messageId, sessionId: nil)
    }

    @Test func theFirstMatchingAudioWinsAndLaterAnswersAreUnknown() {
        let pending = LastAudioPending()
        let id = pending.create(messageId: "M", timeout: 5)
        #expect(pending.fulfill(id, answer("other")) == .ignored)
        #expect(pending.fulfill(id, answer(nil)) == .ignored)
        #expect(pending.fulfill(id, answer("M")) == .delivered)
        #expect(pending.fulfill(id, answer("M")) == .unknown)
        guard case .audio = pending.wait(id) else {
            Issue.record("expected audio")
            return
        }
        #expect(!pending.reportNone(id))
    }

    @Test func noneStartsAGraceWindowAsLongAsTheTimeout() {
        let pending = LastAudioPending()
        let id = pending.create(messageId: "M", timeout: 0.3)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(pending.reportNone(id))
        let started = Date()
        guard case .none = pending.wait(id) else {
            Issue.record("expected none")
            return
        }
        #expect(Date().timeIntervalSince(started) >= 0.25)  // 0.3 s from the none, not from the request
    }

    @Test func silenceIsATimeout() {
        let pending = LastAudioPending()
        let id = pending.create(messageId: "M", timeout: 0.1)
        guard case .timeout = pending.wait(id) else {
            Issue.record("expected timeout")
            return
        }
        #expect(pending.fulfill(id, answer("M")) == .unknown)
    }
}
