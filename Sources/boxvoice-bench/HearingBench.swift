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
/// condition (`latency` measures how soon, and what memory it takes).
func benchHearing(
    models: String, real: String, work: String, hearing: String, heldOut: String, conditionNames: [String]?,
    languages: [String]
) throws {
    let roads = try shippedRoads(models: models, hearing: hearing, work: work)
    let detector = roads.detector, before = roads.pocketsphinx
    // On a file, nothing is late: the bench measures what Whisper hears, and the latency table what it costs.
    var now = roads.whisper
    now.whisper?.deadline = 60
    let columns: [(name: String, options: LiveTranscriber.Options)] = [
        ("before: pocketsphinx live path (baseline)", before), ("now: Whisper at utterance ends", now),
    ]
    // What each column's decode is judged by: the dictation's rule; for the road, also the same decode with every
    // command Whisper wrote taken, however unsure (the road without its decision), and with those asked of a box as a
    // dictation asks them (`BoxOpinion`: boxsim's Whisper HQ says yes or no).
    let judged: [(name: String, column: Int, unsure: UnsureCommands)] = [
        (columns[0].name, 0, .leftOut), (columns[1].name, 1, .leftOut),
        ("now, also taking commands Whisper was unsure of", 1, .taken),
        ("now, asking the box about those (boxsim's Whisper HQ)", 1, .askedOfTheBox),
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
                in: decodes[rule.column], detector: detector, unsure: rule.unsure,
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
    var clipTotals = [(right: Int, wrong: Int)](repeating: (0, 0), count: judged.count)
    var clipsHeard = 0
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
                    in: decodes[rule.column][index], detector: detector, unsure: rule.unsure,
                    box: { try box.confirms($0, $1, in: audios[index]) })
                if fired.first?.action == clip.expected { right += 1 } else if !fired.isEmpty { wrong += 1 }
                if fired.first?.action != clip.expected {
                    FileHandle.standardError.write(
                        Data(
                            ("hearing: \(condition.name), \(rule.name), \(clip.name): \(fired.map(\.matchedPhrase)) in "
                                + "'\(decodes[rule.column][index].map(\.text).joined(separator: " "))'\n")
                                .utf8))
                }
            }
            clipTotals[cells.count].right += right
            clipTotals[cells.count].wrong += wrong
            cells.append(
                "\(right)/\(clips.count) (\(Int((100 * Double(right) / Double(clips.count)).rounded())) %)"
                    + (wrong > 0 ? ", \(wrong) wrong" : ""))
        }
        clipRows.append("| \(condition.name) | " + cells.joined(separator: " | ") + " |")
        clipsHeard += clips.count
        // Each row as it is done, for a run cut short.
        FileHandle.standardError.write(Data("row: \(clipRows.last!)\n".utf8))
    }

    func recall(_ rule: Int) -> String {
        let total = clipTotals[rule]
        let percent = Int((100 * Double(total.right) / Double(max(clipsHeard, 1))).rounded())
        return "\(total.right)/\(clipsHeard) (\(percent) %), \(total.wrong) wrong"
    }
    print(
        """
        <!-- headline: Whisper at utterance ends: \(falseTotals[1]) false commands in \
        \(String(format: "%.1f", totalMinutes)) min of real speech and mid-sentence dictation (pocketsphinx, the \
        baseline: \(falseTotals[0])); held-out commands \(recall(1)), \(recall(4).split(separator: "/").first ?? "") \
        with the box asked (pocketsphinx: \(recall(0))) -->

        \(header)
        \(werRow)
        \(rtfRow)
        \(falseRows.joined(separator: "\n"))

        **Held-out command clips** (\(clips.count) clips: voices and sentences no step of the tuning used; the first \
        command
        the live text holds must be the clip's; "wrong" counts another command taken):

        \(header)
        \(clipRows.joined(separator: "\n"))
        """)
}

/// The contract's detector and the live path both ways as `dictate` runs them: pocketsphinx's (the baseline) and
/// Whisper at utterance ends with the shipped prompt.
func shippedRoads(models: String, hearing: String, work: String) throws -> (
    detector: KeywordDetector, pocketsphinx: LiveTranscriber.Options, whisper: LiveTranscriber.Options
) {
    let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
    let prompt = try String(contentsOfFile: models + "/whisper-prompt.en.txt", encoding: .utf8).trimmingCharacters(
        in: .whitespacesAndNewlines)
    let pocketsphinx = LiveTranscriber.Options.hearing(
        detector, spotterPhrases: models + "/command-spotter.en.txt", dictionaryCache: work + "/cache")
    var whisper = pocketsphinx
    whisper.whisper = LiveTranscriber.WhisperHearing(models: HearingModels(folder: hearing), prompt: prompt)
    return (detector, pocketsphinx, whisper)
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
/// A command that needs the box's yes is treated as `unsure` says, `box` answering for `.askedOfTheBox`;
/// `leftForTheBox` is told of each such command unless `unsure` is `.taken`.
func commands(
    in utterances: [LiveUtterance], detector: KeywordDetector, unsure treatment: UnsureCommands = .leftOut,
    box: ((KeywordMatch, LiveUtterance) throws -> Bool)? = nil,
    leftForTheBox: (KeywordMatch) -> Void = { _ in }
) rethrows -> [KeywordMatch] {
    var fired: [KeywordMatch] = []
    for utterance in utterances where !utterance.text.isEmpty {
        // As the dictation takes it: the words the utterance ends on at a pause (`LiveUtterance.endingCommand`).
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
