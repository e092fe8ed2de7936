import BoxVoiceAudio
import CommandGrammar
import Foundation

/// `boxvoice record`: capture only, as segmented 48 kHz mono Float32 WAV.
enum RecordCommand: Command {
    static let out = Option.path(
        "--out", placeholder: "DIR", defaultNote: "$XDG_DATA_HOME/boxvoice/takes/<time>", help: "output folder")
    // A week of audio at most; segments from a second to an hour (a 1.2 TB buffer or 2,000 files a second are never
    // what was meant); the cut search inside the segment it cuts.
    static let maxSeconds = Option.number(
        "--max-seconds", 0.1...604_800, unit: "seconds", help: "stop after N seconds of captured audio")
    static let segmentSeconds = Option.number(
        "--segment-seconds", 1...3_600, unit: "seconds", default: "60", help: "longest segment")
    static let cutSearchSeconds = Option.number(
        "--cut-search-seconds", 0.02...3_600, unit: "seconds", defaultNote: "5, at most half the segment",
        help: "how far back from the segment's end to look for a quiet point")
    static let format = Option.choice(
        "--format", ["FLOAT_LE", "S32_LE", "S16_LE"], placeholder: "F",
        defaultNote: "FLOAT_LE, then S32_LE, then S16_LE",
        help: "only accept this device format")

    static let spec = CommandSpec(
        "record", summary: "record the microphone into segmented Float32 WAV files",
        about: """
            Records 48 kHz mono audio from an ALSA capture PCM into DIR/seg-0001.wav, seg-0002.wav, … A segment closes \
            at the quietest 20 ms inside its last --cut-search-seconds before --segment-seconds, so no word is cut and \
            every upload stays within the box's limits. Each segment is printed as it closes. Ctrl-C or SIGTERM ends \
            the recording cleanly.
            """,
        options: [
            CommonOptions.device, out, maxSeconds, segmentSeconds, cutSearchSeconds, format, CommonOptions.alsaConfig,
            CommonOptions.json, CommonOptions.realtime,
        ],
        check: { invocation in
            guard let search = invocation[cutSearchSeconds], let segment = invocation[segmentSeconds], search >= segment
            else { return nil }
            return "--cut-search-seconds (\(search)) must be shorter than the segment (\(segment) s)"
        })

    static func run(_ invocation: Invocation) throws -> Int32 {
        let device = invocation[CommonOptions.device] ?? "default"
        let out = invocation[out]
        let maxSeconds = invocation[maxSeconds]
        let segmentSeconds = invocation[segmentSeconds] ?? 60
        let searchSeconds = invocation[cutSearchSeconds] ?? min(5, segmentSeconds / 2)
        let alsaConfig = invocation[CommonOptions.alsaConfig]
        let formatName = invocation[format]
        let json = invocation[CommonOptions.json]
        let realtime = invocation[CommonOptions.realtime]

        var formats = SampleFormat.capturePreference
        if let formatName {
            formats = SampleFormat(alsaName: formatName).map { [$0] } ?? formats
        }
        let directory = out ?? Paths.takes + "/" + timestamp()
        try prepare(directory: directory, json: json)

        let pcm: ALSACapturePCM
        do {
            pcm = try ALSACapturePCM(name: device, configFile: alsaConfig, formats: formats)
        } catch let error as ALSAError {
            throw CLIError.failed(error.description)
        }
        let policy = SegmentPolicy(sampleRate: pcm.sampleRate, maxSeconds: segmentSeconds, searchSeconds: searchSeconds)
        let writer = SegmentWriter(
            directory: directory, policy: policy, sampleRate: pcm.sampleRate,
            firstIndex: nextSegmentIndex(in: directory))
        let capture = AudioCapture(pcm: pcm.paced(realtime))
        let stop = StopSignal()
        let signals = stop.requestOnTerminationSignals()
        defer { signals.forEach { $0.cancel() } }

        if json {
            Console.json(
                JSONLine.RecordingStarted(
                    device: device, format: pcm.format.rawValue, sampleRate: pcm.sampleRate,
                    periodFrames: pcm.periodFrames, directory: directory))
        } else {
            Console.out(
                "Recording from '\(device)' (\(pcm.format), \(pcm.sampleRate) Hz, period \(pcm.periodFrames) frames) "
                    + "into \(directory)"
            )
        }
        let recorder = Recorder(
            capture: capture, writer: writer,
            maxFrames: maxSeconds.map { Int64(($0 * Double(pcm.sampleRate)).rounded()) })
        let summary: RecordingSummary
        do {
            summary = try recorder.run(stop: stop) { report($0, json: json) }
        } catch let error as RecordingWriteError {
            throw CLIError.failed(error.description)
        }
        pcm.close()
        report(summary, sampleRate: pcm.sampleRate, json: json)
        if case .deviceFailed(let reason) = summary.end {
            Console.err("boxvoice record: \(reason)")
            return 1
        }
        return 0
    }

    private static func report(_ segment: ClosedSegment, json: Bool) {
        if json {
            Console.json(
                JSONLine.SegmentWritten(
                    index: segment.index, path: segment.path, frames: segment.frames, startFrame: segment.startFrame,
                    seconds: segment.duration,
                    peakDBFS: segment.levels.peakDBFS.isFinite ? segment.levels.peakDBFS : -999,
                    rmsDBFS: segment.levels.rmsDBFS.isFinite ? segment.levels.rmsDBFS : -999))
        } else {
            Console.out(
                "\(segment.path)  \(segment.duration.formatted(2)) s  peak \(segment.levels.peakDBFS.formatted(1)) "
                    + "dBFS  rms \(segment.levels.rmsDBFS.formatted(1)) dBFS"
            )
        }
    }

    private static func report(_ summary: RecordingSummary, sampleRate: Int, json: Bool) {
        let seconds = Double(summary.frames) / Double(sampleRate)
        let stats = summary.capture
        if json {
            Console.json(
                JSONLine.RecordingFinished(
                    segments: summary.segments.count, frames: summary.frames, framesDropped: stats.framesDropped,
                    overruns: stats.overruns, suspends: stats.suspends))
        } else {
            Console.out(
                "Recorded \(seconds.formatted(2)) s in \(summary.segments.count) segment(s); dropped "
                    + "\(stats.framesDropped) frames, \(stats.overruns) overrun(s), \(stats.suspends) suspend(s)."
            )
        }
    }

    /// Creates the folder and repairs any segment a killed earlier run left with a stale header: in this take's folder
    /// and among the takes, never in a message's folder (a dictation may be writing it).
    private static func prepare(directory: String, json: Bool) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CLIError.failed(
                "cannot create the output folder '\(directory)': \(error.localizedDescription). Nothing was recorded.")
        }
        for root in Set([directory, Paths.takes]) where FileManager.default.fileExists(atPath: root) {
            for (path, result) in WAVRepair.repairSegments(under: root) {
                switch result {
                case .success(.repaired(let before, let after)):
                    if json {
                        Console.json(JSONLine.Repaired(path: path, headerFrames: before, frames: after))
                    } else {
                        Console.out("Repaired \(path): header said \(before) frames, file holds \(after).")
                    }
                case .failure(let error):
                    Console.err("boxvoice record: \(error)")
                case .success(.intact):
                    break
                }
            }
        }
    }

    private static func nextSegmentIndex(in directory: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let indices = names.compactMap { name -> Int? in
            guard name.hasPrefix("seg-"), name.hasSuffix(".wav") else { return nil }
            return Int(name.dropFirst(4).dropLast(4))
        }
        return (indices.max() ?? 0) + 1
    }

    private static func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter.string(from: Date())
    }
}
