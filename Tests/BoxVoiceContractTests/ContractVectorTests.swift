import BoxVoiceContract
import BoxVoiceTestSupport
import Foundation
import Testing

/// The box's golden vectors for pairing links, redeem answers and last-audio requests, through the real decoders.
@Suite struct ContractVectorTests {
    static func vectors(_ folder: String) -> [String] {
        let directory = Checkout.vectors + "/" + folder
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted().map { directory + "/" + $0 }
    }

    static func load(_ path: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    @Test func everyFolderHasVectors() {
        #expect(Self.vectors("pairing-url").count == 6)
        #expect(Self.vectors("redeem").count == 1)
        #expect(Self.vectors("last-audio-request").count == 4)
    }

    @Test(arguments: vectors("pairing-url"))
    func pairingLink(_ path: String) throws {
        let vector = try Self.load(path)
        let input = try #require(vector["input"] as? String)
        let expected = try #require(vector["expected"] as? [String: Any])
        let debugOnly = vector["debugOnly"] as? Bool ?? false
        let parsed = try? PairingLink.parse(input, allowDirectToken: debugOnly)
        #expect((parsed != nil) == (expected["accepted"] as? Bool), "\(path)")
        guard let parsed else { return }
        var actual: [String: String] = ["baseURL": parsed.baseURL, "label": parsed.label]
        actual["pairingToken"] = parsed.pairingToken
        actual["session"] = parsed.session
        actual["authToken"] = parsed.authToken
        var wanted = expected
        wanted.removeValue(forKey: "accepted")
        #expect(actual == wanted.mapValues { "\($0)" }, "\(path)")
    }

    @Test func directTokenIsIgnoredWithoutTheSwitch() throws {
        let vector = try Self.load(Checkout.vectors + "/pairing-url/authtoken-debug-only.json")
        let parsed = try PairingLink.parse(try #require(vector["input"] as? String))
        #expect(parsed.authToken == nil)
        #expect(parsed.baseURL == "http://127.0.0.1:3210/main/test1")
    }

    @Test(arguments: vectors("redeem"))
    func redeemAnswer(_ path: String) throws {
        let vector = try Self.load(path)
        let input = try JSONSerialization.data(withJSONObject: try #require(vector["input"]))
        let expected = try #require(vector["expected"] as? [String: String])
        #expect(try Wire.redeemToken(input) == expected["token"])
    }

    @Test(arguments: vectors("last-audio-request"))
    func lastAudioRequest(_ path: String) throws {
        let vector = try Self.load(path)
        let input = try JSONSerialization.data(withJSONObject: try #require(vector["input"] as? [String: Any]))
        let decoded = try? LastAudioRequest.decodeV1(input)
        if let expected = vector["expected"] as? [String: Any] {
            let request = try #require(decoded, "\(path) should be accepted")
            #expect(request.requestId == expected["requestId"] as? String)
            #expect(request.messageId == expected["messageId"] as? String)
            #expect(request.sessionId == expected["sessionId"] as? String)
        } else {
            #expect(decoded == nil, "\(path) should be rejected")
        }
    }
}

@Suite struct VendoredVectorTests {
    /// The vendored vectors are the box's, byte for byte: compared with the shared folder wherever it is beside the
    /// checkout (CI), and always complete.
    @Test func theVendoredVectorsAreCompleteAndMatchTheSharedCopy() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Checkout.vectors).filter {
            !$0.hasSuffix(".md")
        }.sorted()
        #expect(folders == ["last-audio-request", "pairing-url", "redeem", "speech-keywords"])
        let shared = Checkout.shared + "/vectors"
        guard FileManager.default.fileExists(atPath: shared) else { return }
        for folder in folders {
            let names = try FileManager.default.contentsOfDirectory(atPath: shared + "/" + folder).sorted()
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: Checkout.vectors + "/" + folder).sorted() == names,
                "\(folder)")
            for name in names {
                let upstream = FileManager.default.contents(atPath: shared + "/" + folder + "/" + name)
                #expect(
                    FileManager.default.contents(atPath: Checkout.vectors + "/" + folder + "/" + name) == upstream,
                    "\(folder)/\(name) drifted")
            }
        }
    }
}
