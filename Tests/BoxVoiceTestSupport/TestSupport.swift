import BoxVoiceAudio
import Foundation
#if canImport(Testing)
    import Testing
#endif

/// Where the checkout is, found from this file's own path (tests run from any directory).
public enum Checkout {
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    public static func sample(_ name: String) -> String { root + "/Samples/" + name }

    /// The company's shared folder beside the checkout (CI has it; a user's clone does not): only the drift check reads
    /// it.
    public static var shared: String { (root as NSString).deletingLastPathComponent + "/shared" }
    /// The box's golden vectors, vendored (Vectors/README.md).
    public static var vectors: String { root + "/Vectors" }
}

/// A fresh folder under /tmp, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "test") {
        let template = NSTemporaryDirectory() + "boxvoice-\(label)-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { fatalError("mkdtemp failed for \(template)") }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}

public enum WAV {
    /// Every sample of a mono WAV, with its format facts.
    public static func read(_ path: String) throws -> (
        samples: [Float], sampleRate: Int, channels: Int, isFloat32: Bool
    ) {
        let file = try SoundFile.open(path: path)
        return (try file.readAll(), file.sampleRate, file.channels, file.isFloat32)
    }

    public static func samples(_ path: String) throws -> [Float] { try read(path).samples }

    /// The samples from the first to the last that is not silence (the clips' pads are digital silence): a clip
    /// whose last word is the last audio, as when the input ends at the command.
    public static func speechOnly(_ samples: [Float], threshold: Float = 0.001) -> [Float] {
        guard let first = samples.firstIndex(where: { abs($0) > threshold }),
            let last = samples.lastIndex(where: { abs($0) > threshold })
        else { return [] }
        return Array(samples[first...last])
    }

    /// The samples up to the last that is not silence (trailing silence cut, leading kept).
    public static func untilLastSpeech(_ samples: [Float], threshold: Float = 0.001) -> [Float] {
        guard let last = samples.lastIndex(where: { abs($0) > threshold }) else { return samples }
        return Array(samples[...last])
    }

    /// A committed sample written to `path` ending at its last word (trailing silence cut, leading kept).
    public static func endingAtSpeech(_ sample: String, to path: String) throws {
        try write(untilLastSpeech(try self.samples(Checkout.sample(sample))), to: path)
    }

    /// Writes samples as a 48 kHz mono Float32 WAV.
    public static func write(_ samples: [Float], to path: String) throws {
        let file = try SoundFile.createFloatWAV(path: path)
        try file.write(samples)
        try file.close()
    }

    /// Sample clips (a name in Samples/, or a path from `/`) played one after another with `gap` seconds of silence
    /// between them, as one WAV at `path`; returns the frame each clip starts at and the total.
    @discardableResult
    /// - Parameter trailing: seconds of silence after the last clip's last word (the microphone running on); 0 ends
    ///   the input at that word, as a file or a stopped turn ending at its command does.
    /// - Parameter tight: every clip cut to its speech, so `gap` is all the pause there is between them (clips said
    ///   in one breath).
    public static func concatenate(
        _ clips: [String], gap: Double = 0.5, trailing: Double = 0, tight: Bool = false,
        to path: String
    ) throws -> (starts: [Int], frames: Int) {
        var joined: [Float] = []
        var starts: [Int] = []
        for (index, clip) in clips.enumerated() {
            if index > 0 { joined += [Float](repeating: 0, count: Int(gap * 48_000)) }
            starts.append(joined.count)
            let whole = try samples(clip.hasPrefix("/") ? clip : Checkout.sample(clip))
            let audio = tight ? speechOnly(whole) : whole
            joined += index == clips.count - 1 ? untilLastSpeech(audio) : audio
        }
        joined += [Float](repeating: 0, count: Int(trailing * 48_000))
        try write(joined, to: path)
        return (starts, joined.count)
    }
}

/// A child process left running while a test talks to it: its output is collected as it comes.
public final class Spawned: @unchecked Sendable {
    public let process = Process()
    private let output = Output()
    private let group = DispatchGroup()
    public let stdin = Pipe()

    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = stdin
        try process.run()
        // The readers hold only the output (not `self`), so a test that ends early — a failed `#require` — still
        // releases this value, whose deinit kills the process instead of leaving it running.
        let output = output
        let group = group
        for (pipe, isOut) in [(outPipe, true), (errPipe, false)] {
            // A thread of its own, not Dispatch's pool: a long-lived child (a daemon, a sound server) would hold a pool
            // thread in this blocking read for the whole test, and on two cores the pool then starts other work
            // (every `Run.process`) seconds late.
            group.enter()
            Thread {
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    output.append(chunk, toOut: isOut)
                }
                group.leave()
            }.start()
        }
    }

    public var stdout: String { output.text(out: true) }
    public var stderr: String { output.text(out: false) }

    /// What the process printed so far.
    private final class Output: @unchecked Sendable {
        // @unchecked: both buffers are touched under `lock` only.
        private let lock = NSLock()
        private var out = Data()
        private var err = Data()

        func append(_ chunk: Data, toOut: Bool) {
            lock.withLock { if toOut { out.append(chunk) } else { err.append(chunk) } }
        }
        func text(out wanted: Bool) -> String { lock.withLock { String(decoding: wanted ? out : err, as: UTF8.self) } }
    }

    /// Waits until stdout or stderr holds `text`; false on timeout or when the process ended without it.
    public func waitFor(_ text: String, timeout: TimeInterval = 30) -> Bool {
        waitUntil(timeout: timeout) { stdout, stderr in stdout.contains(text) || stderr.contains(text) }
    }

    /// Waits until `holds` is true of stdout and stderr as written so far; false on timeout or when the process
    /// ended without it.
    public func waitUntil(timeout: TimeInterval = 30, _ holds: (_ stdout: String, _ stderr: String) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if holds(stdout, stderr) { return true }
            if !process.isRunning {
                group.wait()
                return holds(stdout, stderr)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    public func signal(_ number: Int32) {
        if process.isRunning { kill(process.processIdentifier, number) }
    }

    /// Waits for the exit (SIGKILL after `timeout`) and for the last output; returns the exit status.
    @discardableResult
    public func wait(timeout: TimeInterval = 60) -> Int32 {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        group.wait()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Runs a program to completion, capturing its output.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Every device token a test has seen. Everything a tool prints during the suite is scanned for them:
/// a token may travel only in an `Authorization` header.
public enum Secrets {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var known: Set<String> = []

    public static func register(_ secret: String) {
        guard secret.count >= 8 else { return }
        _ = lock.withLock { known.insert(secret) }
    }

    /// The registered secrets that occur in `text`.
    public static func leaked(in text: String) -> [String] {
        lock.withLock { known.filter { text.contains($0) } }
    }
}

public enum Run {
    /// The `boxvoice` binary built beside the test bundle.
    public static var boxvoice: String {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return ((exe as NSString).deletingLastPathComponent as NSString).appendingPathComponent("boxvoice")
    }

    /// - Parameter input: what the child reads on stdin (then end of file); nil gives it /dev/null, so a child that
    ///   reads keys from stdin never inherits the test runner's.
    public static func process(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        input: Data? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        // Read both pipes before waiting, so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        group.wait()
        process.waitUntilExit()
        let result = ProcessResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
        let leaks = Secrets.leaked(in: result.stdout + result.stderr)
        #if canImport(Testing)
            if !leaks.isEmpty {
                Issue.record("\(executable) \(arguments.joined(separator: " ")) printed a device token")
            }
        #endif
        return result
    }

    /// This process's environment with XDG data, config and runtime folders under `home`: a user with nothing paired
    /// or kept yet, and no daemon.
    public static func isolatedEnvironment(_ home: TemporaryDirectory) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = home.file("data")
        environment["XDG_CONFIG_HOME"] = home.file("config")
        environment["XDG_RUNTIME_DIR"] = home.file("run")
        environment["XDG_CACHE_HOME"] = home.file("cache")
        SharedCache.link(into: home.file("cache/boxvoice"))
        return environment
    }

    public static func boxvoice(_ arguments: String..., environment: [String: String]? = nil) throws -> ProcessResult {
        try process(boxvoice, arguments, environment: environment)
    }
}

/// Deterministic test signals.
public enum Signal {
    /// A tone burst pattern: loud `tone` everywhere except silent gaps at the given frame ranges.
    public static func toneWithGaps(
        frames: Int, gaps: [Range<Int>], amplitude: Float = 0.5, frequency: Double = 440, sampleRate: Double = 48_000
    ) -> [Float] {
        var samples = (0..<frames).map { Float(sin(2 * .pi * frequency * Double($0) / sampleRate)) * amplitude }
        for gap in gaps { for i in gap.clamped(to: 0..<frames) { samples[i] = 0 } }
        return samples
    }

    /// Stretches of at least `minimumSeconds` where every 10 ms window is 40 dB below the clip's peak, in seconds.
    public static func silences(_ samples: [Float], sampleRate: Int, minimumSeconds: Double) -> [ClosedRange<Double>] {
        let window = sampleRate / 100
        let peak = samples.map(abs).max() ?? 0
        let floor = Double(peak) * 0.01
        var result: [ClosedRange<Double>] = []
        var start: Int?
        for index in stride(from: 0, to: samples.count, by: window) {
            let slice = samples[index..<min(index + window, samples.count)]
            let rms = (slice.reduce(0) { $0 + Double($1) * Double($1) } / Double(slice.count)).squareRoot()
            if rms < floor {
                start = start ?? index
            } else if let begun = start {
                if index - begun >= Int(minimumSeconds * Double(sampleRate)) {
                    result.append(Double(begun) / Double(sampleRate)...Double(index) / Double(sampleRate))
                }
                start = nil
            }
        }
        if let begun = start, samples.count - begun >= Int(minimumSeconds * Double(sampleRate)) {
            result.append(Double(begun) / Double(sampleRate)...Double(samples.count) / Double(sampleRate))
        }
        return result
    }

    /// Energy of each `window`-frame window starting at `start`.
    public static func energy(_ samples: [Float], from start: Int, count: Int) -> Double {
        samples[start..<min(start + count, samples.count)].reduce(0) { $0 + Double($1) * Double($1) }
    }
}

/// Where two sample arrays first differ (nil: identical), for expectations whose failure message must not print
/// millions of samples.
public func firstDifference(_ a: [Float], _ b: [Float]) -> String? {
    if let index = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) {
        return "sample \(index): \(a[index]) vs \(b[index])"
    }
    return a.count == b.count ? nil : "lengths \(a.count) vs \(b.count)"
}

/// A `boxvoice daemon` whose microphone is an ALSA `file` PCM playing `sample`, with `status --follow --json` watching
/// it (already idle when this returns): what every daemon-turn test starts from.
public struct DaemonUnderTest {
    public let mic: FileCapturePCM.Made
    public let daemon: Spawned
    public let follow: Spawned

    /// - Parameter prepare: runs after the PCM is made and before the daemon starts (to add to its ALSA configuration).
    public init(
        sample: String, home: TemporaryDirectory, environment: [String: String], micName: String = "mic",
        prepare: (FileCapturePCM.Made) throws -> Void = { _ in }
    ) throws {
        mic = try FileCapturePCM.make(
            samples: WAV.samples(Checkout.sample(sample)), name: micName, directory: home.file("alsa"))
        try prepare(mic)
        daemon = try Spawned(
            Run.boxvoice, ["daemon", "--alsa-config", mic.configPath, "--device", mic.name], environment: environment)
        guard daemon.waitFor("control socket") else { throw NotStarted(what: "the daemon", log: daemon.stderr) }
        follow = try Spawned(Run.boxvoice, ["status", "--follow", "--json"], environment: environment)
        guard follow.waitFor("\"state\":\"idle\"") else {
            throw NotStarted(what: "status --follow", log: daemon.stderr)
        }
    }

    /// A test cannot go on: what did not start, with the daemon's log.
    public struct NotStarted: Error, CustomStringConvertible {
        public let what: String
        public let log: String
        public var description: String { "\(what) did not start in time: \(log)" }
    }
}

/// The neural hearing parts `make setup` builds (scripts/hearing-parts.sh) and the clips' known transcripts.
public enum HearingParts {
    public static var folder: String { Checkout.root + "/.build/hearing/models" }
    public static var prompt: String { Checkout.root + "/Models/whisper-prompt.en.txt" }

    /// One committed clip and what it says (Samples/transcripts.json).
    public struct Clip: Decodable, Sendable {
        public let file: String
        public let text: String
        public let voice: String
        public let expectedAction: String?
    }

    public static func clips() throws -> [Clip] {
        try JSONDecoder().decode(
            [Clip].self, from: Data(contentsOf: URL(fileURLWithPath: Checkout.root + "/Samples/transcripts.json")))
    }
}
