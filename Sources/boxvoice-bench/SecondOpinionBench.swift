import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceStore
import Foundation
import Synchronization

/// `boxvoice-bench second-opinion`: what making sure of a weak command costs. `checkpoint-report.wav` ends in a
/// command only the spotter hears (weak evidence), fed at real-time pace through a dictation against boxsim over
/// loopback, the microphone running on 3 s after it. Measured: from the end of the utterance holding the command
/// (audio time, mapped to the wall clock of the feed) to the session acting on it — the live path acting at once
/// (the baseline), waiting for the speaker's pause after the command (`CommandHold`), and also asking the box, its HQ
/// answering at once or decoding the 4 s window with pocketsphinx as boxsim does.
func benchSecondOpinion(models: String, samples: String, runs: Int) throws {
    let work = NSTemporaryDirectory() + "boxvoice-second-opinion-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }
    let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
    struct Transcript: Decodable {
        let file: String
        let text: String
    }
    // The box's HQ answers with what the clip says (its transcript), or decodes it.
    let said =
        try JSONDecoder().decode(
            [Transcript].self, from: Data(contentsOf: URL(fileURLWithPath: samples + "/transcripts.json"))
        )
        .first { $0.file == "checkpoint-report.wav" }?.text ?? ""
    let cases: [(name: String, hq: HQMode, ask: Bool, hold: Bool)] = [
        ("the live path acts at once, alone (baseline)", .fixed(said), false, false),
        ("the live path waits for the speaker's pause, alone", .fixed(said), false, true),
        ("waits for the pause; second opinion, the box's HQ answers at once", .fixed(said), true, true),
        (
            "waits for the pause; second opinion, the box decodes the window (boxsim's pocketsphinx HQ)", .pocketsphinx,
            true, true
        ),
    ]
    // The speaker stops after the command; the microphone runs on.
    let clip = work + "/clip-then-room.wav"
    let file = try SoundFile.createFloatWAV(path: clip)
    try file.write(
        try WAVCapturePCM.load(samples + "/checkpoint-report.wav") + [Float](repeating: 0, count: 3 * AudioRate.hertz))
    try file.close()
    var baseline = 0.0
    var rows: [String] = []
    for (index, entry) in cases.enumerated() {
        var measured: [Double] = []
        var outcomes: [String] = []
        var verdictSeconds: [Double] = []
        for run in 0..<runs {
            let data = work + "/case-\(index)-\(run)"
            var boxConfiguration = BoxSimConfiguration(dataDirectory: data + "/box", hq: entry.hq)
            boxConfiguration.defaultSession = "s1"
            let box = try BoxSimServer(configuration: boxConfiguration)
            defer { box.stop() }
            let client = BoxClient(baseURL: box.baseURL, token: try pairedToken(box))
            let store = try MessageStore(directory: data + "/store")
            try FileManager.default.createDirectory(atPath: data + "/work", withIntermediateDirectories: true)
            var configuration = DictationSession.Configuration(
                box: "bench", client: client, session: "s1",
                spotterPhrases: models + "/command-spotter.en.txt")
            configuration.once = true
            configuration.workDirectory = data + "/work"
            configuration.secondOpinionSeconds = entry.ask ? 3 : nil
            configuration.spottedCommandHold = entry.hold ? .measured : nil
            let log = ActionLog()
            let session = DictationSession(configuration: configuration, detector: detector, store: store) {
                log.add($0)
            }
            try session.run(pcm: PacedCapturePCM(WAVCapturePCM(path: clip)), stop: StopSignal())
            if let seconds = log.delay() { measured.append(seconds) }
            if let (outcome, seconds) = log.verdict { outcomes.append("\(outcome)"); verdictSeconds.append(seconds) }
        }
        let verdicts = Dictionary(grouping: outcomes, by: { $0 }).map { "\($0.key) \($0.value.count)" }.sorted().joined(
            separator: ", ")
        let answer =
            verdictSeconds.isEmpty
            ? "" : String(format: "; verdict %.3f s after asking", verdictSeconds.sorted()[verdictSeconds.count / 2])
        guard !measured.isEmpty else {
            guard index > 0 else { throw BenchFailure(message: "\(entry.name): the command was not acted on") }
            rows.append("| \(entry.name) | not acted on in any run | — | \(verdicts)\(answer) |")
            continue
        }
        let median = measured.sorted()[measured.count / 2]
        if index == 0 { baseline = median }
        rows.append(
            "| \(entry.name) | \(String(format: "%.3f", median)) s (\(measured.count) of \(runs) acted) | "
                + "\(String(format: "%+.3f", median - baseline)) s | \(verdicts.isEmpty ? "—" : verdicts)\(answer) |"
        )
    }
    print(
        """
        ### A weak command: the speaker's pause and the box's second opinion, added latency

        `Samples/checkpoint-report.wav` (its command heard by the spotter alone) at real-time pace into a dictation \
        against
        boxsim over loopback, followed by 3 s of silence (the microphone runs on after a command); from the end of the
        utterance holding the command to the session acting on it, median of \(runs) runs per row, all in this run. The
        live path waits until the speaker has stayed quiet \(CommandHold.Rule.measured.seconds) s after the spotter's \
        hit; the
        second opinion, asked as that wait begins, uploads the 4 s before the pause; listening goes on meanwhile.

        | case | utterance end → command acted on | added vs baseline | box's verdicts |
        |---|---|---|---|
        \(rows.joined(separator: "\n"))

        """)
}

/// When the command was acted on, against where its utterance ended in the audio.
private final class ActionLog: Sendable {
    private struct Seen {
        var origin = Double.infinity
        var acted: (wall: Double, at: Double)?
        var checked: (CheckOutcome, Double)?
    }
    private let seen = Mutex(Seen())

    func add(_ event: DictationEvent) {
        let time = Date().timeIntervalSince1970
        seen.withLock { seen in
            switch event {
            case .level(let elapsed, _): seen.origin = min(seen.origin, time - elapsed)
            case .keyword(_, _, let at): if seen.acted == nil { seen.acted = (time, at) }
            case .commandChecked(_, let verdict, let seconds): seen.checked = (verdict, seconds)
            default: break
            }
        }
    }

    /// The box's verdict and how long after asking it was in.
    var verdict: (CheckOutcome, Double)? { seen.withLock { $0.checked } }

    func delay() -> Double? {
        seen.withLock { seen in
            guard let acted = seen.acted, seen.origin.isFinite else { return nil }
            return acted.wall - (seen.origin + acted.at)
        }
    }
}
