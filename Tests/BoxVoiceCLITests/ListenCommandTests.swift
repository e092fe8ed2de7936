import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct ListenCommandTests {
    /// The actions named in `listen`'s keyword lines (`] keyword: send ("Send message")`). The phrase's spelling is
    /// left out: Whisper writes "Send message", pocketsphinx (standing in when Whisper is late on a loaded machine)
    /// "send message".
    private func keywordLines(_ output: String) -> [String] {
        output.split(separator: "\n").filter { $0.contains("] keyword: ") }.map {
            String($0.drop { $0 != "]" }.prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces)
        }
    }

    @Test(arguments: ["send-buy-milk.wav", "cancel-forget-it.wav"])
    func anActionThroughARealALSAPCMEqualsTheOneFromInput(_ clip: String) throws {
        let fromFile = try Run.boxvoice("listen", "--input", Checkout.sample(clip))
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let dir = TemporaryDirectory("listen")
        let made = try FileCapturePCM.make(wav: Checkout.sample(clip), name: "mic", directory: dir.path)
        let fromDevice = try Run.boxvoice(
            "listen", "--alsa-config", made.configPath, "--device", "mic",
            "--max-seconds", String(format: "%.6f", Double(made.frames) / 48_000))
        #expect(fromDevice.status == 0, "\(fromDevice.stderr)")
        let fileActions = keywordLines(fromFile.stdout)
        #expect(!fileActions.isEmpty, "no action heard in \(clip): \(fromFile.stdout)")
        #expect(keywordLines(fromDevice.stdout) == fileActions)
    }

    @Test func keywordFreeSpeechFiresNothing() throws {
        let result = try Run.boxvoice("listen", "--input", Checkout.sample("none-garden.wav"))
        #expect(result.status == 0)
        #expect(result.stdout.contains("tomatoes"))
        #expect(keywordLines(result.stdout).isEmpty)
    }

    @Test func jsonEventsCarryTheActionAndItsTime() throws {
        let result = try Run.boxvoice("listen", "--json", "--input", Checkout.sample("micoff-stop-listening.wav"))
        let events = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(events.first?["event"] as? String == "listening")
        let index = try #require(events.firstIndex { $0["event"] as? String == "keyword" })
        let keyword = events[index]
        #expect(keyword["action"] as? String == "micOff")
        #expect((keyword["at"] as? Double ?? 0) > 2)
        // Why it acts: a command Whisper heard carries its evidence, at or above the act line.
        let final = try #require(events[..<index].last { $0["event"] as? String == "final" })
        if final["heardBy"] as? String == "whisper" {
            let score = try #require(keyword["score"] as? Double)
            let threshold = try #require(keyword["threshold"] as? Double)
            #expect(score >= threshold)
        } else {
            #expect(keyword["score"] == nil)
        }
    }

    @Test func aMissingInputIsAClearError() throws {
        let result = try Run.boxvoice("listen", "--input", "/nonexistent/clip.wav")
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent/clip.wav"))
    }
}
