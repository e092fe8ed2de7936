import BoxVoiceAudio
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Glibc

/// Issue "spoken commands you can trust on a real microphone": the live path over real recorded speech (no command
/// in it) and over command clips degraded as laptop microphones and rooms degrade them. Each input is decoded once,
/// keeping every spotter hit with its time; the rules that decide which hits count are then applied to the same
/// decode, so the landed rule (baseline) and the new one are compared on identical recognizer output.
func benchRealSpeech(
    models: String, samples: String, real: String, work: String, languages: [String] = ["en", "es", "fr", "it", "ru"],
    clipsToo: Bool = true, spotterPhrases: String? = nil, landed: String? = nil, frontEndToo: Bool = true,
    conditionNames: [String]? = nil, room: String? = nil, onlyNow: Bool = false
) throws {
    let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
    // The thresholds as landed before real speech was measured: the baseline and the earlier columns decode with
    // them; the last column decodes with Models' retuned ones (or --spotter), as boxvoice now runs.
    let landedSpotter = landed ?? models + "/../scripts/command-spotter.landed.en.txt"
    func options(_ spotter: String, _ frontEnd: FrontEndUse, endsAtPause: Bool = false) -> LiveTranscriber.Options {
        var options = LiveTranscriber.Options.hearing(
            detector, spotterPhrases: spotter, dictionaryCache: work + "/cache", frontEnd: frontEnd)
        if !endsAtPause {
            // Every hit is kept with its time, and the rules below decide (sound-alikes included), on the same decode.
            options.spotTails = nil
            options.hearsSoundAlikes = false
            // The earlier columns hear as they did: utterances end at the language model's silence, the spotter
            // keeps its wideband thresholds whatever the microphone's band, and the search is pocketsphinx's own.
            options.commandPauseSeconds = nil
            options.followsInputBand = false
            options.activeHMMLimit = nil
        } else {
            // boxvoice now judges while it decodes, as `dictate` does: a command waiting for the speaker's pause
            // (`CommandHold`) is the one its judgement took. Every hit is still kept with its time.
            if let limit = ProcessInfo.processInfo.environment["BENCH_HMM_LIMIT"] {
                options.activeHMMLimit = Int(limit)  // another search limit tried by hand ("none": pocketsphinx's own)
            }
            if let hold = ProcessInfo.processInfo.environment["BENCH_HOLD"] {
                // Another hold of a spotted command tried by hand: "seconds,resuming speech" or "none".
                let values = hold.split(separator: ",").compactMap { Double($0) }
                options.spottedCommandHold =
                    values.count == 2 ? CommandHold.Rule(seconds: values[0], resumingSpeech: values[1]) : nil
            }
        }
        return options
    }
    let nowHearing = options(landedSpotter, .auto, endsAtPause: true)
    let nowSearch =
        (nowHearing.activeHMMLimit.map { ", at most \($0) HMMs a frame" } ?? "")
        + (nowHearing.spottedCommandHold.map {
            ", a spotted command held \($0.seconds) s unless speech goes on for \($0.resumingSpeech) s"
        } ?? "")
    let retuned = spotterPhrases ?? models + "/command-spotter.en.txt"
    let phrases = try SpotterCalibration(phrasesFile: retuned).phrases.map(\.phrase)
    let soundsLike = try SoundsLikeCommand(
        phrases: phrases, dictionary: PocketSphinxModel.debianEnglish.dictionary,
        tolerance: Double(ProcessInfo.processInfo.environment["BENCH_SOUNDS_LIKE"] ?? "0.25") ?? 0.25)
    // Each column: a decode (0 landed thresholds, 1 the same through the speexdsp front end, 2 retuned thresholds,
    // 3 the front end in a noisy room, 4 the same with utterances also ended at the speaker's pause after a hit and
    // the spotter's thresholds following the microphone's band) and the rule applied to it.
    let decodeOptions = [
        (options(landedSpotter, .off), landedSpotter, "raw"), (options(landedSpotter, .on), landedSpotter, "cleaned"),
        (options(retuned, .off), retuned, "raw"), (options(retuned, .auto), retuned, "cleaned-in-noise"),
        (
            options(retuned, .auto, endsAtPause: true), retuned,
            "cleaned-in-noise, ends at a pause, follows the band, quiet at hits, judged as dictate judges" + nowSearch
        ),
    ]
    let cache = try DecodeCache(work: work)
    // boxvoice's judgement as `dictate` makes it (BENCH_TAILS=command,discarding tries other tails by hand).
    var nowOptions = LiveTranscriber.Options.hearing(detector, spotterPhrases: retuned, dictionaryCache: nil)
    if let tails = ProcessInfo.processInfo.environment["BENCH_TAILS"]?.split(separator: ",").compactMap({ Double($0) }),
        tails.count == 2
    {
        nowOptions.spotTails = SpotTails(command: tails[0], discarding: tails[1])
    }
    let now = try CommandEvidence(nowOptions)
    var rules: [(name: String, rule: CommandRule, decode: Int)] = [
        ("landed (baseline)", .landed, 0), ("boxvoice: command ends its utterance", .current, 0),
        ("same + speexdsp front end", .current, 1),
        ("ends its utterance + sounds like a command", .soundsLike(soundsLike), 0),
        ("same + retuned thresholds", .soundsLike(soundsLike), 2),
        ("same + front end in a noisy room", .soundsLike(soundsLike), 3),
        ("boxvoice now", .judged(now), 4),
    ]
    if !frontEndToo { rules.removeAll { $0.decode == 1 } }
    // `--only-now`: boxvoice as it runs now, without the columns it is compared with (for a quick look, not a table).
    if onlyNow { rules.removeAll { $0.decode != 4 } }
    /// - Parameter nowAudio: what boxvoice now hears instead of `audio` (a clip with the room after it).
    func decodes(_ audio: [Float], nowAudio: [Float]? = nil) throws -> [(
        utterances: [LiveUtterance], cpuSeconds: Double
    )] {
        try decodeOptions.indices.map { index in
            guard frontEndToo || index != 1, !onlyNow || index == 4 else { return ([], 0) }
            let (options, phrases, hearing) = decodeOptions[index]
            return try cache.decode(
                index == 4 ? nowAudio ?? audio : audio, options: options, phrasesFile: phrases, hearing: hearing)
        }
    }

    // Real speech: every prompt of each language joined into one stream.
    var realRows: [String] = []
    var wer: (landed: Double, words: Int)?
    var rtf: [Double] = []
    var rtfCleaned: [Double] = []
    var werCleaned = 0.0
    var werNow = 0.0
    var rtfNow: [Double] = []
    var rtfStreams: [String] = []
    var falseTotals: [String: Int] = [:]
    var totalHours = 0.0
    for language in languages {
        guard let prompts = try PromptStream(list: real + "/\(language).tsv", folder: real, detector: detector) else {
            continue
        }
        // In a room (`--room`): the whole stream degraded as the clips are, e.g. pink noise under every prompt.
        let placed = try room.map { try Degradation.named($0, babbleFrom: real).apply(prompts.audio, work) }
        let stream = placed ?? prompts.audio, reference = prompts.texts, excluded = prompts.leftOut
        let hours = Double(stream.count) / AudioRate.perSecond / 3_600
        let all = try decodes(stream)
        let decoded = all[2]
        rtf.append(decoded.cpuSeconds / (hours * 3_600))
        rtfCleaned.append(all[1].cpuSeconds / (hours * 3_600))
        rtfNow.append(all[4].cpuSeconds / (hours * 3_600))
        rtfStreams.append(
            language + (onlyNow ? "" : String(format: " %.2f raw /", rtf.last!))
                + String(format: " %.2f now", rtfNow.last!))
        var cells: [String] = []
        for (name, rule, decode) in rules {
            let fired = rule.commands(in: all[decode].utterances, detector: detector)
            cells.append(String(format: "%d (%.1f/h)", fired.count, Double(fired.count) / hours))
            falseTotals[name, default: 0] += fired.count
            FileHandle.standardError.write(
                Data(
                    ("false commands on \(language), \(name): "
                        + fired.map { "\($0.action.rawValue) '\($0.phrase)' at \(Int($0.at)) s" }.joined(
                            separator: "; ") + "\n").utf8))
        }
        totalHours += hours
        realRows.append(
            "| \(language)\(room.map { ", \($0)" } ?? "") (\(String(format: "%.1f", hours * 60)) min, "
                + "\(reference.count) prompts\(excluded > 0 ? ", \(excluded) holding a command left out" : "")) | "
                + "\(cells.joined(separator: " | ")) |"
        )
        if language == "en" {
            let hypothesis = decoded.utterances.map(\.recognized).joined(separator: " ")
            let refWords = WordError.words(reference.joined(separator: " "))
            wer = (WordError.rate(reference: refWords, hypothesis: WordError.words(hypothesis)), refWords.count)
            werCleaned = WordError.rate(
                reference: refWords,
                hypothesis: WordError.words(all[1].utterances.map(\.recognized).joined(separator: " ")))
            werNow = WordError.rate(
                reference: refWords,
                hypothesis: WordError.words(all[4].utterances.map(\.recognized).joined(separator: " ")))
        }
    }

    // Command clips under each condition.
    let clips = try CommandClip.load(samples: samples, extra: real + "/commands.tsv", real: real)
    let conditions = clipsToo ? Degradation.matching(conditionNames, babbleFrom: real) : []
    var clipRows: [String] = []
    for condition in conditions {
        var recall = [Int](repeating: 0, count: rules.count)
        var wrong = [Int](repeating: 0, count: rules.count)
        for clip in clips {
            let audio = try condition.apply(clip.audio, work)
            // The microphone runs on after a command: boxvoice now hears each clip followed by the room, so a
            // command waiting for the speaker's pause (`CommandHold`) is decided by what follows, not by the clip's
            // end.
            let all = try decodes(
                audio,
                nowAudio: try condition.apply(
                    clip.audio + [Float](repeating: 0, count: Int(clipRoomAfter * AudioRate.perSecond)), work))
            if ProcessInfo.processInfo.environment["BENCH_SHOW_DECODES"] != nil {
                // What the retuned decode heard, to see why a clip was missed or mistaken.
                let heard = all[rules.last!.decode].utterances.map { decoded in
                    // Marked: the hits boxvoice's judgement writes into the text.
                    let utterance = now.utterance(
                        recognized: decoded.recognized, hits: decoded.spots.map(\.hit),
                        end: decoded.end, narrowband: decoded.narrowband, speechWentOn: decoded.speechWentOn)
                    let wentOn = utterance.speechWentOn ? " (speech went on)" : ""
                    return
                        "[\(String(format: "%.1f", utterance.end))]\(wentOn) \(utterance.recognized)"
                        + utterance.spots.map {
                            let quiet = $0.quietBefore.map { String(format: " quiet %.2f", $0) } ?? ""
                            return ($0.accepted ? " accepted" : "")
                                + " {\($0.phrase) @\(String(format: "%.1f", $0.end))\(quiet)"
                                + " after \(quietAfter(audio, $0.end).map { String(format: "%.2f", $0) } ?? "end")}"
                        }.joined()
                }
                let acted = rules.map { rule in
                    rule.rule.commands(in: all[rule.decode].utterances, detector: detector).first?.action.rawValue
                        ?? "-"
                }
                FileHandle.standardError.write(
                    Data(
                        ("heard: \(condition.name), \(clip.name) (\(clip.expected.rawValue)) → "
                            + "\(acted.joined(separator: ",")): \(heard.joined(separator: " / "))\n")
                            .utf8))
            }
            for (index, (name, rule, decode)) in rules.enumerated() {
                let fired = rule.commands(in: all[decode].utterances, detector: detector).first?.action
                if fired == clip.expected {
                    recall[index] += 1
                } else if let fired {
                    wrong[index] += 1
                    FileHandle.standardError.write(
                        Data(
                            ("wrong: \(condition.name), \(clip.name), \(name): \(fired.rawValue) for "
                                + "\(clip.expected.rawValue)\n")
                                .utf8))
                }
            }
        }
        clipRows.append(
            "| \(condition.name) | "
                + (0..<rules.count).map {
                    "\(recall[$0])/\(clips.count) (\(Int((100 * Double(recall[$0]) / Double(clips.count)).rounded())) "
                        + "%), \(wrong[$0]) wrong"
                }.joined(separator: " | ") + " |")
    }

    // Only the figures of decodes this run made (`--no-front-end` skips the always-cleaned one, `--only-now` all but
    // now's).
    let made = [!onlyNow, frontEndToo && !onlyNow, true]
    func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(values.count, 1)) }
    func figures(_ values: [(Double, String)], format: String) -> String {
        zip(made, values).filter(\.0).map { String(format: format, $0.1.0) + " " + $0.1.1 }.joined(separator: ", ")
    }
    let separator = "|---|" + rules.map { _ in "---|" }.joined()
    if realRows.count > 1 {
        realRows.append(
            "| **all (\(String(format: "%.1f", totalHours * 60)) min)** | "
                + rules.map { rule in
                    let count = falseTotals[rule.name] ?? 0
                    return String(format: "**%d (%.1f/h)**", count, Double(count) / totalHours)
                }.joined(separator: " | ") + " |")
    }
    let shipped = rules.last.map { falseTotals[$0.name] ?? 0 } ?? 0
    let headline = String(
        format: "`recognizer pocketsphinx`: %d false commands in %.1f min of real speech, word error %.1f %%", shipped,
        totalHours * 60, 100 * werNow)
    let werFigures = figures(
        [
            (100 * (wer?.landed ?? 0), "raw (the rules and thresholds change which spotter hits count, not the words)"),
            (100 * werCleaned, "through the front end always"),
            (
                100 * werNow,
                "as boxvoice now hears (front end in a noisy room, utterances also ended at a pause after a hit)"
            ),
        ], format: "%.1f %%")
    let rtfFigures = figures(
        [
            (mean(rtf), "raw"), (mean(rtfCleaned), "through the front end always"),
            (mean(rtfNow), "as boxvoice now hears"),
        ], format: "%.2f")
    print(
        """
        ### Spoken commands on real speech and degraded audio

        <!-- headline: \(headline) -->

        Real recorded speech from Debian's Asterisk prompt packages, fetched at bench time (not committed):
        `asterisk-core-sounds-en-g722` (US English, one speaker, with the texts of `asterisk-core-sounds-en`),
        `asterisk-core-sounds-es-g722`, `-fr-g722`, `-it-g722` and `-ru-g722` (four more speakers, one a man; CC-BY-SA \
        3.0,
        Digium: Allison Smith, June Wallack, Carlo, and the Russian IVR voice), 16 kHz G.722 decoded with ffmpeg. Each
        language's prompts play back to back (0.3 s apart) as one stream through the live path (`LiveTranscriber`:
        pocketsphinx language model + command spotter, as `dictate` runs it) and the message logic of a dictation (each
        command ends the message). None of it is a command, so every command is false. The retuned thresholds were \
        chosen
        on en, es and fr (`boxvoice-bench spotter-sweep`); it and ru are held out. The last column is boxvoice as it \
        runs
        now: retuned thresholds, speexdsp's front end only while the room is noisy (`RoomNoise`: a signal-to-noise ratio
        under 35 dB over the last 10 s), an utterance holding a spotter hit also ended by the speaker's 0.5 s pause
        (`SpeakerPause`), while the microphone is judged band-limited (`InputBand`) the spotter list's narrowband
        thresholds and sound-alikes that count a lost fricative at half a phone, and `CommandEvidence`'s judgement (the
        language model's own command wins over a hit naming another; a hit counts within 1.0 s of its utterance's end, \
        0.8 s for erase and cancel; sound-alike endings),
        made while it hears as `dictate` makes it, and a command only the spotter heard held until the speaker has \
        stayed
        quiet 2 s after it — text if speech goes on first (`CommandHold`); it hears each command clip followed by 3 s \
        of its room.
        Every column acts on a command only the spotter heard without the box's second opinion (as when the box does not
        answer in time): the local decision alone.

        | real speech, no command in it | false commands, \(rules.map(\.name).joined(separator: " | ")) |
        \(separator)
        \(realRows.joined(separator: "\n"))

        Live word error rate on the English stream\(room.map { " in \($0)" } ?? "") (language model text vs the \
        prompts' texts, \(wer?.words ?? 0) words):
        \(werFigures)
        Real-time factor (CPU s per audio s, release build) on the real speech: \(rtfFigures); per stream:
        \(rtfStreams.joined(separator: ", ")).

        Command clips: the \(clips.count) command clips (\(clips.filter { $0.unseen }.count) of them in a voice and \
        sentences the project's tuning never saw:
        festival's ked voice, made at bench time), each degraded with fixed seeds: noise mixed at the given SNR (white \
        and pink
        generated, babble from four overlapping real prompts), sox `reverb`, a 200–4000 Hz telephone band, and a \
        laptop chain
        (light reverb, 150–7000 Hz band, pink noise at 15 dB SNR, −10 dB). Recall: the expected action fired first; \
        wrong:
        another action fired first.

        | condition | \(rules.map(\.name).joined(separator: " | ")) |
        \(separator)
        \(clipRows.joined(separator: "\n"))

        """)
}

extension SpottedPhrase {
    /// The hit a stored decode's spot was judged from, to judge it again.
    var hit: SpotterHit { SpotterHit(phrase: phrase, end: end, quietBefore: quietBefore) }
}

/// Seconds of the room after each command clip as boxvoice now hears it: more than `CommandHold.Rule.measured` waits.
let clipRoomAfter = 3.0

/// Which of the live path's evidence makes a command: the rule the landed code used, and the one boxvoice uses now.
enum CommandRule {
    /// Every spotter hit the language model's text lacks is written into the text.
    case landed
    /// A hit must end its utterance (within 1 s), as the rule first landed.
    case current
    /// `current`, and an utterance whose last words sound like a command phrase ends with that phrase.
    case soundsLike(SoundsLikeCommand)
    /// boxvoice's own judgement (`CommandEvidence`, as `LiveTranscriber` makes it) applied to the stored decode.
    case judged(CommandEvidence)

    /// The earlier columns' one tail for every phrase, as the rule first landed.
    var spotTailSeconds: Double? {
        switch self {
        case .landed, .judged: nil
        case .current, .soundsLike: 1.0
        }
    }

    /// The commands a dictation acts on, in order, over decoded utterances.
    func commands(in utterances: [LiveUtterance], detector: KeywordDetector) -> [(
        action: KeywordAction, phrase: String, at: Double
    )] {
        var fired: [(KeywordAction, String, Double)] = []
        var message = SpokenMessage()
        for utterance in utterances {
            if let found = message.hear(
                text(of: utterance, after: message.text, detector: detector), detector: detector)
            {
                fired.append((found.action, found.matchedPhrase, utterance.end))
            }
        }
        return fired
    }

    /// What the dictation sees of `utterance` under this rule, with `message` heard before it.
    private func text(of utterance: LiveUtterance, after message: String, detector: KeywordDetector) -> String {
        if case .judged(let evidence) = self {
            return evidence.utterance(
                recognized: utterance.recognized, hits: utterance.spots.map(\.hit), end: utterance.end,
                narrowband: utterance.narrowband, speechWentOn: utterance.speechWentOn
            ).text
        }
        var text = utterance.recognized
        for spot in utterance.spots {
            let endsUtterance = spotTailSeconds.map { utterance.end - spot.end <= $0 } ?? true
            let already =
                detector.detect(spot.phrase).map { spotted in detector.detect(text)?.action == spotted.action } ?? true
            if endsUtterance, !already { text = text.isEmpty ? spot.phrase : text + " " + spot.phrase }
        }
        if !text.isEmpty, case .soundsLike(let matcher) = self, detector.detect(appending: text, to: message) == nil,
            let phrase = matcher.match(text)
        {
            text += " " + phrase
        }
        return text
    }
}

/// One decode of a whole input, fed in 100 ms chunks as a microphone would deliver it.
enum LiveDecode {
    static func run(_ samples: [Float], options: LiveTranscriber.Options) throws -> (
        utterances: [LiveUtterance], cpuSeconds: Double, whisper: WhisperDecodes?
    ) {
        let before = processCPUSeconds()
        let transcriber = try LiveTranscriber(options: options)
        // Faster than real time, each utterance decided as it ends: every one in Whisper's words.
        let utterances = try transcriber.hearWhole(samples, decidingEach: true)
        return (utterances, processCPUSeconds() - before, transcriber.whisperDecodes)
    }
}

func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}

/// Word error rate: (substitutions + deletions + insertions) / reference words.
enum WordError {
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
    }

    static func rate(reference: [String], hypothesis: [String]) -> Double {
        guard !reference.isEmpty else { return 0 }
        var previous = Array(0...hypothesis.count)
        var current = [Int](repeating: 0, count: hypothesis.count + 1)
        for (i, word) in reference.enumerated() {
            current[0] = i + 1
            for j in 0..<hypothesis.count {
                current[j + 1] = min(previous[j] + (word == hypothesis[j] ? 0 : 1), previous[j + 1] + 1, current[j] + 1)
            }
            swap(&previous, &current)
        }
        return Double(previous[hypothesis.count]) / Double(reference.count)
    }
}

/// How long the speaker stays quiet (`SpeakerPause`, heard on the audio as it is) after `seconds`: the quiet under
/// way then, or the first to begin within 1 s; nil when it lasts to the end of the audio. For the decode dump:
/// whether speech resumes right after a spotter hit.
func quietAfter(_ audio: [Float], _ seconds: Double) -> Double? {
    var pause = SpeakerPause()
    let frame = 960, at = Int(seconds * 50)
    var index = 0, quietFrom: Int?
    for start in stride(from: 0, to: audio.count - frame + 1, by: frame) {
        var sum = 0.0
        for sample in audio[start..<start + frame] { sum += Double(sample * 32_768) * Double(sample * 32_768) }
        pause.add(frameLevel: (sum / Double(frame)).squareRoot())
        if index >= at {
            if pause.quietSeconds > 0 {
                quietFrom = quietFrom ?? index
            } else if let from = quietFrom {
                return Double(index - from) * 0.02
            } else if index > at + 50 {
                return 0
            }
        }
        index += 1
    }
    return nil
}
