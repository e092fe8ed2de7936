import BoxSim
import BoxVoiceAudio
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation

/// `boxvoice-bench latency`: how soon a spoken command reaches the dictation, on a quiet machine and with the CPU
/// busy in the same run, and what `boxvoice dictate` holds in memory. The held-out clips are fed at the pace they
/// were spoken through the live path as `dictate` runs it (Whisper given its real wait, not a file's).
func benchLatency(
    models: String, real: String, work: String, hearing: String, heldOut: String, boxvoice: String, plot: String?
) throws {
    let roads = try shippedRoads(models: models, hearing: hearing, work: work)
    let detector = roads.detector
    var live = roads.whisper
    settingsTriedByHand(&live)
    let clips = try heldOutClips(heldOut)
    let clipSeconds = clips.reduce(0.0) { $0 + Double($1.audio.count) / AudioRate.perSecond }

    let cpuBefore = processCPUSeconds()
    let quiet = try LatencyRun(clips: clips, options: live, detector: detector)
    let realTimeFactor = (processCPUSeconds() - cpuBefore) / clipSeconds
    let hogCount = 2 * ProcessInfo.processInfo.activeProcessorCount
    let hogs = CPUHogs(count: hogCount)
    let busy = try LatencyRun(clips: clips, options: live, detector: detector)
    hogs.stop()
    if let plot {
        let lines = quiet.seconds.map { "quiet\t\($0)" } + busy.seconds.map { "busy\t\($0)" }
        try (lines.joined(separator: "\n") + "\n").write(toFile: plot, atomically: true, encoding: .utf8)
    }

    let long = URL(fileURLWithPath: models).deletingLastPathComponent().appendingPathComponent(
        "Samples/long-meeting-notes.wav"
    ).path
    let pauseless = work + "/pauseless.wav"
    let memory = try dictateMemory(
        boxvoice: boxvoice, clips: clips.map { heldOut + "/" + $0.name }, long: long,
        pauseless: try writePauseless(to: pauseless, real: real, command: clips.first, detector: detector)
            ? pauseless : nil, work: work)

    let n = clips.count
    print(
        """
        ## Latency and memory

        <!-- headline: command acted \(quiet.percentile(0.5)) after its speech (median), \(quiet.percentile(0.95)) \
        at the 95th percentile; \(quiet.heard)/\(n) heard quiet, \(busy.heard)/\(n) with the CPU busy; \
        dictate peaks at \(String(format: "%.0f", memory.whisper.highest)) MB -->

        \(n) held-out command clips (`\(URL(fileURLWithPath: heldOut).lastPathComponent)`: voices and sentences no \
        setting was chosen on), each fed in 20 ms chunks at the pace it was spoken, through the live path as \
        `dictate` runs it. Latency runs from the end of the command's speech to its utterance reaching the dictation; \
        a clip not heard counts as slower than any heard. The busy run is the same clips in the same invocation, with \
        \(hogCount) threads spinning on the \(ProcessInfo.processInfo.activeProcessorCount) cores. Aims: median ≤ \
        1.0 s and 95th percentile ≤ 2.0 s quiet; busy within 1 clip per 32 of quiet.

        | | quiet | CPU busy | busy / quiet |
        |---|---|---|---|
        | commands heard | \(quiet.heard)/\(n) | \(busy.heard)/\(n) | \(busy.heard - quiet.heard) clip(s) |
        | median | \(quiet.percentile(0.5)) | \(busy.percentile(0.5)) | \(busy.ratio(to: quiet, at: 0.5)) |
        | 95th percentile | \(quiet.percentile(0.95)) | \(busy.percentile(0.95)) | \(busy.ratio(to: quiet, at: 0.95)) |
        | slowest heard | \(quiet.slowest) | \(busy.slowest) | |
        | utterances in stand-in words (Whisper late or failed) | \(quiet.standIns) | \(busy.standIns) | |

        The live path took \(String(format: "%.2f", realTimeFactor)) CPU seconds per audio second in the quiet run.
        \(plot == nil ? "" : "\n![command latency, quiet and busy](latency.png)\n")
        **Peak resident memory of `boxvoice dictate`** (GNU `time`), each recording dictated alone into boxsim; \
        baseline: the same build with `recognizer pocketsphinx`. Aim: ≤ 350 MB.

        | recording | Whisper (shipped) | pocketsphinx alone (baseline) | ratio |
        |---|---|---|---|
        \(memory.rows.joined(separator: "\n"))
        """)
}

/// One pass of every clip through `commandLatency`.
private struct LatencyRun {
    /// Seconds per clip heard, sorted.
    var seconds: [Double] = []
    var standIns = 0
    let total: Int

    init(clips: [CommandClip], options: LiveTranscriber.Options, detector: KeywordDetector) throws {
        total = clips.count
        for clip in clips {
            let (latency, standIn) = try commandLatency(clip, options: options, detector: detector)
            if let latency { seconds.append(latency) }
            if standIn { standIns += 1 }
        }
        seconds.sort()
    }

    var heard: Int { seconds.count }

    /// The value at `p` over all clips, a clip not heard counting as slowest.
    func value(at p: Double) -> Double {
        let all = seconds + [Double](repeating: .infinity, count: total - seconds.count)
        return all[min(all.count - 1, max(0, Int((p * Double(all.count)).rounded(.up)) - 1))]
    }

    func percentile(_ p: Double) -> String {
        let value = value(at: p)
        return value.isFinite ? String(format: "%.2f s", value) : "not heard"
    }

    var slowest: String { seconds.last.map { String(format: "%.2f s", $0) } ?? "-" }

    func ratio(to other: LatencyRun, at p: Double) -> String {
        let mine = value(at: p), theirs = other.value(at: p)
        return mine.isFinite && theirs.isFinite && theirs > 0 ? String(format: "%.2f×", mine / theirs) : "-"
    }
}

/// Feeds a clip in 20 ms chunks at the pace it was spoken; returns the seconds from when the command's last speech
/// sample was spoken (not when it was fed: a decode holds the feed up, as it holds up `dictate`'s recognizer, and
/// the feed then catches up) to the utterance holding the command (nil: not heard), and whether pocketsphinx stood
/// in for it.
func commandLatency(_ clip: CommandClip, options: LiveTranscriber.Options, detector: KeywordDetector) throws
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

        var highest: Double { ([long, pauseless].compactMap { $0 } + clips).max() ?? 0 }
        var clipsHighest: Double { clips.max() ?? 0 }
        var clipsMedian: Double { clips.isEmpty ? 0 : clips.sorted()[(clips.count - 1) / 2] }
    }

    var whisper: Peaks
    var pocketsphinx: Peaks

    /// The memory table's rows: recording, Whisper, pocketsphinx, ratio.
    var rows: [String] {
        func row(_ name: String, _ mine: Double?, _ theirs: Double?) -> String? {
            guard let mine, let theirs else { return nil }
            return String(format: "| %@ | %.0f MB | %.0f MB | %.2f× |", name, mine, theirs, mine / max(theirs, 1))
        }
        let n = whisper.clips.count
        return [
            row("held-out clips, each alone (highest of \(n))", whisper.clipsHighest, pocketsphinx.clipsHighest),
            row("held-out clips, each alone (median of \(n))", whisper.clipsMedian, pocketsphinx.clipsMedian),
            row("`Samples/long-meeting-notes.wav` (150 s)", whisper.long, pocketsphinx.long),
            row("27 s of speech without a pause, then a command", whisper.pauseless, pocketsphinx.pauseless),
        ].compactMap { $0 }
    }
}

/// Each recording dictated into a boxsim with instant HQ, with Whisper and with pocketsphinx alone (`recognizer` set
/// in the run's own config file); `long` too if it exists, and `pauseless` if made.
func dictateMemory(
    boxvoice: String, clips: [String], long: String, pauseless: String?, work: String
) throws -> DictateMemory {
    let hasLong = FileManager.default.fileExists(atPath: long)
    func peaks(_ recognizer: String) throws -> DictateMemory.Peaks {
        var settings = UserSettings()
        try settings.set("recognizer", recognizer)
        let home = try PairedHome(
            boxvoice: boxvoice, folder: work + "/memory-\(recognizer)", cache: work + "/cache",
            box: BoxSimConfiguration(
                dataDirectory: work + "/memory-\(recognizer)/box", hq: .fixed("Text of one segment.")),
            settings: settings)
        defer { home.stop() }
        func peak(_ recording: String) throws -> Double {
            let (status, peakKB) = try spawnAndMeasure(
                boxvoice, ["dictate", "--no-keys", "--input", recording], environment: home.environment)
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
