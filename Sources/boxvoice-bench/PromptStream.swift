import BoxVoiceAudio
import BoxVoiceKeywords
import Foundation

/// Real (or held-out) prompts listed as "file<TAB>text" lines, played back to back 0.3 s apart as one stream of
/// keyword-free speech. A prompt whose text holds a command is no negative: it is left out, and counted.
struct PromptStream {
    var audio: [Float] = []
    /// The texts of the prompts kept, in order (empty where the list has none).
    var texts: [String] = []
    var leftOut = 0

    /// nil when there is no such list.
    init?(list: String, folder: String, detector: KeywordDetector) throws {
        guard let text = try? String(contentsOfFile: list, encoding: .utf8) else { return nil }
        let gap = [Float](repeating: 0, count: 48_000 * 3 / 10)
        for line in text.split(separator: "\n") {
            let entry = line.split(separator: "\t", maxSplits: 1).map(String.init)
            let said = entry.count > 1 ? entry[1] : ""
            if !said.isEmpty, detector.detect(said) != nil { leftOut += 1; continue }
            audio += try WAVCapturePCM.load(folder + "/" + entry[0]) + gap
            texts.append(said)
        }
    }
}
