import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
import Foundation

/// `boxvoice-bench spotter-sweep`: how lenient may the spotter be now that a hit must end its utterance? The language
/// model decodes each input once; the spotter alone decodes it once per threshold scale (every phrase's threshold
/// times 10^-k); its hits are then joined to the language model's utterances as `LiveTranscriber` joins them, and the
/// spoken-commands rule (ends its utterance + sounds like a command) counts false commands on real speech and recall
/// on the degraded clips. For choosing Models/command-spotter.en.txt; the section in BENCHMARKS.md then measures the
/// choice on the real live path.
func sweepSpotter(
    models: String, samples: String, real: String, work: String, scales: [Int], languages: [String],
    conditionNames: [String]? = nil, room: String? = nil
) throws {
    let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
    let defaults = models + "/command-spotter.en.txt"
    let phrases = try SpotterCalibration(phrasesFile: defaults).phrases
    let soundsLike = try SoundsLikeCommand(
        phrases: phrases.map(\.phrase), dictionary: PocketSphinxModel.debianEnglish.dictionary)
    var language = LiveTranscriber.Options.hearing(
        detector, spotterPhrases: nil, dictionaryCache: work + "/cache", frontEnd: .off)
    language.hearsSoundAlikes = false
    let files = try scales.map { scale -> String in
        let scaled = phrases.map { phrase -> SpotterPhrase in
            var copy = phrase
            copy.threshold = "1e-\(SpotterCalibration.exponent(of: phrase.threshold) + scale)"
            return copy
        }
        let file = work + "/sweep-\(scale).txt"
        try SpotterCalibration.render(scaled, header: "sweep \(scale)").write(
            toFile: file, atomically: true, encoding: .utf8)
        return file
    }
    func spotterOnly(_ file: String) -> LiveTranscriber.Options {
        var options = LiveTranscriber.Options(spotterPhrases: file)
        options.useLanguageModel = false
        return options
    }
    func joined(_ heard: [LiveUtterance], _ hits: [LiveUtterance]) -> [LiveUtterance] {
        var out = heard.map { LiveUtterance(text: $0.recognized, recognized: $0.recognized, spots: [], end: $0.end) }
        for hit in hits {
            let spot = SpottedPhrase(phrase: hit.text, end: hit.end, accepted: false)
            if let index = out.firstIndex(where: { $0.end >= hit.end }) {
                out[index].spots.append(spot)
            } else {
                out.append(LiveUtterance(text: "", recognized: "", spots: [spot], end: hit.end))
            }
        }
        return out
    }
    let rule = CommandRule.soundsLike(soundsLike)
    var falseCounts = [Int](repeating: 0, count: scales.count)
    var hours = 0.0
    for name in languages {
        guard let prompts = try PromptStream(list: real + "/\(name).tsv", folder: real, detector: detector)?.audio
        else { continue }
        // In a room (`--room`): the whole stream degraded as the clips are.
        let stream = try room.map { try Degradation.named($0, babbleFrom: real).apply(prompts, work) } ?? prompts
        hours += Double(stream.count) / AudioRate.perSecond / 3_600
        let heard = try LiveDecode.run(stream, options: language).utterances
        for (index, file) in files.enumerated() {
            let fired = rule.commands(
                in: joined(heard, try LiveDecode.run(stream, options: spotterOnly(file)).utterances), detector: detector
            )
            falseCounts[index] += fired.count
            FileHandle.standardError.write(
                Data(
                    ("sweep \(scales[index]) \(name): "
                        + "\(fired.map { "\($0.action.rawValue) '\($0.phrase)' at \(Int($0.at))" })\n")
                        .utf8))
        }
    }
    let clips = try CommandClip.load(samples: samples, extra: real + "/commands.tsv", real: real)
    var rows: [String] = []
    for condition in Degradation.matching(conditionNames, babbleFrom: real) {
        var found = [Int](repeating: 0, count: scales.count), wrong = found
        for clip in clips {
            let audio = try condition.apply(clip.audio, work)
            let heard = try LiveDecode.run(audio, options: language).utterances
            for (index, file) in files.enumerated() {
                let fired = rule.commands(
                    in: joined(heard, try LiveDecode.run(audio, options: spotterOnly(file)).utterances),
                    detector: detector
                ).first?.action
                if fired == clip.expected {
                    found[index] += 1
                } else if let fired {
                    wrong[index] += 1
                    FileHandle.standardError.write(
                        Data(
                            ("sweep \(scales[index]) \(condition.name) \(clip.name): \(fired.rawValue) for "
                                + "\(clip.expected.rawValue)\n")
                                .utf8))
                }
            }
        }
        rows.append(
            "| \(condition.name) | "
                + scales.indices.map { "\(found[$0])/\(clips.count), \(wrong[$0]) wrong" }.joined(separator: " | ")
                + " |")
        FileHandle.standardError.write(Data((rows.last! + "\n").utf8))
    }
    print("| thresholds × | " + scales.map { "1e-\($0)" }.joined(separator: " | ") + " |")
    print("|---|" + scales.map { _ in "---" }.joined(separator: "|") + "|")
    print(
        String(format: "| false commands (%.1f h of real speech%@) | ", hours, room.map { ", \($0)" } ?? "")
            + falseCounts.map(String.init).joined(separator: " | ") + " |")
    print(rows.joined(separator: "\n"))
}
