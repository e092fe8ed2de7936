import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
import Foundation

/// `boxvoice-bench tune-spotter --models DIR --samples DIR`: runs the command spotter over every clip with all of
/// Models/command-spotter.en.txt's phrases at one threshold after another, and prints, per phrase and threshold,
/// on how many clips it fired rightly (the clip's expected action is the phrase's) and wrongly (any other clip).
/// The thresholds kept in the Models file are chosen from this table (see Models/README.md).
func tuneSpotter(
    models: String, samples: String, phraseFile: String? = nil, each: Bool = false, maxClipSeconds: Double = .infinity,
    exponents: [Int] = [5, 10, 15, 20, 25, 30, 35, 40]
) throws {
    struct Clip: Decodable {
        let file: String
        let expectedAction: String?
    }
    let allClips = try JSONDecoder().decode(
        [Clip].self, from: Data(contentsOf: URL(fileURLWithPath: samples + "/transcripts.json")))
    let loaded = try allClips.map { try WAVCapturePCM.load(samples + "/" + $0.file) }
    let kept = zip(allClips, loaded).filter { Double($0.1.count) / AudioRate.perSecond <= maxClipSeconds }
    let clips = kept.map(\.0)
    let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
    let audio = try kept.map { try SpeechConversion.recognizerSamples(from: $0.1, rate: AudioRate.hertz) }
    let phrases = try String(contentsOfFile: phraseFile ?? models + "/command-spotter.en.txt", encoding: .utf8).split(
        separator: "\n"
    )
    .map { $0.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    .map { String($0.prefix { $0 != "/" }).trimmingCharacters(in: .whitespaces) }
    var right: [String: [Int: Int]] = [:]
    var wrong: [String: [Int: Int]] = [:]
    let work = NSTemporaryDirectory() + "boxvoice-tune-\(getpid())"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }
    // Either all phrases together (as they run), or each alone (its own curve, without competition).
    let groups: [[String]] = each ? phrases.map { [$0] } : [phrases]
    for exponent in exponents {
        for group in groups {
            let list = work + "/phrases-\(exponent).txt"
            try group.map { "\($0) /1e-\(exponent)/" }.joined(separator: "\n").appending("\n").write(
                toFile: list, atomically: true, encoding: .utf8)
            let decoder = try PocketSphinxDecoder(keyphrases: list)
            for (clip, samples) in zip(clips, audio) {
                try decoder.start()
                var fired: Set<String> = []
                for start in stride(from: 0, to: samples.count, by: 1_600) {
                    try decoder.process(Array(samples[start..<min(start + 1_600, samples.count)]))
                    let heard = decoder.hypothesis.trimmingCharacters(in: .whitespaces)
                    if !heard.isEmpty {
                        fired.insert(heard)
                        try decoder.end()
                        try decoder.start()
                    }
                }
                try decoder.end()
                for phrase in fired {
                    let correct = detector.detect(phrase)?.action.rawValue == clip.expectedAction
                    if correct {
                        right[phrase, default: [:]][exponent, default: 0] += 1
                    } else {
                        wrong[phrase, default: [:]][exponent, default: 0] += 1
                    }
                }
            }
        }
    }
    print("| phrase | " + exponents.map { "1e-\($0)" }.joined(separator: " | ") + " |")
    print("|---|" + exponents.map { _ in "---" }.joined(separator: "|") + "|")
    for phrase in phrases {
        let cells = exponents.map { "\(right[phrase]?[$0] ?? 0)/\(wrong[phrase]?[$0] ?? 0)" }
        print("| \(phrase) | " + cells.joined(separator: " | ") + " |")
    }
    print()
    print(
        "Cells: clips where the phrase fired rightly / wrongly, over \(clips.count) "
            + "clips\(each ? ", each phrase spotted alone" : ", all phrases spotted together")."
    )
}
