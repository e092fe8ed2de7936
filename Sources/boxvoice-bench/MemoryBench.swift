import BoxSim
import Foundation

/// `boxvoice-bench memory`: the peak resident memory of `boxvoice dictate` over recordings of several lengths fed as
/// fast as it can take them, into a boxsim with instant HQ. Each run is its own process, measured by `wait4`.
/// `plot`: the longest recording's resident memory, sampled once a second, written there as `seconds<TAB>MB` lines.
func benchMemory(boxvoice: String, samples: String, minutes: [Double], plot: String?) throws {
    let work = NSTemporaryDirectory() + "boxvoice-memory-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }
    var rows: [(name: String, peak: Double, rest: String)] = []
    // The live decoder's dictionary cut is made on a machine's first run and reused after (Models/README.md): make it
    // beforehand, so each row measures a dictation, and report that one-off run apart.
    var warm = ProcessInfo.processInfo.environment
    warm["XDG_CACHE_HOME"] = work + "/cache"
    let (warmStatus, warmPeakKB) = try spawnAndMeasure(
        boxvoice, ["listen", "--input", samples + "/none-weather.wav"], environment: warm)
    guard warmStatus == 0 else {
        throw BenchFailure(message: "boxvoice listen exited with \(warmStatus) while making the dictionary cut")
    }
    // The longest recording of ten minutes or less is also run with each fixed upload codec: encoding Opus must not
    // cost memory (the issue's bound: within 5 MB of WAV).
    let codecLength = minutes.filter { $0 <= 10 }.max()
    var runs: [(length: Double, codec: String?)] = minutes.map { ($0, nil) }
    if let codecLength { runs += [(codecLength, "wav"), (codecLength, "opus")] }
    for (length, codec) in runs {
        let label = "\(Int(length))-\(codec ?? "auto")"
        let clip = work + "/recording.wav"
        try speechRecording(seconds: length * 60, samples: samples, path: clip)
        var configuration = BoxSimConfiguration(
            dataDirectory: work + "/box-" + label, hq: .fixed("Text of one segment."))
        configuration.defaultSession = "s1"
        let home = try PairedHome(
            boxvoice: boxvoice, folder: work + "/home-\(label)", cache: work + "/cache", box: configuration)
        defer { home.stop() }
        let box = home.box, environment = home.environment
        let started = Date()
        let dictate = ["dictate", "--no-keys", "--input", clip] + (codec.map { ["--codec", $0] } ?? [])
        let status: Int32, peakKB: Int
        if let plot, codec == nil, length == minutes.max() {
            let run = try spawnAndSample(boxvoice, dictate, environment: environment)
            (status, peakKB) = (run.status, run.peakKB)
            let lines = run.samples.map { String(format: "%.1f\t%.1f", $0.seconds, $0.megabytes) }
            try (lines.joined(separator: "\n") + "\n").write(toFile: plot, atomically: true, encoding: .utf8)
        } else {
            (status, peakKB) = try spawnAndMeasure(boxvoice, dictate, environment: environment)
        }
        let wall = Date().timeIntervalSince(started)
        guard status == 0 else {
            throw BenchFailure(message: "boxvoice dictate exited with \(status) on the \(Int(length)) min recording")
        }
        let formats = Set(box.transcriptions.map(\.guessedFormat)).sorted().joined(separator: "+")
        rows.append(
            (
                "\(Int(length)) min, `--codec \(codec ?? "auto")` (sent \(formats))", Double(peakKB) / 1024,
                "\(String(format: "%.0f", wall)) s | \(box.messages.count) |"
            ))
        try? FileManager.default.removeItem(atPath: clip)
    }
    let peaks = rows.map(\.peak)
    let shortest = peaks.first ?? 0
    let table = rows.map { row in
        "| \(row.name) | " + String(format: "%.1f MB | %.2f× | ", row.peak, row.peak / max(shortest, 1)) + row.rest
    }
    print(
        """
        ### Memory over a long dictation

        <!-- headline: `dictate` peaks at \(String(format: "%.0f", peaks.max() ?? 0)) MB over \
        \(Int(minutes.max() ?? 0)) min, \(String(format: "%.2f", (peaks.max() ?? 0) / max(shortest, 1)))× its \
        \(Int(minutes.min() ?? 0)) min peak -->

        `boxvoice dictate --input` over recordings of keyword-free sample speech ending in a spoken send, fed as fast \
        as the live path takes them, into boxsim with instant HQ; peak resident set of the process alone (GNU `time`). \
        Baseline: the shortest recording's peak (aim: flat in length; the codecs within 5 MB of each other).

        | recording | peak resident memory | against the shortest | wall time | messages the box got |
        |---|---|---|---|---|
        \(table.joined(separator: "\n"))
        \(plot == nil ? "" : "\n![resident memory over the longest dictation](memory.png)\n")
        The first run on a machine makes the live decoder's dictionary cut (`boxvoice listen`, 4 s): \
        \(String(format: "%.1f", Double(warmPeakKB) / 1024)) MB.
        """)
}

/// Runs a program with its output discarded; returns its exit status and its own peak RSS in KiB.
///
/// Through GNU time, not `posix_spawn` + `wait4` from here: a spawned child borrows this process's memory until it
/// execs, and the kernel records that memory's high-water mark as the child's own `ru_maxrss`. After the long
/// recordings this process is ~240 MB, which then showed up as the 60 min "peak" of `boxvoice dictate` (while the
/// dictation's own VmHWM stayed at ~140 MB). `time` is small, forks the program afresh and reports its peak alone.
func spawnAndMeasure(
    _ path: String, _ arguments: [String], environment: [String: String], whileRunning: ((pid_t) -> Void)? = nil
) throws -> (Int32, Int) {
    let report = NSTemporaryDirectory() + "boxvoice-bench-peak-\(getpid()).txt"
    defer { try? FileManager.default.removeItem(atPath: report) }
    let (status, _) = try spawn(
        "/usr/bin/time", ["-f", "%M", "-o", report, path] + arguments, environment: environment,
        whileRunning: whileRunning)
    guard let text = try? String(contentsOfFile: report, encoding: .utf8),
        let kilobytes = text.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
    else {
        throw BenchFailure(
            message: "/usr/bin/time reported no peak for \(path) (is the Debian package `time` installed?)")
    }
    return (status, kilobytes)
}

/// `spawnAndMeasure`, with the program's resident memory sampled once a second as it runs: (seconds since its start,
/// MB). The samples read `/proc` of the program itself, `time`'s child.
func spawnAndSample(_ path: String, _ arguments: [String], environment: [String: String]) throws
    -> (status: Int32, peakKB: Int, samples: [(seconds: Double, megabytes: Double)])
{
    var samples: [(seconds: Double, megabytes: Double)] = []
    let started = Date()
    let (status, peakKB) = try spawnAndMeasure(path, arguments, environment: environment) { timePID in
        guard
            let children = try? String(
                contentsOfFile: "/proc/\(timePID)/task/\(timePID)/children", encoding: .utf8),
            let child = children.split(separator: " ").first,
            let status = try? String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return }
        samples.append((Date().timeIntervalSince(started), Double(kilobytes) / 1024))
    }
    return (status, peakKB, samples)
}

/// Runs the program; `whileRunning`, if given, is called with its pid about once a second until it exits.
private func spawn(
    _ path: String, _ arguments: [String], environment: [String: String], whileRunning: ((pid_t) -> Void)? = nil
) throws -> (Int32, Int) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, path, &actions, nil, argv, envp)
    guard rc == 0 else { throw BenchFailure(message: "cannot start \(path): \(String(cString: strerror(rc)))") }
    var status: Int32 = 0
    var usage = rusage()
    if let whileRunning {
        while true {
            let waited = wait4(pid, &status, WNOHANG, &usage)
            if waited == pid { break }
            if waited < 0 && errno != EINTR {
                throw BenchFailure(message: "cannot wait for \(path): \(String(cString: strerror(errno)))")
            }
            whileRunning(pid)
            Thread.sleep(forTimeInterval: 1)
        }
    } else {
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    }
    let exited = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exited, usage.ru_maxrss)
}
