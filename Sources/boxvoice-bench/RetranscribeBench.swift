import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import Foundation
import Synchronization

/// `boxvoice-bench retranscribe`: a 60 s message dictated with `boxvoice dictate`, then asked for again and again by
/// the agent's side of boxsim; time from the box emitting the request event to its 200 for the answer. boxvoice's
/// answer (the `boxvoice daemon` process: look up retention, join the segments, upload) against the baseline of
/// the same request answered by `curl -F` with the joined WAV already on disk, in the same run.
func benchRetranscribe(boxvoice: String, samples: String, runs: Int) throws {
    let work = NSTemporaryDirectory() + "boxvoice-retranscribe-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }
    var configuration = BoxSimConfiguration(dataDirectory: work + "/box", hq: .fixed("Sixty seconds of notes."))
    configuration.defaultSession = "s1"
    let home = try PairedHome(boxvoice: boxvoice, folder: work + "/home", box: configuration)
    defer { home.stop() }
    let box = home.box, environment = home.environment
    // Kept as recorded: the answer measured is the segments joined, against curl with that WAV ready (a recording
    // kept compressed, as by default, holds no segment WAV to time the baseline on).
    guard try run(boxvoice, ["recordings", "keep-as", "wav"], environment) == 0 else {
        throw BenchFailure(message: "boxvoice recordings keep-as wav failed")
    }
    let recording = work + "/sixty.wav"
    try speechRecording(seconds: 60, samples: samples, path: recording)
    guard try run(boxvoice, ["dictate", "--no-keys", "--input", recording], environment) == 0,
        let message = box.messages.last
    else {
        throw BenchFailure(message: "dictating the 60 s recording failed")
    }
    // recordings/<box name as paired>/<message id>/
    let recordings = work + "/home/data/boxvoice/recordings"
    guard let boxFolder = try FileManager.default.contentsOfDirectory(atPath: recordings).first else {
        throw BenchFailure(message: "the dictated message was not retained")
    }
    let folder = recordings + "/" + boxFolder + "/" + message.messageId
    let segments = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".wav") }.sorted()
    guard !segments.isEmpty else {
        throw BenchFailure(message: "the dictated message's recording holds no segment WAV in \(folder)")
    }
    let joined = try segments.flatMap { try WAVCapturePCM.load(folder + "/" + $0) }
    let seconds = Double(joined.count) / AudioRate.perSecond

    // When the box emitted each request event.
    let emitted = EmitTimes()
    let token = box.subscribeEvents { name, data in
        if name == "chat-last-audio-request", let id = data["requestId"] { emitted.mark(id) }
    }
    defer { box.unsubscribeEvents(token) }

    // boxvoice: the daemon answers.
    let daemon = Process()
    daemon.executableURL = URL(fileURLWithPath: boxvoice)
    daemon.arguments = ["daemon"]
    daemon.environment = environment
    daemon.standardError = FileHandle.nullDevice
    daemon.standardOutput = FileHandle.nullDevice
    try daemon.run()
    let deadline = Date(timeIntervalSinceNow: 15)
    while box.eventConnections == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    guard box.eventConnections == 1 else { throw BenchFailure(message: "the daemon did not connect") }
    let idlePeak = peakResidentKB(of: daemon.processIdentifier)
    var ours: [Double] = []
    for _ in 0..<runs {
        let (status, answeredAt, requestId) = try ask(box, messageId: message.messageId, emitted: emitted, answer: nil)
        guard status == 200, let at = emitted.time(requestId) else {
            throw BenchFailure(message: "the daemon's answer failed: HTTP \(status)")
        }
        ours.append(answeredAt - at)
    }
    let answeringPeak = peakResidentKB(of: daemon.processIdentifier)
    daemon.terminate()
    daemon.waitUntilExit()

    // Baseline: curl answers with the joined WAV prepared beforehand.
    let wav = work + "/joined.wav"
    let file = try SoundFile.createFloatWAV(path: wav)
    try file.write(joined)
    try file.close()
    let ticket = try PairingLink.parse(box.mintPairingLink()).pairingToken ?? ""
    let curlToken = try BoxClient(baseURL: box.baseURL, token: nil).redeem(pairingToken: ticket, deviceLabel: "curl")
    let header = work + "/auth-header"
    try "Authorization: Bearer \(curlToken)\n".write(toFile: header, atomically: true, encoding: .utf8)
    var theirs: [Double] = []
    for _ in 0..<runs {
        let (status, answeredAt, requestId) = try ask(box, messageId: message.messageId, emitted: emitted) {
            requestId in
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = [
                "-sS", "-o", "/dev/null", "-H", "@" + header, "-H", "Expect:",
                "-F", "recordedAt=2026-01-01T00:00:00Z", "-F", "text=Sixty seconds of notes.",
                "-F", "messageId=\(message.messageId)", "-F", "sessionId=s1",
                "-F", "file=@\(wav);type=audio/wav;filename=last-message.wav",
                box.baseURL + "/api/chat/last-audio/" + requestId,
            ]
            try curl.run()
            curl.waitUntilExit()
        }
        guard status == 200, let at = emitted.time(requestId) else {
            throw BenchFailure(message: "curl's answer failed: HTTP \(status)")
        }
        theirs.append(answeredAt - at)
    }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    print("### Answering the box's retranscription request")
    print()
    print(
        String(
            format: "<!-- headline: a %.0f s recording answered %.3f s after the box asks; curl with the WAV ready: "
                + "%.3f s (%.2f×) -->", seconds, median(ours), median(theirs), median(ours) / median(theirs)))
    print()
    print(
        String(
            format:
                "A %.1f s message (%d segment(s), %.1f MB as one 48 kHz Float32 WAV) dictated with `boxvoice dictate`; "
                + "the agent's side",
            seconds, segments.count, Double(joined.count * 4) / 1_000_000))
    print(
        "of boxsim asks for it \(runs) times. Time from boxsim emitting `chat-last-audio-request` to its 200 for the "
            + "answer, on loopback."
    )
    print(
        "boxvoice: the `boxvoice daemon` process receives the event, finds the recording, joins its segments and "
            + "uploads the multipart"
    )
    print(
        "answer. Baseline: the same request answered by `curl -F` with the joined WAV already on disk (no lookup, no "
            + "joining),"
    )
    print("started the moment the event is seen.")
    print()
    print("| what | event → 200, s (median) | min | max |")
    print("|---|---|---|---|")
    print(String(format: "| `boxvoice daemon` | %.3f | %.3f | %.3f |", median(ours), ours.min()!, ours.max()!))
    print(
        String(
            format: "| baseline: `curl -F` with the WAV ready | %.3f | %.3f | %.3f |", median(theirs), theirs.min()!,
            theirs.max()!))
    print(
        String(
            format: "| **ratio boxvoice / curl** | **%.2f×** (aim: boxvoice under 1 s) | | |",
            median(ours) / median(theirs)))
    print()
    print(
        String(
            format:
                "Peak resident memory of the daemon (VmHWM): %.1f MB connected and idle, %.1f MB after the %d answers "
                + "(%.2f×):",
            Double(idlePeak) / 1024, Double(answeringPeak) / 1024, runs,
            Double(answeringPeak) / Double(max(idlePeak, 1))))
    print(
        "segments are joined a second at a time, so an answer costs the same memory for a minute or an hour of audio.")
}

/// The kernel's record of a process's peak resident set (VmHWM), in KiB; 0 if it cannot be read.
private func peakResidentKB(of pid: Int32) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
}

private final class EmitTimes: Sendable {
    private let state = Mutex<(times: [String: Double], latest: String?)>(([:], nil))
    func mark(_ id: String) {
        state.withLock {
            $0.times[id] = Date().timeIntervalSince1970
            $0.latest = id
        }
    }
    func time(_ id: String) -> Double? { state.withLock { $0.times[id] } }
    func waitForNew(after previous: String?) -> String? {
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            if let id = state.withLock({ $0.latest }), id != previous { return id }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return nil
    }
    var last: String? { state.withLock { $0.latest } }
}

/// The agent asks (in the background); `answer`, when given, answers as soon as the event is seen. Returns the
/// box's status to the agent, when it answered, and the request id.
private func ask(_ box: BoxSimServer, messageId: String, emitted: EmitTimes, answer: ((String) throws -> Void)?) throws
    -> (Int, Double, String)
{
    let before = emitted.last
    let body = Data(JSONValue.object(["messageId": .string(messageId), "timeoutMs": 10_000]).text.utf8)
    let request = HTTPRequest(
        method: .post, url: "http://127.0.0.1:\(box.port)/boxsim/retranscribe",
        body: .bytes(body, contentType: "application/json"), timeout: 30,
        maxResponseBytes: HTTPRequest.recordingAnswerBytes)
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: (Int, Double) = (0, 0)
    Thread {
        let status = (try? HTTPTransfer.perform(request))?.status ?? 0
        result = (status, Date().timeIntervalSince1970)
        done.signal()
    }.start()
    guard let requestId = emitted.waitForNew(after: before) else { throw BenchFailure(message: "no request event") }
    try answer?(requestId)
    done.wait()
    return (result.0, result.1, requestId)
}

private func run(_ path: String, _ arguments: [String], _ environment: [String: String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
