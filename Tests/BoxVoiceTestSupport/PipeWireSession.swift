import BoxVoiceAudio
import Foundation
import Glibc

/// A real PipeWire sound server for one test, as a desktop runs it: a private D-Bus session, `pipewire` (its dummy
/// driver clocks the graph, no hardware needed) and `wireplumber` (which links streams to nodes), all in a private
/// runtime folder. Microphones are virtual sources a WAV is played into; removing one is what unplugging a USB
/// microphone does to a stream: it stops delivering, without any error.
///
/// Nothing of the machine changes: the ALSA PCM that reaches it is defined in a configuration file of the test's own
/// (`alsaConfig`), which names the server's socket by its absolute path, so no environment variable is needed.
public final class PipeWireSession: @unchecked Sendable {
    // @unchecked: `sources` is touched under `lock` only; the rest is set once in init.
    public let runtime = TemporaryDirectory("pipewire")
    private var daemons: [Spawned] = []
    private let lock = NSLock()
    private var sources: [String: Spawned] = [:]
    /// What is being played into each source (ended with it: wireplumber would link it to the next source).
    private var players: [String: [Spawned]] = [:]
    private let environment: [String: String]

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["PIPEWIRE_RUNTIME_DIR"] = runtime.path
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(runtime.path)/bus"
        // The server's own log level; wireplumber's warnings about missing cameras and Bluetooth stay out.
        environment["PIPEWIRE_LOG_LEVEL"] = "1"
        environment["WIREPLUMBER_DEBUG"] = "1"
        self.environment = environment
        chmod(runtime.path, 0o700)
        for tool in [
            "/usr/bin/dbus-daemon", "/usr/bin/pipewire", "/usr/bin/wireplumber", "/usr/bin/pw-loopback",
            "/usr/bin/pw-cat",
        ]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw Unavailable(
                description:
                    "\(tool) is missing: `make test` installs pipewire, pipewire-bin, wireplumber and pipewire-alsa")
        }
        daemons.append(
            try Spawned(
                "/usr/bin/dbus-daemon",
                ["--session", "--nofork", "--nopidfile", "--address=unix:path=\(runtime.path)/bus"],
                environment: environment))
        try Self.wait(for: runtime.path + "/bus", what: "the D-Bus session")
        daemons.append(try Spawned("/usr/bin/pipewire", [], environment: environment))
        try Self.wait(for: socket, what: "pipewire")

        daemons.append(try Spawned("/usr/bin/wireplumber", [], environment: environment))
        // wireplumber is ready once it has published the default-nodes metadata.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let listed = try? Run.process("/usr/bin/pw-cli", ["ls", "Metadata"], environment: environment),
                listed.stdout.contains("default")
            {
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Unavailable(description: "wireplumber did not start: \(daemons.last!.stderr.suffix(500))")
    }

    /// The server's socket: what the ALSA plugin connects to.
    public var socket: String { runtime.path + "/pipewire-0" }

    /// Adds a virtual microphone `name`: a source whose audio is what is played into `name-feed`.
    public func addSource(_ name: String) throws {
        let loop = try Spawned(
            "/usr/bin/pw-loopback",
            [
                "--capture-props=media.class=Audio/Sink node.name=\(name)-feed audio.position=[MONO]",
                "--playback-props=media.class=Audio/Source node.name=\(name) audio.position=[MONO]",
            ], environment: environment)
        lock.withLock { sources[name] = loop }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let listed = try? Run.process("/usr/bin/pw-cli", ["ls", "Node"], environment: environment),
                listed.stdout.contains("\"\(name)\""), listed.stdout.contains("\"\(name)-feed\"")
            {
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Unavailable(description: "the virtual source \(name) did not appear: \(loop.stderr.suffix(500))")
    }

    /// Plays `wav` into the source `name` (at the pace of the server's clock), as a person speaking into it.
    public func play(_ wav: String, into name: String) throws {
        let player = try Spawned(
            "/usr/bin/pw-cat", ["--playback", "--target", "\(name)-feed", wav], environment: environment)
        lock.withLock { players[name, default: []].append(player) }
    }

    /// Removes the source `name`, as unplugging a microphone does: a stream reading it stops getting audio.
    public func removeSource(_ name: String) {
        let (loop, playing) = lock.withLock {
            (sources.removeValue(forKey: name), players.removeValue(forKey: name) ?? [])
        }
        loop?.signal(SIGTERM)
        loop?.wait(timeout: 2)
        for player in playing {
            player.signal(SIGTERM)
            player.wait(timeout: 2)
        }
    }

    /// An ALSA configuration defining `pcm.NAME` for each source name given: a capture PCM reading that source.
    public func alsaConfig(for names: [String], in folder: TemporaryDirectory) throws -> String {
        var text = "pcm_type.pipewire { lib \"\(Self.pluginPath)\" }\n"
        for name in names {
            text += """
                pcm.\(name) {
                    type pipewire
                    server "\(socket)"
                    capture_node "\(name)"
                    playback_node "-1"
                    exclusive false
                    role ""
                    rate 0
                    format ""
                    channels 0
                    period_bytes 0
                    buffer_bytes 0
                }

                """
        }
        let path = folder.file("pipewire-alsa.conf")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static var pluginPath: String {
        let candidates = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"].map {
            $0 + "/alsa-lib/libasound_module_pcm_pipewire.so"
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
    }

    private static func wait(for path: String, what: String) throws {
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: path) {
            guard Date() < deadline else { throw Unavailable(description: "\(what) did not start (no \(path))") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    deinit {
        let (loops, playing) = lock.withLock { (Array(sources.values), players.values.flatMap { $0 }) }
        // All are asked at once; what has not ended a second later is killed.
        let all = playing + loops + daemons.reversed()
        all.forEach { $0.signal(SIGTERM) }
        let deadline = Date().addingTimeInterval(1)
        for spawned in all { spawned.wait(timeout: max(0, deadline.timeIntervalSinceNow)) }
    }
}

/// One unplugging: a second of `wav` is recorded from a PipeWire source, then the source is removed while the
/// recording goes on. Shared by the capture test and the bench.
public enum UnpluggedRecording {
    public struct Outcome {
        public let summary: RecordingSummary
        /// From the removal to the recording's end.
        public let detectedAfter: Double
    }

    public static func run(_ wav: String, folder: TemporaryDirectory) throws -> Outcome {
        let server = try PipeWireSession()
        try server.addSource("mic")
        let config = try server.alsaConfig(for: ["mic"], in: folder)
        try server.play(wav, into: "mic")
        let pcm = try ALSACapturePCM(name: "mic", configFile: config)
        defer { pcm.close() }
        let capture = AudioCapture(pcm: pcm)
        let recorder = Recorder(
            capture: capture, writer: SegmentWriter(directory: folder.file("out")), maxFrames: 60 * 48_000)
        let removed = Moment()
        Thread {
            let deadline = Date().addingTimeInterval(20)
            while capture.statistics.framesCaptured < 48_000, Date() < deadline { usleep(10_000) }
            removed.mark()
            server.removeSource("mic")
        }.start()
        let summary = try recorder.run(stop: StopSignal())
        let ended = Date()
        return Outcome(summary: summary, detectedAfter: removed.at.map { ended.timeIntervalSince($0) } ?? .infinity)
    }
}

/// A moment set on one thread and read on another.
public final class Moment: @unchecked Sendable {
    // @unchecked: `moment` is touched under `lock` only.
    private let lock = NSLock()
    private var moment: Date?
    public init() {}
    public func mark() { lock.withLock { if moment == nil { moment = Date() } } }
    public var at: Date? { lock.withLock { moment } }
}
