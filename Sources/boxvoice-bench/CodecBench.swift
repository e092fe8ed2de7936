import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceStore
import Foundation
import Synchronization

/// `boxvoice-bench codec`: Opus against WAV (issue: Opus on the wire and on disk) — bytes per minute, the HQ text
/// boxsim's recognizer gets from each, the latency of a send over slow links with `wav`, `opus` and `auto`, the
/// disk retention takes and the size of an hour's retranscription answer. Baselines (WAV) run in the same process.
func benchCodec(models: String, samples: String, minutes: Double, rates: [Double], bitrates: [Int] = []) throws {
    let work = NSTemporaryDirectory() + "boxvoice-codec-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }

    // --- Bytes and HQ agreement, every sample --------------------------------------------------------------------
    let clips = try FileManager.default.contentsOfDirectory(atPath: samples).filter { $0.hasSuffix(".wav") }.sorted()
    var box = BoxSimConfiguration(dataDirectory: work + "/agree-box", hq: .pocketsphinx)
    box.defaultSession = "s1"
    let server = try BoxSimServer(configuration: box)
    defer { server.stop() }
    let client = BoxClient(baseURL: server.baseURL, token: try pairedToken(server))
    var wavBytes: Int64 = 0, opusBytes: Int64 = 0, audioSeconds = 0.0, encodeCPU = 0.0
    var reference: [String] = [], hypothesis: [String] = []
    var disagreeing: [String] = []
    // Other bitrates, for choosing the default: the HQ text of each against the WAV upload's.
    var sweep: [Int: (bytes: Int64, hypothesis: [String])] = [:]
    var floorHypothesis: [String] = []
    for clip in clips {
        let path = samples + "/" + clip
        let ogg = work + "/" + clip + ".ogg"
        let encoded = try AudioEncoding.encode([path], to: ogg, as: .speechOpus)
        wavBytes += fileSize(path)
        opusBytes += encoded.bytes
        audioSeconds += Double(encoded.frames) / AudioRate.perSecond
        encodeCPU += encoded.cpuSeconds
        let wavText = try client.transcribe(audioPath: path, as: .wav, session: "s1").text
        let opusText = try client.transcribe(audioPath: ogg, as: .ogg, session: "s1").text
        let (a, b) = (WordError.words(wavText), WordError.words(opusText))
        reference += a
        hypothesis += b
        if a != b { disagreeing.append(clip) }
        // The recognizer's own noise floor: the same audio rounded to 16 bits, a change nobody can hear.
        let pcm16 = work + "/" + clip + ".16.wav"
        let rounded = try SoundFile.createPCM16WAV(path: pcm16, sampleRate: AudioRate.hertz)
        try rounded.write(try SoundFile.open(path: path).readAll())
        try rounded.close()
        floorHypothesis += WordError.words(try client.transcribe(audioPath: pcm16, as: .wav, session: "s1").text)
        for rate in bitrates {
            let other = work + "/" + clip + ".\(rate).ogg"
            let made = try AudioEncoding.encode([path], to: other, as: .opus(bitsPerSecond: rate * 1_000))
            let text = try client.transcribe(audioPath: other, as: .ogg, session: "s1").text
            sweep[rate, default: (0, [])].bytes += made.bytes
            sweep[rate, default: (0, [])].hypothesis += WordError.words(text)
        }
    }
    let agreement = WordError.rate(reference: reference, hypothesis: hypothesis)
    let floor = WordError.rate(reference: reference, hypothesis: floorHypothesis)
    let sweepRows = sweep.keys.sorted().map { rate -> String in
        let entry = sweep[rate]!
        return String(
            format: "| %d kbit/s | %.0f× | %.1f %% |", rate, Double(wavBytes) / Double(max(entry.bytes, 1)),
            100 * WordError.rate(reference: reference, hypothesis: entry.hypothesis))
    }
    guard minutes > 0 else {
        print(
            String(
                format: "default %@: %.1f %% word error vs WAV, %.0f× fewer bytes; 16-bit WAV floor %.1f %%",
                CompressedCodec.speechOpus.description,
                100 * agreement, Double(wavBytes) / Double(opusBytes), 100 * floor))
        print(sweepRows.joined(separator: "\n"))
        return
    }

    // --- Latency of a send over a slow link, wav / opus / auto, all runs at once (real-time pace) --------------------
    let recording = work + "/dictation.wav"
    try speechRecording(seconds: minutes * 60, samples: samples, path: recording)
    let segments = try cutSegments(recording, into: work + "/segments")
    var runs: [(rate: Double, codec: UploadCodec)] = []
    for rate in rates { for codec in [UploadCodec.wav, .opus, .auto] { runs.append((rate, codec)) } }
    let results = Mutex<[String: (latency: Double, bytes: Int64, formats: String)]>([:])
    let group = DispatchGroup()
    for run in runs {
        group.enter()
        Thread {
            defer { group.leave() }
            let key = "\(run.rate)-\(run.codec.rawValue)"
            do {
                let measured = try sendLatency(
                    segments: segments, rate: run.rate, codec: run.codec, work: work + "/run-" + key)
                results.withLock { $0[key] = measured }
            } catch {
                FileHandle.standardError.write(Data("codec bench \(key): \(error)\n".utf8))
            }
        }.start()
    }
    group.wait()
    let measured = results.withLock { $0 }

    // --- Disk: five recordings of `minutes`, and an hour's answer
    let kept = try AudioEncoding.encode(segments.map(\.path), to: work + "/kept.ogg", as: .speechOpus)
    let hourInputs = Array(repeating: segments.map(\.path), count: Int((60 / minutes).rounded(.up))).flatMap { $0 }
    let hour = try AudioEncoding.encode(hourInputs, to: work + "/hour.ogg", as: .speechOpus)
    let hourWAV = hour.frames * 4 + 44
    let decodedHour = try SoundFile.open(path: work + "/hour.ogg").frames
    let decodedMinutes = Double(decodedHour) / AudioRate.perSecond / 60

    var rows: [String] = []
    for rate in rates {
        func cell(_ codec: UploadCodec) -> String {
            guard let m = measured["\(rate)-\(codec.rawValue)"] else { return "failed" }
            return String(format: "%.2f s", m.latency)
        }
        let wav = measured["\(rate)-wav"]?.latency, opus = measured["\(rate)-opus"]?.latency,
            auto = measured["\(rate)-auto"]
        let best = [wav, opus].compactMap { $0 }.min()
        let ratio = (auto?.latency).flatMap { a in best.map { String(format: "%.2f×", a / $0) } } ?? "—"
        rows.append(
            "| \(rate.formatted()) Mbit/s | \(cell(.wav)) | \(cell(.opus)) | \(cell(.auto)) (\(auto?.formats ?? "?")) "
                + "| \(ratio) |"
        )
    }
    let sweepTable =
        sweepRows.isEmpty
        ? ""
        : "Other Opus rates, same clips (what the default was chosen from):\n\n"
            + "| Opus rate | fewer bytes than WAV | word error vs the WAV upload's HQ text |\n|---|---|---|\n"
            + sweepRows.joined(separator: "\n") + "\n"
    let perMinuteWAV = Double(wavBytes) / (audioSeconds / 60), perMinuteOpus = Double(opusBytes) / (audioSeconds / 60)
    print(
        """
        ### Opus on the wire and on disk

        <!-- headline: Opus sends \(String(format: "%.0f", perMinuteWAV / perMinuteOpus))× fewer bytes than WAV; \
        the box's text moves \(String(format: "%.1f", 100 * agreement)) % (16-bit rounding alone: \
        \(String(format: "%.1f", 100 * floor)) %) -->

        Every sample (\(clips.count) clips, \(String(format: "%.1f", audioSeconds / 60)) min of speech) uploaded as 48 \
        kHz Float32 WAV and as Ogg Opus
        at \(CompressedCodec.speechOpus): **\(String(format: "%.0f", perMinuteWAV / 1_000)) kB vs \
        \(String(format: "%.1f", perMinuteOpus / 1_000)) kB per minute — \
        \(String(format: "%.0f", perMinuteWAV / perMinuteOpus))× fewer bytes**.
        Encoding took \(String(format: "%.2f", 1_000 * encodeCPU / audioSeconds)) ms of CPU per second of audio (this \
        machine: \(cpuModel())).

        HQ agreement: boxsim's pocketsphinx HQ over the Opus upload vs over the WAV upload, every sample: \
        **\(String(format: "%.1f", 100 * agreement)) % word
        error between the two** (\(reference.count) words; \(disagreeing.count) clip(s) \
        differ\(disagreeing.isEmpty ? "" : ": " + disagreeing.joined(separator: ", "))).
        The recognizer's own floor, same run: the WAV rounded to 16-bit samples (a change no ear hears) moves its text \
        by
        **\(String(format: "%.1f", 100 * floor)) %** — pocketsphinx's search flips words on any perturbation, so this \
        is the yardstick, not 0.
        \(sweepTable)

        End of the spoken send → the box's 200 for a \(Int(minutes))-minute dictation at real-time pace, boxsim \
        `--uplink` limiting how fast it
        reads request bodies (one shared link), HQ `describe` (instant: the link is what is measured). The segments \
        are cut
        as `dictate` cuts them and handed to the uploader as they would close; the live recognizer is not run (it is the
        same for every codec; its cost is in the dictation section). All \(runs.count) runs go at once, each with its \
        own boxsim.

        | uplink | `wav` | `opus` | `auto` (formats it sent) | `auto` vs the better fixed choice |
        |---|---|---|---|---|
        \(rows.joined(separator: "\n"))

        Retention: a \(Int(minutes))-minute recording kept as Ogg Opus takes \
        \(String(format: "%.1f", Double(kept.bytes) / 1e6)) MB, so five take
        **\(String(format: "%.1f", 5 * Double(kept.bytes) / 1e6)) MB** (as Float32 WAV: \
        \(String(format: "%.0f", 5 * Double(kept.frames * 4) / 1e6)) MB). A 60-minute recording's answer is
        **\(String(format: "%.1f", Double(hour.bytes) / 1e6)) MB of Ogg Opus, whole** \
        (\(String(format: "%.1f", decodedMinutes)) min decoded; as 48 kHz Float32 WAV it would be \
        \(String(format: "%.0f", Double(hourWAV) / 1e6)) MB
        and cut to its last part at 16 kHz to fit 45 MB).
        """)
}

private func fileSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int64) ?? 0
}

private func cpuModel() -> String {
    let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    return text.split(separator: "\n").first { $0.hasPrefix("model name") }.map {
        String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces)
    } ?? "unknown CPU"
}

/// A device token from `server`, redeemed from a freshly minted pairing link.
func pairedToken(_ server: BoxSimServer) throws -> String {
    let ticket = try PairingLink.parse(server.mintPairingLink()).pairingToken ?? ""
    return try BoxClient(baseURL: server.baseURL, token: nil).redeem(pairingToken: ticket, deviceLabel: "bench")
}

/// The recording cut as `dictate` cuts it (60 s segments at quiet points), with when each closes in the audio.
private func cutSegments(_ recording: String, into folder: String) throws -> [ClosedSegment] {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let writer = SegmentWriter(directory: folder)
    let source = try SoundFile.open(path: recording)
    var segments: [ClosedSegment] = []
    while true {
        let chunk = try source.read(maxFrames: 4_800)
        if chunk.isEmpty { break }
        segments += try writer.append(chunk)
    }
    if let last = try writer.finish() { segments.append(last) }
    return segments
}

/// One dictation's uploads replayed at real-time pace: each segment is handed to the uploader when its audio would
/// have ended; the last one ends with the spoken send. Returns the time from then to the box's 200 for the message.
private func sendLatency(segments: [ClosedSegment], rate: Double, codec: UploadCodec, work: String) throws -> (
    latency: Double, bytes: Int64, formats: String
) {
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    var configuration = BoxSimConfiguration(dataDirectory: work + "/box", hq: .describe)
    configuration.defaultSession = "s1"
    configuration.uplinkBitsPerSecond = rate * 1e6
    let server = try BoxSimServer(configuration: configuration)
    defer { server.stop() }
    let client = BoxClient(baseURL: server.baseURL, token: try pairedToken(server))
    let policy = UploadCodecPolicy(codec: codec)
    let uploader = HQUploader(client: client, session: "s1", codec: policy, workDirectory: work)
    let started = Date()
    var audioEnd = 0.0
    for segment in segments {
        audioEnd += segment.duration
        let due = started.addingTimeInterval(audioEnd).timeIntervalSinceNow
        if due > 0 { Thread.sleep(forTimeInterval: due) }
        uploader.submit(segment)
    }
    let sendHeard = Date()
    let (results, stopped) = uploader.finish()
    if let stopped { throw BenchFailure(message: "HQ stopped: \(stopped)") }
    let text = results.compactMap { $0.transcription?.text }.joined(separator: " ")
    let id = MessageID.new()
    _ = try client.send(
        message: SpeechFraming.frame(
            text, origin: .hq(service: "boxsim", diarized: false), messageId: id, localTime: (12, 0)),
        messageId: id, session: "s1")
    let latency = Date().timeIntervalSince(sendHeard)
    let uploads = server.transcriptions
    let formats = Dictionary(grouping: uploads, by: \.guessedFormat).map { "\($0.value.count) \($0.key)" }.sorted()
        .joined(separator: ", ")
    return (latency, uploads.reduce(0) { $0 + Int64($1.bytes) }, formats)
}
