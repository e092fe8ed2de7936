import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Glibc

/// `boxvoice-bench live --models DIR --samples DIR`: keyword recall, false fires and real-time factor of the live
/// path over every clip in Samples/, for the language model alone, the spotter alone, and both.
func benchLive(models: String, samples: String, verbose: Bool) throws {
    struct Clip: Decodable {
        let file: String
        let expectedAction: String?
    }
    let clips = try JSONDecoder().decode(
        [Clip].self, from: Data(contentsOf: URL(fileURLWithPath: samples + "/transcripts.json")))
    let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
    let audio = try clips.map { clip -> [Float] in try WAVCapturePCM.load(samples + "/" + clip.file) }
    let seconds = audio.reduce(0) { $0 + Double($1.count) / AudioRate.perSecond }

    enum Method: String, CaseIterable {
        case languageModel = "language model alone", spotter = "spotter alone", combined = "both (boxvoice)"
    }
    print("### Pocketsphinx's live keywords on the sample clips")
    print()
    print(
        "Every clip in `Samples/` (\(clips.count) clips, \(String(format: "%.0f", seconds)) s) fed through "
            + "`LiveTranscriber` as fast as it"
    )
    print(
        "runs, its commands taken as a dictation takes them (the words an utterance ends on at a pause). Recall: "
            + "clips with a keyword where the expected action"
    )
    print(
        "fired. False fires: an action on a keyword-free clip, or a wrong action. Real-time factor: CPU seconds per "
            + "audio second"
    )
    print("(resampling, both decoders, detection), release build.")
    print()
    print("| method | recall | false fires | real-time factor |")
    print("|---|---|---|---|")
    var details: [String] = []
    var headline = ""
    for method in Method.allCases {
        var options = LiveTranscriber.Options(
            spotterPhrases: method == .languageModel ? nil : models + "/command-spotter.en.txt")
        options.useLanguageModel = method != .spotter
        options.sameCommand = { recognized, phrase in
            guard let spotted = detector.detect(phrase)?.action else { return true }
            return detector.detect(recognized)?.action == spotted
        }
        var hits = 0
        var withKeyword = 0
        var falseFires = 0
        let cpuBefore = processCPUSeconds()
        for (clip, samples) in zip(clips, audio) {
            let utterances = try LiveTranscriber(options: options).hearWhole(samples)
            let text = utterances.map(\.text)
            // As a dictation takes them: the words an utterance ends on at a pause (the spotter's accepted hits are
            // written into them, `CommandEvidence`), the first command ending the message.
            let fired = commands(in: utterances, detector: detector)
                .first?.action.rawValue
            if let expected = clip.expectedAction {
                withKeyword += 1
                if fired == expected { hits += 1 } else if fired != nil { falseFires += 1 }
            } else if fired != nil {
                falseFires += 1
            }
            if verbose {
                details.append(
                    "\(method.rawValue) | \(clip.file) | expected \(clip.expectedAction ?? "none") | fired "
                        + "\(fired ?? "none") | \(text.joined(separator: " / "))"
                )
            }
        }
        let cpu = processCPUSeconds() - cpuBefore
        if method == .combined {
            headline = String(
                format: "pocketsphinx with its spotter (`recognizer pocketsphinx`) on the sample clips: %d/%d "
                    + "commands, %d false, %.2f CPU s per audio s", hits, withKeyword, falseFires, cpu / seconds)
        }
        print(
            String(
                format: "| %@ | %d/%d (%.0f %%) | %d | %.2f |", method.rawValue, hits, withKeyword,
                100 * Double(hits) / Double(max(withKeyword, 1)),
                falseFires, cpu / seconds))
    }
    print()
    print("Aims: recall ≥ 90 %, no false fire, real-time factor ≤ 0.5.")
    print()
    print("<!-- headline: \(headline) -->")
    if verbose { FileHandle.standardError.write(Data((details.joined(separator: "\n") + "\n").utf8)) }
}
