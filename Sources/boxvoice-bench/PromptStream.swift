import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
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

/// How much of a 48 kHz stream `RoomNoise` judges noisy, frame by frame as the live path judges it: the share of the
/// time the front end (setting `front-end` auto) cleans what the recognizers hear. 0 means they hear the raw audio
/// throughout, so the decode is the raw one.
func noisyShare(_ samples: [Float]) -> Double {
    var room = RoomNoise()
    var noisy = 0, frames = 0
    for start in stride(from: 0, to: samples.count - 959, by: 960) {
        var sum = 0.0
        for sample in samples[start..<start + 960] { sum += Double(sample) * Double(sample) }
        room.add(frameLevel: (sum / 960).squareRoot())
        frames += 1
        if room.cleans { noisy += 1 }
    }
    return frames == 0 ? 0 : Double(noisy) / Double(frames)
}

/// `boxvoice-bench room`: the share of each real-speech stream (and of each degraded clip set) the front end would clean.
func benchRoom(samples: String, real: String, work: String, languages: [String]) throws {
    let detector = try KeywordDetector(contentsOf: samples + "/../Models/speech-keywords.en.txt")
    for language in languages {
        guard let stream = try PromptStream(list: real + "/\(language).tsv", folder: real, detector: detector) else { continue }
        print(String(format: "%@: front end cleans %.1f %% of %.1f min", language, 100 * noisyShare(stream.audio), Double(stream.audio.count) / 48_000 / 60))
    }
    let clips = try CommandClip.load(samples: samples, extra: real + "/commands.tsv", real: real)
    for condition in Degradation.all(babbleFrom: real) {
        var noisy = 0.0, seconds = 0.0
        for clip in clips {
            let audio = try condition.apply(clip.audio, work)
            noisy += noisyShare(audio) * Double(audio.count) / 48_000
            seconds += Double(audio.count) / 48_000
        }
        print(String(format: "%@: front end cleans %.1f %% of the clips' %.0f s", condition.name, 100 * noisy / seconds, seconds))
    }
}
