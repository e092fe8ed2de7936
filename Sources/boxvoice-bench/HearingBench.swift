import BoxSim
import BoxVoiceAudio
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation

/// `boxvoice-bench hearing`: the live path as it ran before the utterance-end road (pocketsphinx's utterances, the
/// spotter's hits written in; the baseline) beside the road (Whisper's text at each utterance end, Silero VAD
/// cutting), on the same audio in the same run:
/// word error on real recorded speech, false commands on every real stream, held-out command clips under every
/// condition, command latency fed in real time, and the peak memory of `boxvoice dictate`.
func benchHearing(
    models: String, real: String, work: String, hearing: String, heldOut: String, boxvoice: String,
    conditionNames: [String]?, languages: [String], timing: Bool = true
) throws {
    let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
    let prompt = try String(contentsOfFile: models + "/whisper-prompt.en.txt", encoding: .utf8).trimmingCharacters(
        in: .whitespacesAndNewlines)
    let before = LiveTranscriber.Options.hearing(
        detector, spotterPhrases: models + "/command-spotter.en.txt", dictionaryCache: work + "/cache")
    var now = before
    now.whisper = LiveTranscriber.WhisperHearing(models: HearingModels(folder: hearing), prompt: prompt)
    // On a file, nothing is late: the bench measures what Whisper hears, and the latency table what it costs.
    now.whisper?.deadline = 60
    now.whisper?.checksDeadline = 60
    let columns: [(name: String, options: LiveTranscriber.Options)] = [
        ("before: pocketsphinx live path (baseline)", before), ("now: Whisper at utterance ends", now),
    ]
    // What each column's decode is judged by: the dictation's rule, and for the road, the same with a command only the
    // spotter heard also taken (the choice the road made against, measured on the same decode).
    // And the same decode with every command Whisper wrote taken, however unsure (the road without its decision), and
    // with those asked of a box as a dictation asks them (`BoxOpinion`: boxsim's Whisper HQ says yes or no).
    let judged: [(name: String, column: Int, spotsToo: Bool, unsure: UnsureCommands)] = [
        (columns[0].name, 0, false, .leftOut), (columns[1].name, 1, false, .leftOut),
        ("now, also taking commands only the spotter heard", 1, true, .leftOut),
        ("now, also taking commands Whisper was unsure of", 1, false, .taken),
        ("now, asking the box about those (boxsim's Whisper HQ)", 1, false, .askedOfTheBox),
    ]
    let box = try BoxOpinion(whisper: HearingModels(folder: hearing).whisper, detector: detector)
    let header =
        "| | " + judged.map(\.name).joined(separator: " | ") + " |\n|---|"
        + String(repeating: "---|", count: judged.count)

    // Word error and real-time factor on the real English prompts; false commands on every real stream.
    var werRow = "| word error, \(languages.contains("en") ? "English prompts" : "-") |"
    var rtfRow = "| CPU seconds per audio second (whole live path, 2 cores) |"
    var falseRows: [String] = []
    var falseTotals = [Int](repeating: 0, count: judged.count)
    var totalMinutes = 0.0
    var werCells: [String] = [], rtfTotals = [Double](repeating: 0, count: columns.count)
    var audioSeconds = 0.0
    for language in languages {
        // The mid-sentence lists are dictation that uses command words inside its sentences: every sentence counts.
        guard
            let stream = try PromptStream(
                list: real + "/\(language).tsv", folder: real, detector: detector,
                commandWordsInside: language.hasPrefix("mid-sentence"))
        else {
            continue
        }
        let minutes = Double(stream.audio.count) / AudioRate.perSecond / 60
        totalMinutes += minutes
        audioSeconds += minutes * 60
        var cells: [String] = []
        var decodes: [[LiveUtterance]] = []
        for (index, column) in columns.enumerated() {
            let heard = try LiveDecode.run(stream.audio, options: column.options)
            rtfTotals[index] += heard.cpuSeconds
            decodes.append(heard.utterances)
            if language == "en" {
                let reference = WordError.words(spokenNumbers(stream.texts.joined(separator: " ")))
                let hypothesis = WordError.words(spokenNumbers(heard.utterances.map(\.text).joined(separator: " ")))
                werCells.append(
                    String(format: "%.1f %%", 100 * WordError.rate(reference: reference, hypothesis: hypothesis)))
            }
        }
        for (index, rule) in judged.enumerated() {
            let fired = try commands(
                in: decodes[rule.column], detector: detector, spotsToo: rule.spotsToo, unsure: rule.unsure,
                box: { try box.confirms($0, $1, in: stream.audio) })
            falseTotals[index] += fired.count
            cells.append("\(fired.count)")
            FileHandle.standardError.write(
                Data(
                    ("hearing: \(language), \(rule.name): \(fired.count) false command(s) "
                        + "\(fired.map(\.matchedPhrase))\n")
                        .utf8))
        }
        falseRows.append(
            "| false commands, \(language) (\(String(format: "%.1f", minutes)) min) | " + cells.joined(separator: " | ")
                + " |")
    }
    // The spotter-too and unsure-too rules read the road's decode: the same words and cost.
    werRow +=
        " " + judged.map { $0.column < werCells.count ? werCells[$0.column] : "-" }.joined(separator: " | ") + " |"
    rtfRow +=
        " "
        + judged.map { String(format: "%.2f", audioSeconds > 0 ? rtfTotals[$0.column] / audioSeconds : 0) }
        .joined(separator: " | ") + " |"
    falseRows.append(
        "| **false commands, all \(String(format: "%.1f", totalMinutes)) min** | "
            + falseTotals.map { "**\($0)**" }.joined(separator: " | ") + " |")

    // Held-out command clips under every condition.
    let clips = try heldOutClips(heldOut)
    var clipRows: [String] = []
    for condition in hearingConditions(real)
    where conditionNames.map({ names in names.contains { condition.name.contains($0) } }) ?? true {
        var cells: [String] = []
        var decodes: [[[LiveUtterance]]] = []
        let audios = try clips.enumerated().map { index, clip in try condition.apply(clip.audio, work, UInt64(index)) }
        for column in columns {
            decodes.append(try audios.map { try LiveDecode.run($0, options: column.options).utterances })
        }
        for rule in judged {
            var right = 0, wrong = 0
            for (index, clip) in clips.enumerated() {
                let fired = try commands(
                    in: decodes[rule.column][index], detector: detector, spotsToo: rule.spotsToo,
                    unsure: rule.unsure, box: { try box.confirms($0, $1, in: audios[index]) })
                if fired.first?.action == clip.expected { right += 1 } else if !fired.isEmpty { wrong += 1 }
                if fired.first?.action != clip.expected {
                    FileHandle.standardError.write(
                        Data(
                            ("hearing: \(condition.name), \(rule.name), \(clip.name): \(fired.map(\.matchedPhrase)) in "
                                + "'\(decodes[rule.column][index].map(\.text).joined(separator: " "))'\n")
                                .utf8))
                }
            }
            cells.append(
                "\(right)/\(clips.count) (\(Int((100 * Double(right) / Double(clips.count)).rounded())) %)"
                    + (wrong > 0 ? ", \(wrong) wrong" : ""))
        }
        clipRows.append("| \(condition.name) | " + cells.joined(separator: " | ") + " |")
        // Each row as it is done, for a run cut short.
        FileHandle.standardError.write(Data("row: \(clipRows.last!)\n".utf8))
    }

    // Latency: the clean held-out clips fed at the pace they were spoken, through the road as dictate runs it.
    var latencies: [Double] = []
    var lateFallbacks = 0
    var live = now
    settingsTriedByHand(&live)
    live.whisper?.deadline =
        LiveTranscriber.WhisperHearing(models: HearingModels(folder: hearing), prompt: nil).deadline
    // What the live path costs when fed in real time (decodes started while the speaker paused and then dropped
    // cost CPU here that a file, fed at once, never shows).
    let realTimeCPU = processCPUSeconds()
    for clip in clips where timing {
        let (latency, fellBack) = try commandLatency(clip, options: live, detector: detector)
        if let latency { latencies.append(latency) }
        if fellBack { lateFallbacks += 1 }
    }
    let clipSeconds = clips.reduce(0.0) { $0 + Double($1.audio.count) / AudioRate.perSecond }
    let realTimeFactor = timing && clipSeconds > 0 ? (processCPUSeconds() - realTimeCPU) / clipSeconds : 0
    // The same with the CPU busy (two spinning threads a core, as the faults section loads it).
    var busyLatencies: [Double] = []
    var busyFallbacks = 0
    let hogs = CPUHogs()
    for clip in clips where timing {
        let (latency, fellBack) = try commandLatency(clip, options: live, detector: detector)
        if let latency { busyLatencies.append(latency) }
        if fellBack { busyFallbacks += 1 }
    }
    hogs.stop()
    // A clip not heard counts as slower than any heard: a run that hears fewer cannot show a better median.
    latencies = latencies.sorted() + [Double](repeating: .infinity, count: clips.count - latencies.count)
    busyLatencies = busyLatencies.sorted() + [Double](repeating: .infinity, count: clips.count - busyLatencies.count)
    func percentile(_ p: Double, of values: [Double]? = nil) -> String {
        let values = values ?? latencies
        guard !values.isEmpty else { return "-" }
        let value = values[min(values.count - 1, Int((p * Double(values.count)).rounded(.up)) - 1)]
        return value.isFinite ? String(format: "%.2f s", value) : "not heard"
    }
    let heardCount = latencies.filter(\.isFinite).count, busyHeard = busyLatencies.filter(\.isFinite).count

    // Peak memory of `boxvoice dictate` on every held-out clip and on the long committed recording, either way: one
    // clip says little, since what Whisper holds grows with the longest utterance and with its first beam search.
    let long = URL(fileURLWithPath: models).deletingLastPathComponent().appendingPathComponent(
        "Samples/long-meeting-notes.wav"
    ).path
    let pauseless = work + "/pauseless.wav"
    let memory =
        timing
        ? try dictateMemory(
            boxvoice: boxvoice, clips: clips.map { heldOut + "/" + $0.name }, long: long,
            pauseless: try writePauseless(to: pauseless, real: real, command: clips.first, detector: detector)
                ? pauseless : nil, work: work)
        : DictateMemory(whisper: .init(clips: [0]), pocketsphinx: .init(clips: [1]))

    print(
        """
        \(header)
        \(werRow)
        \(rtfRow)
        \(falseRows.joined(separator: "\n"))

        **Held-out command clips** (\(clips.count) clips: voices and sentences no step of the tuning used; the first \
        command
        the live text holds must be the clip's; "wrong" counts another command taken):

        \(header)
        \(clipRows.joined(separator: "\n"))

        **Command latency**, the clean held-out clips fed in real time (release build, 2 cores): from the end of the
        command's speech (when it was spoken) to its utterance reaching the dictation, \(heardCount) of \(clips.count) \
        heard; over all \(clips.count), a clip not heard counting as slowest: median \(percentile(0.5)),
        95th percentile \(percentile(0.95)), slowest heard \
        \(latencies.last(where: \.isFinite).map { String(format: "%.2f s", $0) } ?? "-"); \
        \(lateFallbacks) utterance(s)
        where Whisper was late and pocketsphinx stood in; \(String(format: "%.2f", realTimeFactor)) CPU seconds per \
        audio second. With the CPU busy \
        (\(2 * ProcessInfo.processInfo.activeProcessorCount) spinning
        threads): \(busyHeard) of \(clips.count) heard, median \(percentile(0.5, of: busyLatencies)), 95th \
        percentile
        \(percentile(0.95, of: busyLatencies)); \(busyFallbacks) clip(s) where pocketsphinx stood in for Whisper.

        **Peak resident memory of `boxvoice dictate`**, each of the \(memory.whisper.clips.count) held-out clips \
        dictated alone: \(memory.whisper.described) with Whisper,
        \(memory.pocketsphinx.described) with `recognizer pocketsphinx` (ratio of the highest \
        \(String(format: "%.2f", memory.whisper.highest / memory.pocketsphinx.highest)))\(memory.describedLong).
        """)
}

/// What becomes of a command that needs the box's yes (`LiveUtterance.judged`: Whisper was unsure of it, or read it
/// across two utterances).
enum UnsureCommands {
    /// Not acted on, as a dictation with no box to ask.
    case leftOut
    /// Acted on like any other (the road before its floor).
    case taken
    /// Acted on when the box says yes (`BoxOpinion`).
    case askedOfTheBox
}

/// The commands the dictation would act on, in order: each utterance joins the message, and a command ends it.
/// `spotsToo`: an utterance whose words hold no command takes the phrases the spotter fired on in it. A command that
/// needs the box's yes is treated as `unsure` says, `box` answering for `.askedOfTheBox`; `leftForTheBox` is told of
/// each such command unless `unsure` is `.taken`.
func commands(
    in utterances: [LiveUtterance], detector: KeywordDetector, spotsToo: Bool = false,
    unsure treatment: UnsureCommands = .leftOut, box: ((KeywordMatch, LiveUtterance) throws -> Bool)? = nil,
    leftForTheBox: (KeywordMatch) -> Void = { _ in }
) rethrows -> [KeywordMatch] {
    var fired: [KeywordMatch] = []
    for var utterance in utterances where !utterance.text.isEmpty {
        // As the dictation takes it: the words the utterance ends on at a pause (`LiveUtterance.endingCommand`).
        if spotsToo, utterance.endingCommand(detector) == nil, !utterance.spots.isEmpty {
            utterance.text += " " + utterance.spots.map(\.phrase).joined(separator: " ")
        }
        let found = utterance.endingCommand(detector)
        let unsure = utterance.commandIsUnsure && treatment != .taken
        if let found, unsure { leftForTheBox(found) }
        // Not acted on (no box, or the box did not hear it): the words join the message, and act on nothing later.
        let asked = treatment == .askedOfTheBox && utterance.commandWorthAsking
        if let found, try !unsure || (asked && box?(found, utterance) == true) {
            fired.append(found)
        }
    }
    return fired
}

/// The conditions the hearing tables hear audio through: `Degradation.all` and babble at 10 dB.
func hearingConditions(_ real: String) -> [Degradation] { Degradation.all(babbleFrom: real) + [babbleAt10(real)] }

/// Babble at 10 dB, the issue's hardest condition (the common list stops at 20 dB for babble).
func babbleAt10(_ real: String) -> Degradation {
    let babble = BabbleSource(real: real)
    return Degradation(name: "babble, 10 dB SNR") { audio, _, seed in
        Degradation.mix(audio, try babble.noise(audio.count, seed: 30 + seed), snr: 10)
    }
}

/// The held-out clips listed in `folder/commands.tsv` ("file<TAB>action"), each with a second of quiet either side.
func heldOutClips(_ folder: String) throws -> [CommandClip] {
    let list = try String(contentsOfFile: folder + "/commands.tsv", encoding: .utf8)
    let quiet = [Float](repeating: 0, count: AudioRate.hertz)
    return try list.split(separator: "\n").compactMap { line in
        let parts = line.split(separator: "\t").map(String.init)
        guard parts.count == 2, let action = KeywordAction(rawValue: parts[1]) else { return nil }
        return CommandClip(
            name: parts[0], audio: quiet + (try WAVCapturePCM.load(folder + "/" + parts[0])) + quiet, expected: action,
            unseen: true)
    }
}

/// Feeds a clip in 20 ms chunks at the pace it was spoken; returns the seconds from when the command's last speech
/// sample was spoken (not when it was fed: a decode holds the feed up, as it holds up `dictate`'s recognizer, and
/// the feed then catches up) to the utterance holding the command (nil: not heard), and whether pocketsphinx stood
/// in for it.
private func commandLatency(_ clip: CommandClip, options: LiveTranscriber.Options, detector: KeywordDetector) throws
    -> (Double?, Bool)
{
    let transcriber = try LiveTranscriber(options: options)
    let speechEnd = (clip.audio.lastIndex { abs($0) > 0.01 } ?? clip.audio.count - 1) + 1
    let chunk = 960
    let started = Date()
    let speechEndSpoken = started.addingTimeInterval(Double(speechEnd) / AudioRate.perSecond)
    var message = ""
    var fellBack = false
    func check(_ updates: [LiveUpdate]) -> Double? {
        for case .utterance(let utterance) in updates where !utterance.text.isEmpty {
            if case .pocketsphinxInstead = utterance.heardBy { fellBack = true }
            if let found = utterance.endingCommand(detector), found.action == clip.expected {
                return Date().timeIntervalSince(speechEndSpoken)
            }
            message += " " + utterance.text
        }
        return nil
    }
    for start in stride(from: 0, to: clip.audio.count, by: chunk) {
        let due = started.addingTimeInterval(Double(start + chunk) / AudioRate.perSecond)
        if due > Date() { Thread.sleep(until: due) }
        let end = min(start + chunk, clip.audio.count)
        if let latency = check(try transcriber.feed(Array(clip.audio[start..<end]))) { return (latency, fellBack) }
    }
    let latency = check(try transcriber.finish())
    if latency == nil {
        let said = "latency: \(clip.name) not heard as \(clip.expected) in '\(message)'\n"
        FileHandle.standardError.write(Data(said.utf8))
    }
    return (latency, fellBack)
}

/// Speech without a pause as long as Whisper's window allows, then a command (`command`, a held-out clip), written to
/// `path` (48 kHz Float32): the English prompts with their own quiet trimmed, 0.05 s apart, to 27 s. What Whisper's
/// encoder holds grows with the square of an utterance's length, so this is the recording that finds the cut
/// (`UtteranceCutter.Rule.longest`) too long. False without the prompts.
func writePauseless(to path: String, real: String, command: CommandClip?, detector: KeywordDetector) throws -> Bool {
    // Their own quiet trimmed, the first 40 s of prompts hold 27 s of speech and more.
    guard let stream = try PromptStream(list: real + "/en.tsv", folder: real, detector: detector, seconds: 40),
        let command
    else { return false }
    let rate = AudioRate.hertz, gap = [Float](repeating: 0, count: rate / 20),
        quiet = [Float](repeating: 0, count: rate)
    var speech: [Float] = []
    for range in stream.prompts where speech.count < 27 * rate {
        let prompt = stream.audio[range]
        guard let first = prompt.firstIndex(where: { abs($0) > 0.01 }),
            let last = prompt.lastIndex(where: { abs($0) > 0.01 })
        else { continue }
        speech += prompt[first...last] + gap
    }
    let file = try SoundFile.createFloatWAV(path: path, sampleRate: rate)
    try file.write(quiet + speech.prefix(27 * rate) + command.audio)
    try file.close()
    return true
}

/// Peak resident memory (MB) of `boxvoice dictate`, one run per recording, with Whisper and with pocketsphinx alone.
struct DictateMemory {
    /// One recognizer's peaks.
    struct Peaks {
        var clips: [Double]
        /// The long recording's; nil where it is not in the checkout.
        var long: Double? = nil
        /// The recording of speech without a pause (`writePauseless`); nil where it was not made.
        var pauseless: Double? = nil

        var highest: Double { clips.max()! }

        var described: String {
            let sorted = clips.sorted()
            return String(format: "highest %.0f MB, median %.0f MB", sorted.last!, sorted[(sorted.count - 1) / 2])
        }
    }

    var whisper: Peaks
    var pocketsphinx: Peaks

    var describedLong: String {
        var described = ""
        if let withWhisper = whisper.long, let alone = pocketsphinx.long {
            described += String(
                format: "; on the committed 150 s recording (Samples/long-meeting-notes.wav) %.0f MB with Whisper, "
                    + "%.0f MB with pocketsphinx", withWhisper, alone)
        }
        if let withWhisper = whisper.pauseless, let alone = pocketsphinx.pauseless {
            described += String(
                format: "; on 27 s of English prompts without a pause, then a command, %.0f MB with Whisper, %.0f MB "
                    + "with pocketsphinx", withWhisper, alone)
        }
        return described
    }
}

/// Each recording dictated into a boxsim with instant HQ, with Whisper and with pocketsphinx alone (`recognizer` set
/// in the run's own config file); `long` too if it exists, and `pauseless` if made.
private func dictateMemory(
    boxvoice: String, clips: [String], long: String, pauseless: String?, work: String
) throws -> DictateMemory {
    let hasLong = FileManager.default.fileExists(atPath: long)
    func peaks(_ recognizer: String) throws -> DictateMemory.Peaks {
        let home = work + "/memory-\(recognizer)"
        try FileManager.default.createDirectory(atPath: home + "/config/boxvoice", withIntermediateDirectories: true)
        var settings = UserSettings()
        try settings.set("recognizer", recognizer)
        try settings.encoded().write(to: URL(fileURLWithPath: home + "/config/boxvoice/config.json"))
        let box = try BoxSimServer(
            configuration: BoxSimConfiguration(dataDirectory: home + "/box", hq: .fixed("Text of one segment.")))
        defer { box.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = home + "/data"
        environment["XDG_CONFIG_HOME"] = home + "/config"
        environment["XDG_CACHE_HOME"] = work + "/cache"
        _ = try spawnAndMeasure(boxvoice, ["pair", box.mintPairingLink()], environment: environment)
        func peak(_ recording: String) throws -> Double {
            let (status, peakKB) = try spawnAndMeasure(
                boxvoice, ["dictate", "--no-keys", "--input", recording], environment: environment)
            guard status == 0 else {
                throw BenchFailure(message: "boxvoice dictate (\(recognizer)) exited with \(status) on \(recording)")
            }
            return Double(peakKB) / 1024
        }
        return DictateMemory.Peaks(
            clips: try clips.map(peak), long: hasLong ? try peak(long) : nil, pauseless: try pauseless.map(peak))
    }
    return DictateMemory(whisper: try peaks("whisper"), pocketsphinx: try peaks("pocketsphinx"))
}

/// Digits as words ("5" → "five", "25" → "twenty five"): the prompts' texts spell numbers, Whisper writes digits.
func spokenNumbers(_ text: String) -> String {
    let ones = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    func say(_ n: Int) -> String {
        if n < 20 { return ones[n] }
        if n < 100 { return tens[n / 10] + (n % 10 == 0 ? "" : " " + ones[n % 10]) }
        if n < 1_000 { return ones[n / 100] + " hundred" + (n % 100 == 0 ? "" : " " + say(n % 100)) }
        return String(n)
    }
    return text.split(separator: " ").map { word in
        let digits = word.filter(\.isNumber)
        guard !digits.isEmpty, digits.count == word.filter({ $0.isLetter || $0.isNumber }).count, let n = Int(digits),
            n < 1_000
        else { return String(word) }
        return say(n)
    }.joined(separator: " ")
}
