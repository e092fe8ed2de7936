import BoxSim
import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

/// The daemon's control socket, end to end: the real socket, a dictation turn recorded from an ALSA `file` PCM,
/// boxsim over loopback.
@Suite struct DaemonControlTests {
    @Test func startAndStopRunADictationTurnFromAnALSAFilePCMAndDeliverIt() throws {
        let box = try SimulatedBox {
            $0.hq = .fixed("The weather today is sunny."); $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("daemon-control")
        let env = try Run.pairedEnvironment(home, with: box.server)
        box.server.devices.map(\.token).forEach(Secrets.register)
        let mic = try FileCapturePCM.make(
            samples: WAV.samples(Checkout.sample("none-weather.wav")), name: "desk_mic", directory: home.file("alsa"))
        let daemon = try Spawned(
            Run.boxvoice, ["daemon", "--alsa-config", mic.configPath, "--device", mic.name], environment: env)
        #expect(daemon.waitFor("control socket"), "\(daemon.stderr)")

        // The socket is the user's alone.
        let socket = home.file("run/boxvoice/control.sock")
        let mode = try FileManager.default.attributesOfItem(atPath: socket)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let follow = try Spawned(Run.boxvoice, ["status", "--follow", "--json"], environment: env)
        #expect(follow.waitFor("\"state\":\"idle\""))
        // The same stream in words for a person, and as status-bar states.
        let words = try Spawned(Run.boxvoice, ["status", "--follow"], environment: env)
        let bar = try Spawned(Run.boxvoice, ["status", "--follow", "--waybar"], environment: env)
        #expect(words.waitFor("idle") && bar.waitFor("\"class\":\"idle\""))

        let started = try Run.process(Run.boxvoice, ["start"], environment: env)
        #expect(started.status == 0, "\(started.stdout)\(started.stderr)")
        #expect(started.stdout.hasPrefix("dictating"))
        #expect(try Run.process(Run.boxvoice, ["start"], environment: env).status == 1, "one turn at a time")
        #expect(follow.waitFor("\"event\":\"final\""), "the turn heard the clip: \(daemon.stderr)")
        let status = try Run.process(Run.boxvoice, ["status"], environment: env)
        #expect(status.stdout.hasPrefix("dictating for "))

        let stopped = try Run.process(Run.boxvoice, ["stop"], environment: env)
        #expect(stopped.status == 0)
        #expect(follow.waitFor("\"event\":\"delivered\""), "\(daemon.stderr)")
        #expect(follow.waitFor("\"event\":\"idle\""))
        #expect(words.waitFor("delivered "), "\(words.stdout)")
        #expect(words.stdout.contains("… ") && !words.stdout.contains("{"), "what was heard, in words: \(words.stdout)")
        #expect(bar.waitFor("\"class\":\"recording\""), "\(bar.stdout)")
        // The bar is a process of its own: it may show the turn's end after the JSON stream does.
        #expect(
            bar.waitUntil { stdout, _ in
                stdout.split(separator: "\n").count >= 3
                    && stdout.hasSuffix("\"class\":\"idle\",\"text\":\"\",\"tooltip\":\"boxvoice: idle\"}\n")
            },
            "idle, recording, idle: \(bar.stdout)")
        #expect(box.server.messages.count == 1)
        // The file PCM is paced like a microphone: a turn of a few seconds is one segment, one HQ upload.
        #expect(box.server.transcriptions.count == 1)
        #expect(
            box.server.messages.first?.message.hasSuffix(">The weather today is sunny.</speech>") == true,
            "\(box.server.messages.map(\.message)) \(box.server.transcriptions.count) HQ uploads; \(daemon.stderr)")
        #expect(try Run.process(Run.boxvoice, ["stop"], environment: env).stdout == "not dictating\n")

        // A second daemon for the same user is refused and leaves the first one's socket alone.
        let second = try Run.process(Run.boxvoice, ["daemon"], environment: env)
        #expect(second.status == 1)
        #expect(second.stderr.contains("another boxvoice daemon is already running"))
        #expect(try Run.process(Run.boxvoice, ["status"], environment: env).stdout.hasPrefix("idle"))

        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
        // The bar outlives the daemon: it says `stopped` and waits for the next one.
        #expect(bar.waitFor("\"class\":\"stopped\""), "\(bar.stdout)")
        let again = try Spawned(
            Run.boxvoice, ["daemon", "--alsa-config", mic.configPath, "--device", mic.name], environment: env)
        #expect(again.waitFor("control socket"), "\(again.stderr)")
        let idleAgain = Date().addingTimeInterval(30)
        while !bar.stdout.hasSuffix("\"tooltip\":\"boxvoice: idle\"}\n"), Date() < idleAgain { usleep(20_000) }
        #expect(
            bar.stdout.hasSuffix("\"tooltip\":\"boxvoice: idle\"}\n"), "idle once the daemon is back: \(bar.stdout)")
        again.signal(SIGTERM)
        #expect(again.wait() == 0)
        follow.signal(SIGTERM)
        follow.wait()
        words.signal(SIGTERM)
        bar.signal(SIGTERM)
        #expect(!FileManager.default.fileExists(atPath: socket))
        #expect(Secrets.leaked(in: daemon.stderr + follow.stdout).isEmpty)
    }

    /// A paired daemon whose microphone plays keyword-free speech, for turns that end by a key, not a spoken command.
    private func daemonOnKeywordFreeSpeech(_ name: String) throws -> (
        SimulatedBox, TemporaryDirectory, [String: String], DaemonUnderTest
    ) {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory(name)
        let env = try Run.pairedEnvironment(home, with: box.server)
        return (box, home, env, try DaemonUnderTest(sample: "none-budget.wav", home: home, environment: env))
    }

    @Test func cancelDropsTheTurnsMessage() throws {
        let (box, home, env, running) = try daemonOnKeywordFreeSpeech("daemon-cancel")
        let (daemon, follow) = (running.daemon, running.follow)
        #expect(try Run.process(Run.boxvoice, ["toggle"], environment: env).stdout.hasPrefix("dictating"))
        #expect(follow.waitFor("\"event\":\"final\""))
        #expect(try Run.process(Run.boxvoice, ["cancel"], environment: env).status == 0)
        #expect(follow.waitFor("\"event\":\"discarded\""))
        #expect(follow.waitFor("\"event\":\"idle\""))
        #expect(box.server.messages.isEmpty)
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
        withExtendedLifetime(home) {}  // its folders are the daemon's until it has stopped
    }

    /// A calibration saved (or reset) while the daemon runs applies from its next turn: the spotter's phrase file is
    /// chosen when a turn starts, not once when the daemon does.
    @Test func eachTurnHearsCommandsWithTheCalibrationSavedNow() throws {
        let (box, home, env, running) = try daemonOnKeywordFreeSpeech("daemon-calibration")
        let (daemon, follow) = (running.daemon, running.follow)
        let calibrated = home.file("config/boxvoice/command-spotter.txt")
        func count(_ text: String, in output: String) -> Int { output.components(separatedBy: text).count - 1 }
        /// Runs one turn (started, then cancelled) and returns the phrase file its start logged.
        func turn(_ number: Int) throws -> String? {
            #expect(try Run.process(Run.boxvoice, ["toggle"], environment: env).stdout.hasPrefix("dictating"))
            let deadline = Date(timeIntervalSinceNow: 30)
            while count("dictation turn started", in: daemon.stderr) < number, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            #expect(try Run.process(Run.boxvoice, ["cancel"], environment: env).status == 0)
            while count("\"event\":\"idle\"", in: follow.stdout) < number, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            #expect(count("\"event\":\"idle\"", in: follow.stdout) == number, "turn \(number) ended: \(follow.stdout)")
            let starts = daemon.stderr.split(separator: "\n").filter { $0.contains("dictation turn started") }
            guard starts.count == number, let line = starts.last, let open = line.range(of: "(commands: ") else {
                return nil
            }
            return String(line[open.upperBound...].dropLast())
        }

        #expect(try turn(1)?.hasSuffix("/Models/command-spotter.en.txt") == true, "\(daemon.stderr)")
        let tuned = try String(contentsOfFile: Checkout.root + "/Models/command-spotter.en.txt", encoding: .utf8)
        try tuned.write(toFile: calibrated, atomically: true, encoding: .utf8)
        #expect(try turn(2) == calibrated, "the calibration saved while the daemon ran: \(daemon.stderr)")
        #expect(try Run.process(Run.boxvoice, ["calibrate", "--reset"], environment: env).status == 0)
        #expect(try turn(3)?.hasSuffix("/Models/command-spotter.en.txt") == true, "after the reset: \(daemon.stderr)")
        #expect(box.server.messages.isEmpty)
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
        withExtendedLifetime(home) {}
    }

    /// `close-after-send`: a spoken send ends the turn by itself (the microphone closes); without it the turn goes on
    /// listening after the send until the hotkey ends it.
    @Test(arguments: [true, false])
    func closeAfterSendEndsTheTurnAtASpokenSend(_ close: Bool) throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("daemon-close")
        let env = try Run.pairedEnvironment(home, with: box.server)
        #expect(
            try Run.process(Run.boxvoice, ["config", "set", "close-after-send", String(close)], environment: env).status
                == 0)
        let running = try DaemonUnderTest(sample: "send-buy-milk.wav", home: home, environment: env)
        let (daemon, follow) = (running.daemon, running.follow)
        #expect(try Run.process(Run.boxvoice, ["toggle"], environment: env).stdout.hasPrefix("dictating"))
        #expect(follow.waitFor("\"event\":\"delivered\""), "\(daemon.stderr)")
        if close {
            #expect(follow.waitFor("\"event\":\"idle\""), "the turn ended by itself: \(daemon.stderr)")
            #expect(try Run.process(Run.boxvoice, ["status"], environment: env).stdout.hasPrefix("idle"))
        } else {
            #expect(
                try Run.process(Run.boxvoice, ["status"], environment: env).stdout.hasPrefix("dictating"),
                "still listening after the send")
            #expect(try Run.process(Run.boxvoice, ["stop"], environment: env).status == 0)
            #expect(follow.waitFor("\"event\":\"idle\""))
        }
        #expect(box.server.messages.count == 1)
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
    }

    /// Sound cues through real ALSA playback: an ALSA `file` PCM beside the microphone records what a speaker would
    /// have played — the start cue, the sent cue and the stop cue of a turn a spoken send ended, sample for sample.
    @Test func aTurnPlaysItsStartSentAndStopCuesThroughALSA() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("daemon-cues")
        let env = try Run.pairedEnvironment(home, with: box.server)
        let speaker = home.file("speaker.raw")
        for (key, value) in [("sounds", "true"), ("sound-device", "speaker"), ("close-after-send", "true")] {
            #expect(try Run.process(Run.boxvoice, ["config", "set", key, value], environment: env).status == 0)
        }
        let running = try DaemonUnderTest(sample: "send-buy-milk.wav", home: home, environment: env) { mic in
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: mic.configPath))
            handle.seekToEndOfFile()
            // Each cue opens the PCM anew, and the file plugin rewrites its file from the start: it pipes to `cat >>`
            // instead, so the file holds every cue in the order played.
            handle.write(
                Data(
                    ("\npcm.speaker {\n type file\n slave.pcm { type null }\n file \"|cat >> \(speaker)\"\n format "
                        + "\"raw\"\n}\n")
                        .utf8))
            try handle.close()
        }
        let (daemon, follow) = (running.daemon, running.follow)
        #expect(try Run.process(Run.boxvoice, ["toggle"], environment: env).stdout.hasPrefix("dictating"))
        #expect(follow.waitFor("\"event\":\"delivered\"") && follow.waitFor("\"event\":\"idle\""), "\(daemon.stderr)")
        let cue = { (cue: SoundCue) in cue.samples() }
        let expectedLength = cue(.start).count + cue(.sent).count + cue(.stop).count
        let deadline = Date().addingTimeInterval(10)
        var played: [Float] = []
        while Date() < deadline {
            played =
                (try? Data(contentsOf: URL(fileURLWithPath: speaker))).map { data in
                    data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
                } ?? []
            if played.count >= expectedLength { break }
            usleep(20_000)
        }
        #expect(played.count == expectedLength, "\(played.count) samples; \(daemon.stderr)")
        let orders = [cue(.start) + cue(.sent) + cue(.stop), cue(.start) + cue(.stop) + cue(.sent)]
        #expect(orders.contains { firstDifference(played, $0) == nil }, "the turn's cues, start first")
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
    }

    /// `pre-roll`: the daemon holds the microphone open between turns (read from the settings while it runs), a turn
    /// reads from it and delivers, and switching the setting off closes it. What a turn gains is measured by
    /// PreRollMicrophoneTests and `make bench`. The microphone plays a long recording: it starts when the daemon opens
    /// it, so a short clip could be over before the turn begins on a loaded machine.
    @Test func preRollHoldsTheMicrophoneBetweenTurnsAsTheSettingSays() throws {
        let box = try SimulatedBox {
            $0.hq = .fixed("The weather today is sunny."); $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("daemon-preroll")
        let env = try Run.pairedEnvironment(home, with: box.server)
        #expect(try Run.process(Run.boxvoice, ["config", "set", "pre-roll", "true"], environment: env).status == 0)
        let running = try DaemonUnderTest(sample: "long-meeting-notes.wav", home: home, environment: env)
        let (daemon, follow) = (running.daemon, running.follow)
        #expect(daemon.waitFor("holding the last 0.5 s in memory"), "\(daemon.stderr)")
        #expect(try Run.process(Run.boxvoice, ["toggle"], environment: env).status == 0)
        #expect(follow.waitFor("\"event\":\"final\""), "\(daemon.stderr)")
        #expect(try Run.process(Run.boxvoice, ["toggle"], environment: env).status == 0)
        #expect(follow.waitFor("\"event\":\"delivered\"") && follow.waitFor("\"event\":\"idle\""), "\(daemon.stderr)")
        #expect(box.server.messages.count == 1)
        #expect(try Run.process(Run.boxvoice, ["config", "set", "pre-roll", "false"], environment: env).status == 0)
        #expect(daemon.waitFor("the microphone is closed between turns"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
    }

    @Test func withoutADaemonTheCommandsSayHowToStartOne() throws {
        let home = TemporaryDirectory("no-daemon")
        let result = try Run.process(Run.boxvoice, ["toggle"], environment: Run.isolatedEnvironment(home))
        #expect(result.status == 1)
        #expect(result.stderr.contains("no boxvoice daemon is running"))
        #expect(result.stderr.contains("boxvoice daemon"))
    }
}
