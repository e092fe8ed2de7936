import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
import Foundation

/// `boxvoice-bench hearing-probe`: one setting of the utterance-end road on part of the bench's audio, for choosing
/// between settings before the whole `hearing` table is run on the one chosen: word error and CPU on a prompt list,
/// and the held-out clips under the conditions named, each miss printed with what was heard. Tables are not written
/// from it.
func probeHearing(
    models: String, real: String, work: String, hearing: String, heldOut: String, list: String?,
    search: WhisperModel.Search, conditionNames: [String], threads: Int, context: Double?,
    verbose: Bool, spotter: Bool = true, activeHMMLimit: Int? = nil,
    decision: CommandDecision? = nil, englishFloor: Float?? = nil, ownLanguageBelow: Float?? = nil,
    accentBelow: Float?? = nil,
    englishLookalikes: Set<String>? = nil, contextUnsureBelow: Float?? = nil, listCondition: String? = nil,
    endings: LiveTranscriber.WhisperHearing.Endings?? = nil,
    commandWordsInside: Bool = false, usesPrompt: Bool = true
) throws {
    let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
    let prompt = try String(contentsOfFile: models + "/whisper-prompt.en.txt", encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines)
    // The conditions made with sox write their files there.
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    var options = LiveTranscriber.Options.hearing(
        detector, spotterPhrases: models + "/command-spotter.en.txt",
        dictionaryCache: work + "/cache")
    // `--no-prompt`: Whisper hears without the command phrases before each utterance (the prompt's ablation).
    options.whisper = LiveTranscriber.WhisperHearing(
        models: HearingModels(folder: hearing), prompt: usesPrompt ? prompt : nil)
    options.whisper?.deadline = 60
    options.whisper?.search = search
    options.whisper?.threads = threads
    if let context { options.whisper?.context.seconds = context }
    if let contextUnsureBelow { options.whisper?.context.unsureBelow = contextUnsureBelow }
    if !spotter { options.spotterPhrases = nil }
    if let decision { options.whisper?.decision = decision }
    if let endings { options.whisper?.endings = endings }
    if let englishFloor { options.whisper?.englishFloor = englishFloor }
    if let ownLanguageBelow { options.whisper?.ownLanguageBelow = ownLanguageBelow }
    if let accentBelow { options.whisper?.accentBelow = accentBelow }
    if let englishLookalikes { options.whisper?.englishLookalikes = englishLookalikes }
    if let activeHMMLimit { options.activeHMMLimit = activeHMMLimit }
    // Tried by hand: BENCH_SECOND_PASS=on or off sets pocketsphinx's flat-lexicon pass; BENCH_ROAD=pocketsphinx hears
    // without Whisper, as boxvoice does when told to or when the hearing parts are missing.
    let environment = ProcessInfo.processInfo.environment
    if let pass = environment["BENCH_SECOND_PASS"] { options.languageModelSecondPass = pass == "on" }
    if environment["BENCH_ROAD"] == "pocketsphinx" { options.whisper = nil }
    settingsTriedByHand(&options)
    let box = try BoxOpinion(whisper: HearingModels(folder: hearing).whisper, detector: detector, verbose: verbose)
    // One set of conditions for the prompts and the clips: the babble's talkers are read once.
    let conditions = hearingConditions(real)
    if let list,
        var stream = try PromptStream(
            list: list, folder: real, detector: detector, commandWordsInside: commandWordsInside)
    {
        // The prompts in a room (`--list-condition`): what the prompt makes Whisper write over noisy speech.
        if let listCondition {
            guard let condition = conditions.first(where: { $0.name.contains(listCondition) }) else {
                throw BenchFailure(message: "no condition named like '\(listCondition)'")
            }
            stream.audio = try condition.apply(stream.audio, work, 100)
            say("prompts heard through \(condition.name)")
        }
        let heard = try LiveDecode.run(stream.audio, options: options)
        let reference = WordError.words(spokenNumbers(stream.texts.joined(separator: " ")))
        let hypothesis = WordError.words(spokenNumbers(heard.utterances.map(\.text).joined(separator: " ")))
        let seconds = Double(stream.audio.count) / AudioRate.perSecond
        var waiting: [KeywordMatch] = []
        let fired = commands(in: heard.utterances, detector: detector, leftForTheBox: { waiting.append($0) })
        let withBox = try commands(
            in: heard.utterances, detector: detector, unsure: .askedOfTheBox,
            box: { try box.confirms($0, $1, in: stream.audio) })
        // Each command Whisper wrote, taken or left unsure, with the utterance it ended and how it was weighed.
        for utterance in heard.utterances where utterance.commandWeighing != nil {
            say(
                "  command at \(String(format: "%.1f", utterance.end)) s\(standing(utterance)), "
                    + "weighed \(weights(utterance))"
                    + ": \(utterance.text)"
                    + spotted(utterance))
        }
        if let decodes = heard.whisper { say("  Whisper's decodes: \(describe(decodes, of: seconds))") }
        if verbose {
            for utterance in heard.utterances {
                say("  \(utterance.heardBy) \(String(format: "%.1f", utterance.end)): \(utterance.text)")
            }
            say("  reference: \(stream.texts.joined(separator: " "))")
        }
        say(
            String(
                format: "prompts: %.1f min, word error %.1f %%, %.2f CPU-s per audio second, %d false command(s) %@"
                    + ", %d left unsure, %d left for the box %@; with the box's second opinion %d false command(s) %@",
                seconds / 60, 100 * WordError.rate(reference: reference, hypothesis: hypothesis),
                heard.cpuSeconds / seconds, fired.count, "\(fired.map(\.matchedPhrase))",
                heard.utterances.filter(\.commandIsUnsure).count, waiting.count, "\(waiting.map(\.matchedPhrase))",
                withBox.count, "\(withBox.map(\.matchedPhrase))"))
    }
    let clips = try heldOutClips(heldOut)
    for condition in conditions
    where conditionNames.contains(where: { condition.name.contains($0) }) {
        var right = 0, wrong = 0, cpu = 0.0
        var rightWithBox = 0, wrongWithBox = 0
        var weighed: [String] = []
        for (index, clip) in clips.enumerated() {
            let audio = try condition.apply(clip.audio, work, UInt64(index))
            let heard = try LiveDecode.run(audio, options: options)
            cpu += heard.cpuSeconds
            let fired = commands(in: heard.utterances, detector: detector)
            if fired.first?.action == clip.expected { right += 1 } else if !fired.isEmpty { wrong += 1 }
            let withBox = try commands(
                in: heard.utterances, detector: detector, unsure: .askedOfTheBox,
                box: { try box.confirms($0, $1, in: audio) })
            if withBox.first?.action == clip.expected {
                rightWithBox += 1
            } else if !withBox.isEmpty {
                wrongWithBox += 1
            }
            weighed += heard.utterances.filter { $0.commandWeighing != nil }.map {
                weights($0) + ($0.commandIsUnsure ? "u" : "")
            }
            for own in heard.whisper?.inOwnLanguage ?? [] where verbose {
                say(
                    "  in its own language in \(clip.name) (\(own.language), " + String(format: "%.3f", own.sureness)
                        + ")")
            }
            for plain in heard.whisper?.inEnglishWithoutPrompt ?? [] where verbose {
                say(
                    "  in English without the prompt in \(clip.name) (\(plain.holds ? "holds" : "lacks") it, "
                        + String(format: "%.3f", plain.sureness) + ")")
            }
            for gain in heard.whisper?.rewritten ?? [] where verbose {
                say("  ending rewritten in \(clip.name), gain " + String(format: "%.2f", gain))
            }
            // Each command Whisper wrote in the clip, where, and whether it is the clip's: what a rule on the
            // weights would take or leave.
            for utterance in heard.utterances where verbose && utterance.commandWeighing != nil {
                let action = detector.detect(utterance.text)?.action
                say(
                    "  command in \(clip.name) at \(String(format: "%.1f", utterance.end)) s"
                        + "\(standing(utterance)), weighed \(weights(utterance)), "
                        + "\(action == clip.expected ? "the clip's" : "another"): \(utterance.text)"
                        + spotted(utterance))
            }
            if fired.first?.action != clip.expected {
                let texts = heard.utterances.map { ($0.commandIsUnsure ? "(unsure) " : "") + $0.text }
                    .joined(separator: " | ")
                say("  miss \(clip.name): \(fired.map(\.matchedPhrase)) in '\(texts)'")
            }
        }
        say(
            "\(condition.name): \(right)/\(clips.count), \(wrong) wrong, \(String(format: "%.1f", cpu)) CPU-s;"
                + " with the box's second opinion \(rightWithBox)/\(clips.count), \(wrongWithBox) wrong")
        // Every command Whisper wrote in these clips, taken or not ("u": left unsure).
        say("  sureness/without the prompt/English: " + weighed.joined(separator: " "))
    }
}

/// How a command was weighed: sureness, sureness without the prompt, how likely its utterance is English ("-": not
/// weighed so), and in brackets the language Whisper found likeliest when not English.
private func weights(_ utterance: LiveUtterance) -> String {
    let sure = utterance.commandWeighing.map(\.sureness).map { String(format: "%.2f", $0) } ?? "-"
    let english = utterance.commandWeighing?.english.map { String(format: "%.2g", $0) } ?? "-"
    let language = utterance.commandWeighing?.language.map { $0 == "en" ? "" : "(\($0))" } ?? ""
    let score = utterance.commandWeighing?.score.map { String(format: "%.2f", $0) } ?? "-"
    return "\(sure)/\(english)\(language) score \(score)"
}

/// How a command Whisper wrote stands, as the probe marks it: left for the box, confirmed by the spotter, or (by
/// itself) nothing.
private func standing(_ utterance: LiveUtterance) -> String {
    utterance.commandIsUnsure ? " (unsure)" : ""
}

/// What the spotter fired on in an utterance, each hit with how long before the utterance's end ("" for none).
private func spotted(_ utterance: LiveUtterance) -> String {
    guard !utterance.spots.isEmpty else { return "" }
    let hits = utterance.spots.map { "\($0.phrase) \(String(format: "%.1f", $0.end - utterance.end)) s" }
    return " [spotted: \(hits.joined(separator: ", "))]"
}

/// A line on stdout at once (not buffered): a probe cut short still says what it measured.
private func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// Tried by hand (the `hearing` latency and `hearing-probe`): BENCH_CUTTING=whole decodes each utterance whole, after
/// the full `endSilence` (the cutting before the settled decode and the long-utterance end); BENCH_CUTTING=settled
/// keeps the settled decode without the long-utterance end.
func settingsTriedByHand(_ options: inout LiveTranscriber.Options) {
    switch ProcessInfo.processInfo.environment["BENCH_CUTTING"] {
    case "whole":
        options.whisper?.cutting.settle = .infinity
        options.whisper?.cutting.long = nil
    case "settled": options.whisper?.cutting.long = nil
    default: break
    }
    // And the context's length (`BENCH_CONTEXT=SECONDS`), for the latency run as for the probe's `--context`.
    if let seconds = ProcessInfo.processInfo.environment["BENCH_CONTEXT"].flatMap(Double.init) {
        options.whisper?.context.seconds = seconds
    }
}

/// Where Whisper's work went: each kind of decode, how many, and the seconds of audio they were given.
func describe(_ decodes: WhisperDecodes, of seconds: Double) -> String {
    func tally(_ name: String, _ tally: WhisperDecodes.Tally) -> String {
        "\(name) \(tally.count) (\(String(format: "%.0f", tally.seconds)) s)"
    }
    return [
        tally("started when settled", decodes.speculative) + ", \(decodes.settled) used, \(decodes.dropped) dropped",
        tally("at the end", decodes.atEnd), tally("with context", decodes.context),
        "\(decodes.languageChecks) language checks",
        tally("language judged", decodes.language), tally("in the language heard", decodes.ownLanguage),
        String(format: "%.0f s given for %.0f s of audio (%.2f×)", decodes.seconds, seconds, decodes.seconds / seconds),
        "\(decodes.rewritten.count) endings rewritten"
            + decodes.rewritten.map { " [\(String(format: "%.2f", $0))]" }.joined(),
        tally("accent checks", decodes.accent)
            + decodes.inEnglishWithoutPrompt.map {
                " [\($0.holds ? "holds" : "lacks") \(String(format: "%.3f", $0.sureness))]"
            }.joined(),
        "\(decodes.inOwnLanguage.count) written in their own language"
            + decodes.inOwnLanguage.map { " [\($0.language) \(String(format: "%.3f", $0.sureness))]" }.joined(),
    ].joined(separator: "; ")
}
