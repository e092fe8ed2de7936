import BoxVoiceTestSupport
import Foundation
import Testing

/// `boxvoice calibrate --from DIR` with recordings standing in for a user (sample voices in 20 dB white noise), then
/// `listen` on other clips of that voice and room, with and without the calibration.
@Suite struct CalibrateCommandTests {
    @Test func aCalibrationFromRecordingsIsSavedUsedByListenAndReset() throws {
        let home = TemporaryDirectory("calibrate")
        let env = Run.isolatedEnvironment(home)
        let takes = home.file("takes")
        try FileManager.default.createDirectory(atPath: takes, withIntermediateDirectories: true)
        for (index, (clip, name)) in [
            ("sendclose-over-and-out.wav", "over-and-out-1"), ("send-buy-milk.wav", "send-message-1"),
            ("micoff-stop-listening.wav", "stop-listening-1"), ("none-weather.wav", "talk-1"),
            ("none-budget.wav", "talk-2"), ("none-garden.wav", "talk-3"),
        ].enumerated() {
            try WAV.write(try Noise.clip(clip, snr: 20, seed: 1 + UInt64(index)), to: takes + "/\(name).wav")
        }
        let heldOut = home.file("held-out")
        try FileManager.default.createDirectory(atPath: heldOut, withIntermediateDirectories: true)
        let clips = ["sendclose-kal-done.wav", "send-kal-dinner.wav", "micoff-awb-phone.wav"]
        for (index, clip) in clips.enumerated() {
            try WAV.write(try Noise.clip(clip, snr: 20, seed: 20 + UInt64(index)), to: heldOut + "/" + clip)
        }
        func commandsHeard() throws -> Int {
            try clips.filter { clip in
                let run = try Run.process(
                    Run.boxvoice, ["listen", "--json", "--no-language-model", "--input", heldOut + "/" + clip],
                    environment: env)
                return run.stdout.contains("\"event\":\"keyword\"")
            }.count
        }
        // Measured against the audio as captured: by default the front end cleans in a noisy room like this one, and
        // then already hears these clips' commands (BENCHMARKS.md at 7c182fc), which would leave nothing for the test
        // to show.
        #expect(try Run.process(Run.boxvoice, ["config", "set", "front-end", "off"], environment: env).status == 0)
        // Only what calibration tunes is counted: pocketsphinx's spotter, not Whisper (a file is heard unpaced, so
        // whether Whisper answers within its deadline would change the count from run to run).
        #expect(
            try Run.process(Run.boxvoice, ["config", "set", "recognizer", "pocketsphinx"], environment: env).status == 0
        )
        let before = try commandsHeard()

        let calibrated = try Run.process(Run.boxvoice, ["calibrate", "--from", takes], environment: env)
        #expect(calibrated.status == 0, "\(calibrated.stderr)")
        #expect(calibrated.stdout.contains("saved to"))
        let saved = try String(contentsOfFile: home.file("config/boxvoice/command-spotter.txt"), encoding: .utf8)
        #expect(saved.hasPrefix("# Command spotter thresholds tuned by `boxvoice calibrate`"))
        // The acoustic model's adaptation to this voice and room is saved beside the thresholds (sphinxtrain is
        // installed
        // by `make setup`), privately, like the rest of the configuration.
        let adaptation = home.file("config/boxvoice/voice-adaptation.mllr")
        #expect(
            calibrated.stdout.contains("acoustic model adapted to your voice and microphone"),
            "\(calibrated.stdout)\n\(calibrated.stderr)")
        #expect(FileManager.default.fileExists(atPath: adaptation))
        let after = try commandsHeard()
        #expect(after > before, "commands heard on the other clips: \(before) without calibration, \(after) with")
        // The front-end choice it announced is the one the settings hold (listen, dictate and the daemon read it
        // there).
        let chosen = ["on", "off", "auto"].first {
            calibrated.stdout.contains("noise suppression for the live recognizer: \($0) (")
        }
        #expect(chosen != nil, "\(calibrated.stdout)")
        #expect(chosen != "auto", "the takes are noisy (20 dB): calibration tries the front end and says on or off")
        #expect(try frontEndSetting(env) == chosen)

        #expect(try Run.process(Run.boxvoice, ["config", "set", "front-end", "on"], environment: env).status == 0)
        let reset = try Run.process(Run.boxvoice, ["calibrate", "--reset"], environment: env)
        #expect(reset.status == 0)
        #expect(!FileManager.default.fileExists(atPath: home.file("config/boxvoice/command-spotter.txt")))
        #expect(
            !FileManager.default.fileExists(atPath: adaptation),
            "a reset also goes back to the acoustic model as shipped")
        #expect(try frontEndSetting(env) == "auto", "a reset also puts noise suppression back to its default")
        #expect(try Run.process(Run.boxvoice, ["config", "set", "front-end", "off"], environment: env).status == 0)
        #expect(try commandsHeard() == before)
    }

    private func frontEndSetting(_ env: [String: String]) throws -> String? {
        let shown = try Run.process(Run.boxvoice, ["config", "show"], environment: env).stdout
        let line = shown.split(separator: "\n").first { $0.hasPrefix("front-end ") }
        return line.flatMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
    }

    @Test func calibratingWithoutTalkSaysWhatIsMissing() throws {
        let home = TemporaryDirectory("calibrate-empty")
        let takes = home.file("takes")
        try FileManager.default.createDirectory(atPath: takes, withIntermediateDirectories: true)
        try WAV.write(try Noise.clip("send-buy-milk.wav", snr: 30, seed: 1), to: takes + "/send-message-1.wav")
        let run = try Run.process(
            Run.boxvoice, ["calibrate", "--from", takes], environment: Run.isolatedEnvironment(home))
        #expect(run.status == 1)
        #expect(run.stderr.contains("no talk*.wav"))
        #expect(!FileManager.default.fileExists(atPath: home.file("config/boxvoice/command-spotter.txt")))
    }
}
