import BoxVoiceAudio
import BoxVoiceCalibration
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceLive
import Foundation

/// Issue "spoken commands", calibration: one voice in one room. The user's calibration takes and talk (made by
/// scripts/real-speech.sh in festival's ked voice) are degraded as the room would, `boxvoice calibrate --from` tunes
/// on them as a user's would run, and recall is measured on held-out sentences in the same voice and room that the
/// calibration never heard: the default spotter against the calibrated one, on the live path `dictate` runs.
func benchCalibration(boxvoice: String, models: String, real: String, work: String, conditionNames: [String]?) throws {
    let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
    let defaults = models + "/command-spotter.en.txt"
    let calibration = real + "/calibration"
    let takeFiles = try FileManager.default.contentsOfDirectory(atPath: calibration + "/takes").filter {
        $0.hasSuffix(".wav")
    }.sorted()
    let takes = try takeFiles.map { ($0, try WAVCapturePCM.load(calibration + "/takes/" + $0)) }
    let quiet = [Float](repeating: 0, count: AudioRate.hertz)
    let heldOut = try String(contentsOfFile: calibration + "/heldout.tsv", encoding: .utf8).split(separator: "\n").map {
        line in
        let parts = line.split(separator: "\t").map(String.init)
        guard parts.count == 2, let action = KeywordAction(rawValue: parts[1]) else {
            throw BenchFailure(message: "bad held-out line '\(line)'")
        }
        // The room goes on after the command, as after a clip in the real-speech section (`clipRoomAfter`).
        return (
            audio: quiet + (try WAVCapturePCM.load(calibration + "/" + parts[0]))
                + [Float](repeating: 0, count: Int(clipRoomAfter * AudioRate.perSecond)),
            expected: action
        )
    }
    // Held-out talk in the same voice: false commands there are what the calibration's leniency costs.
    guard let talk = try PromptStream(list: calibration + "/talk.tsv", folder: calibration, detector: detector)?.audio
    else {
        throw BenchFailure(message: "no held-out talk under \(calibration)")
    }
    let talkMinutes = Double(talk.count) / AudioRate.perSecond / 60
    let conditions = Degradation.matching(conditionNames, babbleFrom: real)

    func options(_ spotter: String, _ frontEnd: FrontEndUse, _ adaptation: String?) -> LiveTranscriber.Options {
        // Decoded as `dictate` hears and judges (a command waiting for the speaker's pause is the one its judgement
        // took); every hit is kept with its time, and the same judgement is applied to the decode below.
        LiveTranscriber.Options.hearing(
            detector, spotterPhrases: spotter, dictionaryCache: work + "/cache", frontEnd: frontEnd,
            adaptation: adaptation)
    }
    /// boxvoice's own judgement of the decode, with this spotter's phrases.
    func rule(_ spotter: String) throws -> CommandRule {
        .judged(try CommandEvidence(.hearing(detector, spotterPhrases: spotter, dictionaryCache: nil)))
    }
    func recall(_ spotter: String, _ frontEnd: FrontEndUse, _ adaptation: String?, _ condition: Degradation) throws -> (
        found: Int, wrong: Int
    ) {
        var found = 0, wrong = 0
        let rule = try rule(spotter)
        for (index, clip) in heldOut.enumerated() {
            let audio = try condition.apply(clip.audio, work, 200 + UInt64(index))
            let utterances = try LiveDecode.run(audio, options: options(spotter, frontEnd, adaptation)).utterances
            let fired = rule.commands(in: utterances, detector: detector).first?.action
            if fired == clip.expected { found += 1 } else if fired != nil { wrong += 1 }
            if ProcessInfo.processInfo.environment["BENCH_SHOW_DECODES"] != nil {
                FileHandle.standardError.write(
                    Data(
                        ("held-out \(index) expected \(clip.expected.rawValue), acted \(fired?.rawValue ?? "-"): "
                            + "\(utterances.map(\.text))\n")
                            .utf8))
            }
        }
        return (found, wrong)
    }
    func falseCommands(_ spotter: String, _ frontEnd: FrontEndUse, _ adaptation: String?, _ condition: Degradation)
        throws -> Int
    {
        let audio = try condition.apply(talk, work, 300)
        return try rule(spotter).commands(
            in: try LiveDecode.run(audio, options: options(spotter, frontEnd, adaptation)).utterances,
            detector: detector
        ).count
    }

    var rows: [String] = []
    for (number, condition) in conditions.enumerated() {
        let folder = work + "/calibration-\(number)"
        // BENCH_REUSE_CALIBRATION=1 measures the calibration a previous run of this condition left (for looking at it).
        let reuse =
            ProcessInfo.processInfo.environment["BENCH_REUSE_CALIBRATION"] == "1"
            && FileManager.default.fileExists(atPath: folder + "/config/boxvoice/config.json")
        if !reuse { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/takes", withIntermediateDirectories: true)
        for (index, (name, audio)) in takes.enumerated() where !reuse {
            let file = try SoundFile.createFloatWAV(path: folder + "/takes/" + name, sampleRate: AudioRate.hertz)
            try file.write(try condition.apply(audio, work, 100 + UInt64(index)))
            try file.close()
        }
        let started = Date()
        if !reuse {
            try runCalibrate(boxvoice: boxvoice, models: models, takes: folder + "/takes", config: folder + "/config")
        }
        let tuningSeconds = Date().timeIntervalSince(started)
        let calibrated = folder + "/config/boxvoice/command-spotter.txt"
        let settings = try UserSettings.decode(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/config/boxvoice/config.json")))
        let adaptationFile = folder + "/config/boxvoice/voice-adaptation.mllr"
        let adaptation = FileManager.default.fileExists(atPath: adaptationFile) ? adaptationFile : nil
        let before = try recall(defaults, .auto, nil, condition)
        let after = try recall(calibrated, settings.frontEnd, adaptation, condition)
        // The adaptation's own share: the adapted model with the default thresholds and front end.
        let adaptedOnly = try adaptation.map { try recall(defaults, .auto, $0, condition) }
        let falseBefore = try falseCommands(defaults, .auto, nil, condition)
        let falseAfter = try falseCommands(calibrated, settings.frontEnd, adaptation, condition)
        func cell(_ result: (found: Int, wrong: Int)) -> String {
            "\(result.found)/\(heldOut.count) (\(Int((100 * Double(result.found) / Double(heldOut.count)).rounded())) "
                + "%), \(result.wrong) wrong"
        }
        let points = Int((100 * Double(after.found - before.found) / Double(heldOut.count)).rounded())
        rows.append(
            "| \(condition.name) | \(cell(before)) | \(cell(after)) | \(points >= 0 ? "+" : "")\(points) | "
                + "\(adaptedOnly.map(cell) ?? "not made") | "
                + "\(settings.frontEnd.rawValue) | \(falseBefore) → \(falseAfter) | "
                + "\(String(format: "%.0f", tuningSeconds)) s |"
        )
        FileHandle.standardError.write(
            Data("calibration \(condition.name): \(before) → \(after), false \(falseBefore) → \(falseAfter)\n".utf8))
    }
    let talkSeconds = Double(takes.first { $0.0.hasPrefix("talk") }?.1.count ?? 0) / AudioRate.perSecond
    print(
        """
        ### Calibration to one voice and room

        `boxvoice calibrate --from` on one voice's takes (festival's ked voice, made at bench time: each of the
        \((takeFiles.count - 1) / 3) spotter phrases said three times, slower or faster and higher or lower, and \
        \(String(format: "%.0f", talkSeconds)) s of
        ordinary talk), each degraded as the room would (fixed seeds); recall measured on \(heldOut.count) held-out \
        sentences in
        that voice and room ending in a command, which the calibration never heard, through the live path as `dictate`
        runs it (command ends its utterance + sounds like a command, a spotter-only one held for the speaker's pause; \
        each
        sentence followed by \(Int(clipRoomAfter)) s of its room). Calibration adapts the acoustic model to the takes \
        (an MLLR
        transform, sphinxtrain), picks each phrase's threshold for the adapted model with a margin
        (`SpotterCalibration.margin`), and in a noisy room switches the speexdsp front end on or off by which hears the
        takes and talk better through the whole live path (`CalibrationTrial`). The column "adapted model alone" is the
        adaptation with the default thresholds and front end: its share of the change.
        Aim: + 20 points where the default is under 80 %.
        False commands: over \(String(format: "%.1f", talkMinutes)) min of held-out talk in the same voice and room \
        (English prompt texts
        read by ked, none holding a command), default → calibrated.

        | voice ked, condition | default (baseline) | calibrated | change | adapted model alone | noise suppression \
        chosen | false commands in talk | tuning time |
        |---|---|---|---|---|---|---|---|
        \(rows.joined(separator: "\n"))

        """)
}

private func runCalibrate(boxvoice: String, models: String, takes: String, config: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: boxvoice)
    process.arguments = ["calibrate", "--from", takes]
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_CONFIG_HOME"] = config
    environment["BOXVOICE_MODELS"] = models
    process.environment = environment
    process.standardOutput = FileHandle.standardError
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchFailure(message: "boxvoice calibrate --from \(takes) exited \(process.terminationStatus)")
    }
}
