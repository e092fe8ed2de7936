import BoxVoiceAudio
import BoxVoiceCalibration
import BoxVoiceDictation
import BoxVoiceLive
import BoxVoiceStore
import CommandGrammar
import Foundation

/// `boxvoice calibrate`: tunes the command spotter to the user's voice and microphone.
enum CalibrateCommand: Command {
    static let takes = Option.integer(
        "--takes", 1...10, unit: "takes", default: "3", help: "how many times to say each command")
    static let from = Option.path(
        "--from", placeholder: "DIR",
        help: "tune from recordings already made: PHRASE-N.wav (a spotter phrase with its words joined by '-') and "
            + "talk*.wav")
    static let reset = Option.flag(
        "--reset",
        help: "go back to the default thresholds and the acoustic model as shipped, with noise suppression only in a "
            + "noisy room")

    static let spec = CommandSpec(
        "calibrate", summary: "tune the command spotter to your voice and microphone",
        about: """
            Asks you to say each spoken command N times and then to talk normally for 30 seconds, adapts the \
            recognizer's acoustic model to that voice and microphone (an MLLR transform estimated from your takes with \
            Debian's sphinxtrain; skipped, with the reason, when it is not installed), and tunes the command spotter \
            for them: each phrase gets the threshold nearest its default that finds the most of your takes of it \
            without firing on your ordinary talk or on your other commands (tuned both for the audio as captured and \
            as speexdsp's noise suppression cleans it when the room is noisy; then setting front-end is set to on only \
            where cleaned clearly hears your recordings better through the whole live path, off otherwise, and left at \
            auto in a quiet room). The thresholds go to $XDG_CONFIG_HOME/boxvoice/command-spotter.txt and the \
            adaptation to voice-adaptation.mllr beside it, which dictate, listen and the daemon use from then on; the \
            recordings stay in $XDG_DATA_HOME/boxvoice/calibration (private).
            """,
        options: [CommonOptions.device, CommonOptions.alsaConfig, takes, from, reset],
        exclusive: [[reset, from, takes], [from, CommonOptions.device], [reset, CommonOptions.device]])

    static func run(_ invocation: Invocation) throws -> Int32 {
        let saved = try UserSettingsFile.load()
        let device = invocation[CommonOptions.device] ?? saved.device ?? "default"
        let alsaConfig = invocation[CommonOptions.alsaConfig] ?? saved.alsaConfig
        let from = invocation[from]
        let takes = invocation[takes] ?? 3  // the option has a default
        if invocation[reset] { return try resetCalibration() }
        let defaults = try ModelsDirectory.locate() + "/command-spotter.en.txt"
        let calibration = try SpotterCalibration(phrasesFile: defaults)
        let folder: String
        if let from {
            guard FileManager.default.fileExists(atPath: from) else { throw CLIError.failed("no folder '\(from)'") }
            folder = from
        } else {
            folder = Paths.calibrationRecordings
            try PrivateFiles.directory(folder)
            try record(
                phrases: calibration.phrases.map(\.phrase), takes: takes, into: folder, device: device,
                alsaConfig: alsaConfig)
        }
        let (phraseTakes, talk) = try load(folder, phrases: calibration.phrases.map(\.phrase))
        guard !talk.isEmpty else {
            throw CLIError.failed("no talk*.wav in '\(folder)': ordinary speech is needed to know what must not fire")
        }
        guard !phraseTakes.isEmpty else {
            throw CLIError.failed(
                "no recordings of the commands in '\(folder)' (PHRASE-N.wav: a spotter phrase with its words joined by "
                    + "'-')"
            )
        }
        try PrivateFiles.directory(Paths.configDirectory)
        Console.err(
            "adapting the acoustic model to your voice and microphone, then tuning \(phraseTakes.phrases.count) "
                + "phrase(s) on "
                + "\(phraseTakes.count) take(s) and \(talk.count) talk recording(s) …")
        let trial = CalibrationTrial(
            detector: try ModelsDirectory.keywordDetector(override: nil), dictionaryCache: Paths.cacheDirectory)
        let started = Date()
        let result = try VoiceCalibration(defaults: calibration, trial: trial).run(
            takes: phraseTakes, talk: talk, adaptationPath: Paths.voiceAdaptation
        ) { step in
            let seconds = Int(Date().timeIntervalSince(started))
            Console.err(String(format: "[%02d:%02d] ", seconds / 60, seconds % 60) + step.description)
        }
        let calibrated = result.calibrated
        if let failure = result.adaptationFailure {
            Console.err("\(failure); the thresholds are tuned for the acoustic model as shipped")
        }
        let text = SpotterCalibration.render(
            calibrated.phrases,
            header:
                "Command spotter thresholds tuned by `boxvoice calibrate` on "
                + "\(ISO8601DateFormatter().string(from: Date())).\n`boxvoice calibrate --reset` goes back to the "
                + "defaults (Models/command-spotter.en.txt)."
        )
        try text.write(toFile: Paths.calibratedSpotter, atomically: true, encoding: .utf8)
        var settings = try UserSettingsFile.load()
        settings.frontEnd = calibrated.frontEnd
        try UserSettingsFile.save(settings)
        report(result)
        Console.out("saved to \(Paths.calibratedSpotter)")
        return 0
    }

    /// `--reset`: the shipped thresholds and acoustic model, noise suppression back to auto.
    private static func resetCalibration() throws -> Int32 {
        let existed = [Paths.calibratedSpotter, Paths.voiceAdaptation].contains {
            FileManager.default.fileExists(atPath: $0)
        }
        try? FileManager.default.removeItem(atPath: Paths.calibratedSpotter)
        try? FileManager.default.removeItem(atPath: Paths.voiceAdaptation)
        var settings = try UserSettingsFile.load()
        if settings.frontEnd != .auto {
            settings.frontEnd = .auto
            try UserSettingsFile.save(settings)
        }
        Console.out(
            existed
                ? "removed your calibration: the default command thresholds and the acoustic model as shipped "
                    + "apply again, with noise suppression only in a noisy room"
                : "there was no calibration; the defaults apply")
        return 0
    }

    /// What the calibration chose, against the defaults.
    private static func report(_ result: VoiceCalibration.Result) {
        let calibrated = result.calibrated
        if calibrated.bandLimited {
            Console.out(
                "your microphone stops at the telephone band (a headset's call profile?): tuned from the defaults for "
                    + "such a microphone"
            )
        }
        Console.out("phrase                 default   yours     your takes found (default → yours)")
        for outcome in calibrated.outcomes {
            Console.out(
                outcome.phrase.padding(toLength: 22, withPad: " ", startingAt: 0) + " "
                    + outcome.defaultThreshold.padding(toLength: 9, withPad: " ", startingAt: 0) + " "
                    + outcome.threshold.padding(toLength: 9, withPad: " ", startingAt: 0) + " "
                    + "\(outcome.foundByDefault)/\(outcome.takes) → \(outcome.found)/\(outcome.takes)")
        }
        let room = String(format: "your recordings' signal-to-noise ratio %.0f dB", calibrated.signalToNoise)
        if let asCaptured = result.heardAsCaptured, let cleaned = result.heardCleaned {
            Console.out(
                "noise suppression for the live recognizer: \(calibrated.frontEnd.rawValue) (\(room); your recordings "
                    + "through "
                    + "the live path: as captured \(asCaptured), cleaned \(cleaned); setting front-end)")
        } else if let cleaned = calibrated.foundCleaned {
            Console.out(
                "noise suppression for the live recognizer: \(calibrated.frontEnd.rawValue) (\(room); your takes "
                    + "found: "
                    + "\(calibrated.foundRaw) as captured, \(cleaned) cleaned; setting front-end)")
        } else {
            Console.out(
                "noise suppression for the live recognizer: auto (\(room): quiet enough without it, cleans only if the "
                    + "room gets noisy; setting front-end)"
            )
        }
        if let adaptation = result.adaptation {
            Console.out("acoustic model adapted to your voice and microphone: \(adaptation)")
        }
    }

    /// Prompts for each take and records it from the microphone (3 s each, 30 s of talk).
    private static func record(phrases: [String], takes: Int, into folder: String, device: String, alsaConfig: String?)
        throws
    {
        func capture(seconds: Double, to path: String) throws {
            let pcm = try ALSACapturePCM(name: device, configFile: alsaConfig).paced()
            let capture = AudioCapture(pcm: pcm)
            capture.start()
            defer { capture.stop() }
            var samples: [Float] = []
            let wanted = Int(seconds * AudioRate.perSecond)
            capture.queue.drain { chunks in
                for chunk in chunks { samples += chunk.samples }
                return samples.count < wanted ? .more : .enough
            }
            let file = try SoundFile.createFloatWAV(path: path)
            try file.write(Array(samples.prefix(wanted)))
            try file.close()
        }
        for phrase in phrases {
            for take in 1...takes {
                Console.err("Say “\(phrase)” (\(take) of \(takes)) now …")
                try capture(seconds: 3, to: folder + "/" + fileStem(phrase) + "-\(take).wav")
            }
        }
        Console.err("Now talk normally for 30 seconds (read anything aloud; no commands) …")
        try capture(seconds: 30, to: folder + "/talk-1.wav")
    }

    static func fileStem(_ phrase: String) -> String { phrase.split(separator: " ").joined(separator: "-") }

    private static func load(_ folder: String, phrases: [String]) throws -> (takes: CalibrationTakes, talk: [[Int16]]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".wav") }.sorted()
        var takes: [String: [[Int16]]] = [:]
        var talk: [[Int16]] = []
        for name in names {
            let samples = try SpeechConversion.recognizerSamples(fromFile: folder + "/" + name)
            if name.hasPrefix("talk") {
                talk.append(samples)
            } else if let phrase = phrases.first(where: { name.hasPrefix(fileStem($0) + "-") }) {
                takes[phrase, default: []].append(samples)
            }
        }
        return (CalibrationTakes(takes), talk)
    }
}
