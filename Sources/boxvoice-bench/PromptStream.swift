import BoxVoiceAudio
import BoxVoiceKeywords
import BoxVoiceLive
import Foundation

/// Real (or held-out) prompts listed as "file<TAB>text" lines, played back to back 0.3 s apart as one stream of
/// keyword-free speech. A prompt whose text holds a command is no negative: it is left out, and counted, unless the
/// list is of sentences that use command words inside them (`commandWordsInside`), where not one may act.
struct PromptStream {
    var audio: [Float] = []
    /// The texts of the prompts kept, in order (empty where the list has none).
    var texts: [String] = []
    /// Where each prompt kept lies in `audio`, in order.
    var prompts: [Range<Int>] = []
    var leftOut = 0

    /// nil when there is no such list. `seconds`: stop once the stream is that long (nil: the whole list).
    init?(
        list: String, folder: String, detector: KeywordDetector, seconds: Double? = nil,
        commandWordsInside: Bool = false
    ) throws {
        guard let text = try? String(contentsOfFile: list, encoding: .utf8) else { return nil }
        let gap = [Float](repeating: 0, count: AudioRate.hertz * 3 / 10)
        for line in text.split(separator: "\n") {
            if let seconds, Double(audio.count) >= seconds * AudioRate.perSecond { break }
            let entry = line.split(separator: "\t", maxSplits: 1).map(String.init)
            let said = entry.count > 1 ? entry[1] : ""
            if !commandWordsInside, !said.isEmpty, detector.detect(said) != nil { leftOut += 1; continue }
            let prompt = try WAVCapturePCM.load(folder + "/" + entry[0])
            prompts.append(audio.count..<audio.count + prompt.count)
            audio += prompt + gap
            texts.append(said)
        }
    }
}

/// The room as `RoomNoise` judges it through a 48 kHz stream, frame by frame as the live path judges it: the share of
/// the time the front end (setting `front-end` auto) cleans what the recognizers hear (0: they hear the raw audio
/// throughout, so the decode is the raw one), and each frame's last signal-to-noise ratio (to see how far the noisy
/// and quiet rooms lie from the line).
func roomJudgements(_ samples: [Float]) -> (noisy: Double, ratios: [Double]) {
    var room = RoomNoise()
    var noisy = 0, frames = 0
    var ratios: [Double] = []
    for start in stride(from: 0, to: samples.count - 959, by: 960) {
        var sum = 0.0
        for sample in samples[start..<start + 960] { sum += Double(sample) * Double(sample) }
        room.add(frameLevel: (sum / 960).squareRoot())
        frames += 1
        if room.cleans { noisy += 1 }
        if let ratio = room.signalToNoise { ratios.append(ratio) }
    }
    return (frames == 0 ? 0 : Double(noisy) / Double(frames), ratios)
}

/// How `InputBand` judges a 48 kHz stream as the live path hears it (16 kHz): the share of its time judged
/// band-limited, and each judgement's share of energy above the cutoff.
func bandJudgements(_ samples: [Float]) throws -> (narrow: Double, shares: [Double]) {
    let heard = try SpeechConversion.recognizerSamples(from: samples, rate: AudioRate.hertz)
    var band = InputBand()
    var narrow = 0, frames = 0
    var shares: [Double] = []
    for start in stride(from: 0, to: heard.count - 319, by: 320) {
        band.add(frame: heard[start..<start + 320])
        frames += 1
        if band.isNarrow {
            narrow += 1
            if ProcessInfo.processInfo.environment["BENCH_SHOW_BAND"] != nil, frames % 50 == 0 {
                FileHandle.standardError.write(Data("band-limited at \(Double(frames) * 0.02) s\n".utf8))
            }
        }
        if let share = band.highShare { shares.append(share) }
    }
    return (frames == 0 ? 0 : Double(narrow) / Double(frames), shares)
}

/// `boxvoice-bench room`: the share of each real-speech stream (and of each degraded clip set) the front end would
/// clean, and the spread of the signal-to-noise ratio it judges by (percentiles over 20 ms frames).
func benchRoom(samples: String, real: String, work: String, languages: [String]) throws {
    let detector = try KeywordDetector(contentsOf: samples + "/../Models/speech-keywords.en.txt")
    func spread(_ ratios: [Double]) -> String {
        let sorted = ratios.sorted()
        guard !sorted.isEmpty else { return "no judgement" }
        return [0.0, 0.005, 0.01, 0.02, 0.05, 0.5, 0.95, 0.99, 1.0].map {
            String(format: "p%g %.1f dB", $0 * 100, sorted[Int($0 * Double(sorted.count - 1))])
        }.joined(separator: ", ")
    }
    for language in languages {
        guard let stream = try PromptStream(list: real + "/\(language).tsv", folder: real, detector: detector) else {
            continue
        }
        let judged = roomJudgements(stream.audio)
        print(
            String(
                format: "%@: front end cleans %.1f %% of %.1f min; ", language, 100 * judged.noisy,
                Double(stream.audio.count) / AudioRate.perSecond / 60) + spread(judged.ratios))
        let band = try bandJudgements(stream.audio)
        print(
            String(format: "%@: band-limited %.1f %%; above 5 kHz ", language, 100 * band.narrow) + spread(band.shares))
    }
    let clips = try CommandClip.load(samples: samples, extra: real + "/commands.tsv", real: real)
    for condition in Degradation.all(babbleFrom: real) {
        var noisy = 0.0, seconds = 0.0
        var ratios: [Double] = [], shares: [Double] = []
        var narrow = 0.0
        for clip in clips {
            let audio = try condition.apply(clip.audio, work)
            let judged = roomJudgements(audio)
            noisy += judged.noisy * Double(audio.count) / AudioRate.perSecond
            seconds += Double(audio.count) / AudioRate.perSecond
            ratios += judged.ratios
            let band = try bandJudgements(audio)
            narrow += band.narrow * Double(audio.count) / AudioRate.perSecond
            shares += band.shares
        }
        print(
            String(
                format: "%@: front end cleans %.1f %% of the clips' %.0f s; ", condition.name, 100 * noisy / seconds,
                seconds) + spread(ratios))
        print(
            String(format: "%@: band-limited %.1f %%; above 5 kHz ", condition.name, 100 * narrow / seconds)
                + spread(shares))
    }
}
