import BoxSim
import BoxVoiceKeywords
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation

/// Issue "a dictated message is safe from the moment its command is heard": the cost of the commit at the command,
/// against the least any durable write costs (the same bytes written and fsync'd to a file), and `kill -9` at random
/// moments over every phase of a dictation followed by one box-talking command.
func benchDurability(boxvoice: String, trials: Int, commits: Int) throws {
    let work = TemporaryDirectory("bench-durability")
    try benchCommit(in: work, count: commits)
    try benchKills(boxvoice: boxvoice, trials: trials, work: work)
}

private func benchCommit(in work: TemporaryDirectory, count: Int) throws {
    let store = try MessageStore(directory: work.file("store"), retentionLimit: count + 1)
    // A message as the live pass commits it: some words, then the vocabulary's first send phrase.
    let detector = try KeywordDetector(contentsOf: Checkout.keywordVocabulary)
    let phrase =
        detector.vocabulary.sections.first { $0.action == .send }?.patterns.first?.expansions().first?.joined(
            separator: " ") ?? ""
    let heard = "please buy milk and eggs on the way home " + phrase
    guard let match = detector.detect(heard) else {
        throw BenchFailure(message: "the send phrase '\(phrase)' is not detected")
    }
    let ending = MessageStore.Ending(
        heardText: heard, command: HeardCommand(match), liveText: match.processedTranscript)
    var ours: [Double] = []
    var baseline: [Double] = []
    let plain = work.file("plain.bin")
    let bytes = Array((heard + ending.liveText + "home s1 " + phrase).utf8)
    for _ in 0..<count {
        let recording = try store.beginRecording(box: "home", session: "s1")
        let start = DispatchTime.now().uptimeNanoseconds
        try store.commitSend(recording.id, ending, liveBody: nil)
        ours.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        // Baseline: the same bytes appended to a file and fsync'd — the floor for any write that survives a crash.
        let fd = open(plain, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let base = DispatchTime.now().uptimeNanoseconds
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        baseline.append(Double(DispatchTime.now().uptimeNanoseconds - base) / 1e6)
        close(fd)
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    func p95(_ values: [Double]) -> Double { values.sorted()[min(values.count - 1, Int(Double(values.count) * 0.95))] }
    let ratio = median(ours) / max(median(baseline), 1e-9)
    print(
        """
        ### The commit at the command

        <!-- headline: a send's commit takes \(String(format: "%.2f", median(ours))) ms (median), an fsync'd append \
        \(String(format: "%.2f", median(baseline))) ms: \(String(format: "%.2f", ratio))× -->

        `MessageStore.commitSend` — one `BEGIN IMMEDIATE … COMMIT` in WAL mode with `synchronous=FULL` (the WAL is \
        fsync'd), on this
        machine's disk, \(count) commits; baseline: the same ~\(bytes.count) bytes appended to a file and `fsync`'d, \
        in the same loop. Aim: median ≤ 10 ms.

        | what | median ms | p95 ms |
        |---|---|---|
        | commit at the command (`commitSend`, awaiting HQ) | \(String(format: "%.2f", median(ours))) | \
        \(String(format: "%.2f", p95(ours))) |
        | baseline: write + fsync of the same bytes | \(String(format: "%.2f", median(baseline))) | \
        \(String(format: "%.2f", p95(baseline))) |
        | **ratio commit / fsync** | **\(String(format: "%.2f", ratio))×** | |

        """)
}

private func benchKills(boxvoice: String, trials: Int, work: TemporaryDirectory) throws {
    var configuration = BoxSimConfiguration(dataDirectory: work.file("box"), hq: .slow(1), hqText: KillTrials.hqText)
    configuration.defaultSession = "s1"
    configuration.sendDelaySeconds = 1.5
    let box = try BoxSimServer(configuration: configuration)
    defer { box.stop() }
    let home = TemporaryDirectory("bench-kill-home")
    let environment = try Run.pairedEnvironment(home, with: box)
    var random = SeededRandom(seed: 2026)
    var rows: [KillTrials.Phase: (trials: Int, heard: Int)] = [:]
    var outcomes: [KillTrials.Outcome] = []
    var retryFailures = 0
    let phases = KillTrials.Phase.allCases
    for index in 0..<trials {
        let phase = phases[index % phases.count]
        let delay =
            switch phase {
            case .beforeCommand: Double.random(in: 0...2, using: &random)
            case .duringPost, .duringHQ: Double.random(in: 0...0.8, using: &random)
            default: Double.random(in: 0...0.05, using: &random)
            }
        let outcome = try KillTrials.run(phase, delay: delay, boxvoice: boxvoice, environment: environment)
        outcomes.append(outcome)
        rows[phase, default: (0, 0)].trials += 1
        if outcome.commandHeard { rows[phase, default: (0, 0)].heard += 1 }
        let retry = try Run.process(boxvoice, ["outbox", "retry"], environment: environment)
        if retry.status != 0 { retryFailures += 1 }
    }
    let messages = box.messages
    var lost = 0
    var duplicates = 0
    for outcome in outcomes where outcome.commandHeard {
        guard let id = outcome.messageId else { continue }
        let count = messages.filter { $0.messageId == id }.count
        if count == 0 { lost += 1 }
        if count > 1 { duplicates += 1 }
    }
    let heardTotal = outcomes.filter(\.commandHeard).count
    let unknownIds = outcomes.filter { $0.commandHeard && $0.messageId == nil }.count
    let hq = messages.filter {
        $0.message.hasPrefix("<speech stt-service=") && $0.message.contains("Please buy milk and eggs.")
    }.count
    let live = messages.filter { $0.message.hasPrefix("<speech stt=\"live\"") }.count
    let disk = try KillTrials.inspect(data: home.file("data/boxvoice"))
    var table = "| phase of the kill | trials | send heard before the kill |\n|---|---|---|\n"
    for phase in phases {
        table += "| \(phase.rawValue) | \(rows[phase]?.trials ?? 0) | \(rows[phase]?.heard ?? 0) |\n"
    }
    print(
        """
        ### `kill -9` in every phase

        <!-- headline: \(trials) kills in every phase: \(max(lost, heardTotal - messages.count)) lost, \
        \(duplicates) duplicated -->

        \(trials) trials: `boxvoice dictate --json --once --input Samples/send-buy-milk.wav` against boxsim (HQ takes \
        1 s, each send is
        held 1.5 s) is killed with SIGKILL when its events show the phase (plus a seeded random delay: up to 2 s after \
        listening
        starts, up to 0.8 s into HQ or the POST), then `boxvoice outbox retry` runs once. One user, one box, all \
        trials in a row.

        \(table)
        | figure | value |
        |---|---|
        | sends heard before the kill | \(heardTotal) |
        | messages at the box | \(messages.count) |
        | **lost** (heard, never at the box) | **\(max(lost, heardTotal - messages.count))** |
        | **duplicates at the box** | **\(duplicates)** |
        | delivered with the HQ text | \(hq) |
        | delivered with the live text (`stt="live"`) | \(live) |
        | heard, but killed before its id was printed | \(unknownIds) |
        | unplayable WAVs left | \(disk.unplayable.count) |
        | message folders without a row | \(disk.foldersWithoutARow.count) |
        | `outbox retry` runs that failed | \(retryFailures) |

        """)
}
