import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import Foundation

/// `boxvoice-bench upload --link LINK`: one 45 MB Float32 WAV uploaded to boxsim's transcribe endpoint by
/// `BoxClient.transcribe` and by `curl -F`, alternating, wall time per upload.
func benchUpload(link: String, runs: Int) throws {
    let parsed = try PairingLink.parse(link)
    let token = try BoxClient(baseURL: parsed.baseURL, token: nil).redeem(
        pairingToken: parsed.pairingToken!, deviceLabel: "bench")
    let client = BoxClient(baseURL: parsed.baseURL, token: token)
    let work = NSTemporaryDirectory() + "boxvoice-upload-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }
    let wav = work + "/big.wav"
    let file = try SoundFile.createFloatWAV(path: wav)
    let frames = 45_000_000 / 4
    let block = (0..<AudioRate.hertz).map { Float(sin(Double($0) / 9)) * 0.2 }
    var written = 0
    while written < frames {
        let count = min(block.count, frames - written)
        try file.write(Array(block[0..<count]))
        written += count
    }
    try file.close()
    let bytes = (try FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int) ?? 0
    let headerFile = work + "/auth-header"
    try "Authorization: Bearer \(token)\n".write(toFile: headerFile, atomically: true, encoding: .utf8)

    func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
    var ours: [Double] = []
    var theirs: [Double] = []
    for _ in 0..<runs {
        ours.append(try seconds { _ = try client.transcribe(wavPath: wav, session: "new") })
        theirs.append(
            try seconds {
                let curl = Process()
                curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                curl.arguments = [
                    "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "@" + headerFile, "-H", "Expect:",
                    "-F", "session=new", "-F", "file=@\(wav);type=audio/wav;filename=segment.wav",
                    parsed.baseURL + "/api/chat/transcribe-audio",
                ]
                let out = Pipe()
                curl.standardOutput = out
                try curl.run()
                curl.waitUntilExit()
                let code = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                guard curl.terminationStatus == 0, code == "200" else {
                    throw BenchFailure(message: "curl upload failed: exit \(curl.terminationStatus), HTTP \(code)")
                }
            })
    }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    let megabytes = Double(bytes) / 1_000_000
    let ourRate = megabytes / median(ours)
    let curlRate = megabytes / median(theirs)
    print("### Upload to the HQ endpoint")
    print()
    print(
        String(
            format: "<!-- headline: a %.0f MB WAV uploaded at %.0f MB/s, curl -F at %.0f MB/s: %.2f× -->",
            megabytes, ourRate, curlRate, ourRate / curlRate))
    print()
    print(
        "One \(String(format: "%.1f", megabytes)) MB 48 kHz mono Float32 WAV posted to boxsim's `transcribe-audio` on "
            + "loopback (`--hq fixed:x`),"
    )
    print(
        "as multipart `session` + `file`, streamed from disk: `BoxClient.transcribe` (libcurl MIME) against the `curl "
            + "-F` command line"
    )
    print(
        "with the same fields and bearer header, alternating, \(runs) runs each. Wall time per upload includes boxsim "
            + "reading and"
    )
    print("decoding the body, the same for both, and for curl the start of its process (a few ms). Median.")
    print()
    print("| what | s per upload (median) | MB/s |")
    print("|---|---|---|")
    print(String(format: "| `BoxClient.transcribe` | %.3f | %.0f |", median(ours), ourRate))
    print(String(format: "| baseline: `curl -F` | %.3f | %.0f |", median(theirs), curlRate))
    print(String(format: "| **throughput ratio boxvoice / curl** | **%.2f** (aim ≥ 0.9) | |", ourRate / curlRate))
    print()
    print(
        "Per run, s — boxvoice: " + ours.map { String(format: "%.3f", $0) }.joined(separator: " ")
            + "; curl: " + theirs.map { String(format: "%.3f", $0) }.joined(separator: " "))
}

struct BenchFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
