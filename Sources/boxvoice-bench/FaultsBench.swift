import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Synchronization

/// `boxvoice-bench faults`: what a hostile box, a busy machine and a removed microphone cost, each beside the same
/// measurement without the fault (the baseline) in this run.
func benchFaults(boxvoice: String, models: String, samples: String, busyMinutes: Double, watchdogTrials: Int) throws {
    let work = NSTemporaryDirectory() + "boxvoice-faults-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }
    print("### Faults: a hostile box, a busy machine, a removed microphone")
    print()
    try benchBurst(boxvoice: boxvoice, samples: samples, work: work + "/burst")
    print()
    try benchEndless(boxvoice: boxvoice, work: work + "/endless")
    print()
    try benchBusyMachine(models: models, samples: samples, minutes: busyMinutes, work: work + "/busy")
    print()
    try benchWatchdog(samples: samples, trials: watchdogTrials)
}

// MARK: a burst of retranscription requests

/// What a process holds now, read from /proc.
private struct ProcessUse {
    var threads = 0
    var descriptors = 0
    var residentKB = 0
    var peakResidentKB = 0

    static func read(_ pid: Int32) -> ProcessUse {
        var use = ProcessUse()
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let number = Int(parts[1].trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") ?? 0
            switch parts[0] {
            case "Threads": use.threads = number
            case "VmRSS": use.residentKB = number
            case "VmHWM": use.peakResidentKB = number
            default: break
            }
        }
        use.descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        return use
    }

    mutating func keepPeaks(_ other: ProcessUse) {
        threads = max(threads, other.threads)
        descriptors = max(descriptors, other.descriptors)
        residentKB = max(residentKB, other.residentKB)
        peakResidentKB = max(peakResidentKB, other.peakResidentKB)
    }
}

/// Bytes below `path` (the daemon's answer files live there while they are sent).
private func bytes(under path: String) -> Int64 {
    guard let walker = FileManager.default.enumerator(atPath: path) else { return 0 }
    var total: Int64 = 0
    while let name = walker.nextObject() as? String {
        total += ((try? FileManager.default.attributesOfItem(atPath: path + "/" + name))?[.size] as? Int64) ?? 0
    }
    return total
}

/// Requests the daemon's log accounts for: answered (or found no longer awaited, or failed), and refused at once.
private func tally(_ log: String) -> (answered: Int, refused: Int) {
    func count(_ text: String) -> Int { log.components(separatedBy: text).count - 1 }
    return (count(": answered ") + count("no longer waited for") + count("could not answer"), count("is not answered"))
}

private func benchBurst(boxvoice: String, samples: String, work: String) throws {
    let home = try PairedHome(
        boxvoice: boxvoice, folder: work,
        box: BoxSimConfiguration(
            dataDirectory: work + "/box", hq: .fixed("One retained message."), defaultSession: "s1"))
    defer { home.stop() }
    let box = home.box, environment = home.environment
    // One retained recording (a minute of speech, kept as WAV segments so every answer joins a file) to ask for.
    let clip = work + "/minute.wav"
    try speechRecording(seconds: 60, samples: samples, path: clip)
    guard try Run.process(boxvoice, ["recordings", "keep-as", "wav"], environment: environment).status == 0,
        try Run.process(boxvoice, ["dictate", "--no-keys", "--input", clip], environment: environment).status == 0,
        let messageId = box.messages.first?.messageId
    else {
        throw BenchFailure(message: "could not dictate the recording the burst asks for")
    }
    // --debug: the normal 404s (nobody waits for these answers) are logged too, so every request is accounted for.
    let daemon = try Spawned(boxvoice, ["daemon", "--debug"], environment: environment)
    defer {
        daemon.signal(SIGTERM)
        daemon.wait(timeout: 10)
    }
    guard daemon.waitFor("connected", timeout: 20) else {
        throw BenchFailure(message: "the daemon did not connect: \(daemon.stderr)")
    }
    let pid = daemon.process.processIdentifier
    Thread.sleep(forTimeInterval: 1)
    let idle = ProcessUse.read(pid)
    let idleRuntime = bytes(under: work + "/run")
    let count = 1_000
    let burst = try HTTPTransfer.perform(
        HTTPRequest(
            method: .post,
            url: "http://127.0.0.1:\(box.port)/boxsim/burst-last-audio?count=\(count)&message=\(messageId)",
            body: .bytes(Data(), contentType: "application/json")))
    guard burst.status == 200 else { throw BenchFailure(message: "boxsim refused the burst (\(burst.status))") }
    let started = Date()
    var peak = idle
    var peakRuntime = idleRuntime
    var settledAt = Date()
    // Sampled every 50 ms until the log has said something about every request and the daemon is idle again.
    while Date().timeIntervalSince(started) < 120 {
        peak.keepPeaks(ProcessUse.read(pid))
        peakRuntime = max(peakRuntime, bytes(under: work + "/run"))
        let (answered, refused) = tally(daemon.stderr)
        if answered + refused >= count {
            settledAt = Date()
            break
        }
        Thread.sleep(forTimeInterval: 0.05)
    }
    let (answered, refused) = tally(daemon.stderr)
    func ratio(_ a: Int, _ b: Int) -> String { b > 0 ? String(format: "%.2f×", Double(a) / Double(b)) : "–" }
    print("#### A burst of \(count) retranscription requests (boxsim `/boxsim/burst-last-audio`)")
    print()
    print(
        "`boxvoice daemon` paired to boxsim, holding one retained recording (60 s of speech kept as WAV, so each "
            + "answer joins"
    )
    print(
        "a file in `XDG_RUNTIME_DIR`); boxsim sends \(count) `chat-last-audio-request` events for it at once. Sampled "
            + "every 50 ms"
    )
    print(
        "from /proc until the daemon is idle again (\(String(format: "%.1f", settledAt.timeIntervalSince(started))) "
            + "s). Baseline: the same daemon idle, just before."
    )
    print()
    print("| | idle (baseline) | peak during the burst | ratio |")
    print("|---|---|---|---|")
    print("| threads | \(idle.threads) | \(peak.threads) | \(ratio(peak.threads, idle.threads)) |")
    print(
        "| open descriptors | \(idle.descriptors) | \(peak.descriptors) | \(ratio(peak.descriptors, idle.descriptors)) "
            + "|"
    )
    print(
        "| resident memory | \(idle.residentKB / 1024) MB | \(peak.peakResidentKB / 1024) MB (VmHWM) | "
            + "\(ratio(peak.peakResidentKB, idle.residentKB)) |"
    )
    print("| bytes in `XDG_RUNTIME_DIR` | \(idleRuntime) | \(peakRuntime) | |")
    print()
    print(
        "\(answered) requests were answered (two at a time, sixteen waiting), \(refused) refused at once and logged; "
            + "the box waits at"
    )
    print(
        "most 30 s for an answer. Before (one thread per request, measured when the issue was filed): 1004 threads, "
            + "2374"
    )
    print("descriptors and 20.6 GB written to `XDG_RUNTIME_DIR` for the same burst.")
}

// MARK: answers without end

private func benchEndless(boxvoice: String, work: String) throws {
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let endless = try HostileServer(seconds: 60, serve: HostileServer.endlessHTTPAnswer)
    defer { endless.stop() }
    let small = try GarbageServer(
        reply:
            "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: 52\r\nConnection: "
            + "close\r\n\r\n{\"error\":\"Pairing code is invalid or expired.\",\"x\":1}"
    )
    defer { small.stop() }
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_DATA_HOME"] = work + "/data"
    environment["XDG_CONFIG_HOME"] = work + "/config"
    func pair(_ base: String) throws -> (peakMB: Double, seconds: Double, said: String) {
        let encoded = base.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? base
        let link = "beebox://pair?baseURL=\(encoded)&pairingToken=ticket"
        let started = Date()
        let report = work + "/time.txt"
        let result = try Run.process(
            "/usr/bin/time", ["-f", "%M", "-o", report, boxvoice, "pair", link], environment: environment)
        let kilobytes =
            (try? String(contentsOfFile: report, encoding: .utf8))?.split(separator: "\n").last.flatMap { Int($0) } ?? 0
        return (
            Double(kilobytes) / 1024, Date().timeIntervalSince(started),
            result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }
    let baseline = try pair(small.baseURL)
    let hostile = try pair(endless.baseURL)

    // The event WebSocket: a frame announced as 2^40 bytes, streamed without end.
    let socket = try HostileServer(seconds: 60, serve: HostileServer.endlessWebSocketMessage)
    defer { socket.stop() }
    let closed = DispatchSemaphore(value: 0)
    let reason = ReasonBox()
    let before = ProcessUse.read(getpid())
    let stream = EventStream(baseURL: socket.baseURL, token: "token", backoff: [30]) { update in
        if case .disconnected(let why, _) = update {
            reason.set(why)
            closed.signal()
        }
    }
    let started = Date()
    stream.start()
    let ended = closed.wait(timeout: .now() + 30) == .success
    let seconds = Date().timeIntervalSince(started)
    stream.stop()
    let after = ProcessUse.read(getpid())

    print("#### Answers without end")
    print()
    print(
        "`boxvoice pair` against a server that answers the redeem with a body that never ends, beside the same command "
            + "against"
    )
    print(
        "one that answers a short 401 (the baseline); peak resident memory of the process from GNU `time`. Then the "
            + "event"
    )
    print(
        "stream (in this process) against a server that accepts the WebSocket upgrade and streams one frame without "
            + "end."
    )
    print()
    print("| | peak memory | wall time | what the user is told |")
    print("|---|---|---|---|")
    print(
        "| `pair`, a short 401 (baseline) | \(String(format: "%.1f", baseline.peakMB)) MB | "
            + "\(String(format: "%.2f", baseline.seconds)) s | \(baseline.said.prefix(120))… |"
    )
    print(
        "| `pair`, an endless answer | \(String(format: "%.1f", hostile.peakMB)) MB "
            + "(\(String(format: "%.2f", hostile.peakMB / max(baseline.peakMB, 1)))×) | "
            + "\(String(format: "%.2f", hostile.seconds)) s | \(hostile.said.prefix(160))… |"
    )
    print(
        "| event stream, an endless frame | +\((after.peakResidentKB - before.peakResidentKB) / 1024) MB peak in this "
            + "process | \(ended ? String(format: "%.2f s to close", seconds) : "not closed in 30 s") | "
            + "\(reason.value) |"
    )
    print()
    print(
        "Before, the answer was read whole: 1–2 GB before the 30 s timeout over HTTP, and the WebSocket never ended "
            + "(measured"
    )
    print("when the issue was filed). Now each call reads at most its cap (1 MiB, HQ 4 MiB) and a frame at most 1 MiB.")
}

private final class ReasonBox: Sendable {
    private let text = Mutex("")
    func set(_ value: String) { text.withLock { if $0.isEmpty { $0 = value } } }
    var value: String { text.withLock { $0 } }
}

// MARK: a busy machine

private func benchBusyMachine(models: String, samples: String, minutes: Double, work: String) throws {
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let clip = work + "/speech.wav"
    try speechRecording(seconds: minutes * 60, samples: samples, path: clip)
    let input = try SoundFile.open(path: clip).readAll()
    var rows: [String] = []
    var busyHeadline = ""
    for loaded in [false, true] {
        let box = try BoxSimServer(
            configuration: BoxSimConfiguration(
                dataDirectory: work + "/box-\(loaded)", hq: .fixed("Text."), defaultSession: "s1"))
        defer { box.stop() }
        let store = try MessageStore(directory: work + "/store-\(loaded)")
        try store.setRetentionFormat(.wav)
        let ticket = try PairingLink.parse(box.mintPairingLink()).pairingToken ?? ""
        let token = try BoxClient(baseURL: box.baseURL, token: nil).redeem(pairingToken: ticket, deviceLabel: "bench")
        var configuration = DictationSession.Configuration(
            box: "home", client: BoxClient(baseURL: box.baseURL, token: token), session: "s1",
            spotterPhrases: models + "/command-spotter.en.txt")
        configuration.workDirectory = work
        let lags = LagLog()
        let session = DictationSession(
            configuration: configuration, detector: try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt"),
            store: store
        ) { lags.add($0) }
        let hogs = loaded ? CPUHogs() : nil
        let started = Date()
        try session.run(pcm: PacedCapturePCM(try WAVCapturePCM(path: clip)), stop: StopSignal())
        hogs?.stop()
        let wall = Date().timeIntervalSince(started)
        var recorded = 0
        var matches = true
        for message in try store.messages() where message.hasAudio {
            let audio = try store.segmentFiles(of: message).flatMap { try SoundFile.open(path: $0).readAll() }
            matches =
                matches && recorded + audio.count <= input.count
                && Array(input[recorded..<recorded + audio.count]) == audio
            recorded += audio.count
        }
        let (behind, skipped, skips) = lags.summary
        let hogCount = 2 * ProcessInfo.processInfo.activeProcessorCount
        let machine = loaded ? "\(hogCount) CPU hogs (2× the cores)" : "idle machine (baseline)"
        if loaded {
            busyHeadline =
                "\(String(format: "%g", minutes)) min dictated with the CPU busy: "
                + (matches ? "every frame kept, sample-exact" : "the recording is NOT the input")
                + String(format: ", live words %.1f s behind at most", behind)
        }
        rows.append(
            "| \(machine) "
                + "| \(String(format: "%.1f", Double(input.count) / AudioRate.perSecond)) s | "
                + "\(String(format: "%.1f", Double(recorded) / AudioRate.perSecond)) s, "
                + "\(matches ? "sample-exact" : "NOT the input") "
                + "| \(input.count - recorded) frames | \(String(format: "%.1f", behind)) s | "
                + "\(String(format: "%.1f", skipped)) s in \(skips) skip(s) | \(String(format: "%.0f", wall)) s |"
        )
    }
    print("#### A busy machine: \(String(format: "%g", minutes)) minutes dictated at real-time pace")
    print()
    print("<!-- headline: \(busyHeadline) -->")
    print()
    print(
        "Keyword-free sample speech played at real-time pace (`PacedCapturePCM`) through `DictationSession` with the "
            + "default"
    )
    print(
        "settings (30 s capture queue, the recognizer skipping ahead past 8 s behind), into boxsim; recordings kept as "
            + "WAV and"
    )
    print(
        "compared with the input sample for sample: the messages' recordings, one after another, are the input's first "
            + "frames"
    )
    print(
        "exactly, so no frame is missing or moved. What follows is the pause after the final spoken send, in no "
            + "message since"
    )
    print(
        "nothing was said in it. The baseline is the same run on an idle machine; the hogs are threads of the same "
            + "process."
    )
    print()
    print(
        "| machine | input | in the messages' recordings | after the last command (a pause) | most the live transcript "
            + "fell behind | not heard live | wall |"
    )
    print("|---|---|---|---|---|---|---|")
    rows.forEach { print($0) }
    print()
    print(
        "Before, recognition and the WAV writer shared one loop: a 142.4 s dictation on a loaded machine kept 85.8 s "
            + "and said"
    )
    print("nothing (measured when the issue was filed).")
}

/// The lag and skip events of a run.
private final class LagLog: Sendable {
    private let totals = Mutex((behind: 0.0, skipped: 0.0, skips: 0))
    func add(_ event: DictationEvent) {
        totals.withLock { totals in
            switch event {
            case .hearingBehind(let seconds): totals.behind = max(totals.behind, seconds)
            case .notHeardLive(let seconds, _):
                totals.skipped += seconds
                totals.skips += 1
            default: break
            }
        }
    }
    var summary: (Double, Double, Int) { totals.withLock { ($0.behind, $0.skipped, $0.skips) } }
}

// MARK: the capture watchdog

private func benchWatchdog(samples: String, trials: Int) throws {
    var detections: [Double] = []
    var kept: [Double] = []
    for _ in 0..<trials {
        let outcome = try UnpluggedRecording.run(
            samples + "/long-meeting-notes.wav", folder: TemporaryDirectory("watchdog-bench"))
        guard case .deviceFailed = outcome.summary.end, outcome.detectedAfter.isFinite else { continue }
        detections.append(outcome.detectedAfter)
        kept.append(Double(outcome.summary.frames) / AudioRate.perSecond)
    }
    let sorted = detections.sorted()
    print("#### A microphone removed under PipeWire: the capture watchdog")
    print()
    print(
        "A private PipeWire server with wireplumber; a virtual source fed from a WAV is removed once a second of it is "
            + "recorded."
    )
    print(
        "PipeWire then stops the stream without an error; before, the read waited forever (the turn never ended). Time "
            + "from the"
    )
    print("removal to the capture ending with its error, \(trials) trials:")
    print()
    if sorted.isEmpty {
        print("No trial detected the removal.")
        return
    }
    print("| trials detected | median | slowest | audio kept before it (median) | the watchdog's deadline |")
    print("|---|---|---|---|---|")
    print(
        "| \(detections.count) of \(trials) | \(String(format: "%.2f", sorted[sorted.count / 2])) s | "
            + "\(String(format: "%.2f", sorted.last!)) s | "
            + "\(String(format: "%.2f", kept.sorted()[kept.count / 2])) s | 1.5 s without audio (aim: detected within "
            + "2 s) |"
    )
}
