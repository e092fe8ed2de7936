import BoxSim
import BoxVoiceTestSupport
import Foundation
import Testing

/// `record`, `dictate` and the daemon recording through a real PipeWire server (private, with its session manager),
/// as on most desktops: a virtual microphone fed from a WAV, removed mid-dictation the way unplugging one is.
@Suite struct SoundServerTests {
    @Test func recordTakesAudioFromAPipeWireSource() throws {
        let server = try PipeWireSession()
        try server.addSource("desk")
        let home = TemporaryDirectory("pw-record-cli")
        let config = try server.alsaConfig(for: ["desk"], in: home)
        try server.play(Checkout.sample("long-meeting-notes.wav"), into: "desk")
        let result = try Run.process(
            Run.boxvoice,
            [
                "record", "--device", "desk", "--alsa-config", config, "--out", home.file("out"),
                "--max-seconds", "2",
            ], environment: Run.isolatedEnvironment(home))
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try WAV.samples(home.file("out/seg-0001.wav"))
        #expect(samples.count == 96_000)
        #expect(samples.map(abs).max() ?? 0 > 0.05, "speech reached the recording")
    }

    /// The source goes away while the user speaks: `dictate` notices within two seconds (no error comes from PipeWire),
    /// keeps what was said as a draft with its audio, and says so.
    @Test func aSourceRemovedMidDictationLeavesADraftWithItsAudio() throws {
        let server = try PipeWireSession()
        try server.addSource("desk")
        let box = try SimulatedBox {
            $0.hq = .fixed("The weather today is sunny."); $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("pw-dictate")
        let env = try Run.pairedEnvironment(home, with: box.server)
        box.server.devices.map(\.token).forEach(Secrets.register)
        let config = try server.alsaConfig(for: ["desk"], in: home)
        try server.play(Checkout.sample("long-meeting-notes.wav"), into: "desk")
        let dictation = try Spawned(
            Run.boxvoice, ["dictate", "--json", "--device", "desk", "--alsa-config", config], environment: env)
        #expect(dictation.waitFor("\"event\":\"final\""), "words were heard first: \(dictation.stderr)")
        let removed = Date()
        server.removeSource("desk")
        let status = dictation.wait(timeout: 20)
        let seconds = Date().timeIntervalSince(removed)
        #expect(status == 1, "\(dictation.stderr)")
        #expect(dictation.stderr.contains("stopped delivering audio"), "\(dictation.stderr)")
        #expect(seconds < 5, "the dictation ended \(seconds) s after the source went away")
        #expect(box.server.messages.isEmpty, "nothing was sent")
        let listed = try Run.process(Run.boxvoice, ["outbox", "list", "--json"], environment: env)
        let drafts = listed.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        .filter { $0["state"] as? String == "draft" }
        try #require(drafts.count == 1, "\(listed.stdout)")
        #expect(drafts[0]["audio"] as? Bool == true)
        let id = try #require(drafts[0]["messageId"] as? String)
        let folder = try #require(
            try FileManager.default.contentsOfDirectory(atPath: home.file("data/boxvoice/recordings")).first)
        let audio = try WAV.samples(home.file("data/boxvoice/recordings/\(folder)/\(id)/seg-0001.wav"))
        #expect(audio.count > 48_000, "the draft holds what was said: \(audio.count) frames")
    }

    /// The daemon's turn ends when its source goes away, keeping a draft; the source comes back, and the next turn
    /// records from it and delivers.
    @Test func theDaemonKeepsADraftWhenTheSourceGoesAndUsesItAgainWhenItReturns() throws {
        let server = try PipeWireSession()
        try server.addSource("desk")
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("pw-daemon")
        let env = try Run.pairedEnvironment(home, with: box.server)
        box.server.devices.map(\.token).forEach(Secrets.register)
        let config = try server.alsaConfig(for: ["desk"], in: home)
        let daemon = try Spawned(
            Run.boxvoice, ["daemon", "--alsa-config", config, "--device", "desk"], environment: env)
        #expect(daemon.waitFor("control socket"), "\(daemon.stderr)")
        let follow = try Spawned(Run.boxvoice, ["status", "--follow", "--json"], environment: env)
        #expect(follow.waitFor("\"state\":\"idle\""))

        try server.play(Checkout.sample("long-meeting-notes.wav"), into: "desk")
        #expect(try Run.process(Run.boxvoice, ["start"], environment: env).status == 0)
        #expect(follow.waitFor("\"event\":\"final\""), "\(daemon.stderr)")
        server.removeSource("desk")
        #expect(follow.waitFor("\"event\":\"draft\"", timeout: 10), "\(daemon.stderr)")
        #expect(daemon.waitFor("stopped delivering audio", timeout: 10), "\(daemon.stderr)")
        #expect(follow.waitFor("\"event\":\"idle\"", timeout: 10))
        #expect(box.server.messages.isEmpty)

        try server.addSource("desk")
        try server.play(Checkout.sample("send-buy-milk.wav"), into: "desk")
        #expect(try Run.process(Run.boxvoice, ["start"], environment: env).status == 0)
        #expect(follow.waitFor("\"event\":\"delivered\"", timeout: 30), "\(daemon.stderr)")
        #expect(box.server.messages.count == 1)
        #expect(box.server.messages.first?.message.contains("send-message") == true)
        daemon.signal(SIGTERM)
        #expect(daemon.wait(timeout: 10) == 0)
    }
}
