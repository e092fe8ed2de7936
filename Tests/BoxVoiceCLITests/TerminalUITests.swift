import BoxSim
import BoxVoiceTestSupport
import Foundation
import Testing

/// `boxvoice dictate` in a real terminal (tmux, at 120 and 50 columns): Enter acknowledged at once while HQ is still
/// working, the message printed once, as said, the box named, the hints whole, and the status area gone after exit.
@Suite struct TerminalUITests {
    /// A tmux server of its own, one window of `columns` × 30 running `script`.
    final class Terminal {
        let socket: String
        init(columns: Int, script: String, in home: TemporaryDirectory) throws {
            // A socket path must fit 108 bytes; the test's folder may be deeper than that.
            socket = "/tmp/boxvoice-tmux-\(UUID().uuidString.prefix(8))"
            let started = BoundedRun.run(
                "/usr/bin/tmux",
                [
                    "-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", String(columns), "-y", "30",
                    "/bin/sh \(script)",
                ],
                environment: ProcessInfo.processInfo.environment, seconds: 10)
            #expect(started.status == 0, "\(started.stderr)")
        }

        /// What the window shows now (its lines, trailing blanks dropped).
        func screen() -> String {
            BoundedRun.run(
                "/usr/bin/tmux", ["-S", socket, "capture-pane", "-p", "-J"],
                environment: ProcessInfo.processInfo.environment, seconds: 10
            ).stdout
        }

        func press(_ key: String) {
            _ = BoundedRun.run(
                "/usr/bin/tmux", ["-S", socket, "send-keys", key], environment: ProcessInfo.processInfo.environment,
                seconds: 10)
        }

        /// Waits until the screen satisfies `condition`; the screen then, or nil at the deadline.
        func waitFor(timeout: TimeInterval = 30, _ condition: (String) -> Bool) -> String? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                let now = screen()
                if condition(now) { return now }
                usleep(20_000)
            }
            return nil
        }

        deinit {
            _ = BoundedRun.run(
                "/usr/bin/tmux", ["-S", socket, "kill-server"], environment: ProcessInfo.processInfo.environment,
                seconds: 10)
            try? FileManager.default.removeItem(atPath: socket)
        }
    }

    @Test(arguments: [120, 50])
    func enterIsAcknowledgedAtOnceTheMessageShowsOnceAndTheScreenIsLeftClean(_ columns: Int) throws {
        // HQ takes 3 s: the acknowledgement must not wait for it.
        let box = try SimulatedBox {
            $0.hq = .slow(3); $0.hqText = "The weather today is sunny."; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("tui-\(columns)")
        var env = try Run.pairedEnvironment(home, with: box.server)
        env["NO_COLOR"] = nil
        env["TERM"] = "tmux-256color"
        let script = home.file("run.sh")
        let exports = env.filter {
            $0.key.hasPrefix("XDG_") || $0.key == "BOXVOICE_MODELS" || $0.key == "TERM" || $0.key == "PATH"
        }
        .map { "export \($0.key)='\($0.value)'" }.joined(separator: "\n")
        try """
        \(exports)
        unset NO_COLOR
        '\(Run.boxvoice)' dictate --input '\(Checkout.sample("long-meeting-notes.wav"))' --realtime --once --session s1
        echo "EXITED $?"
        sleep 30
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let terminal = try Terminal(columns: columns, script: script, in: home)

        let listening = terminal.waitFor { $0.contains("Esc cancel") && $0.contains("●") }
        #expect(listening != nil, "the status area: \(terminal.screen())")
        let boxName = try Run.process(Run.boxvoice, ["boxes", "--json"], environment: env).stdout.components(
            separatedBy: "\"name\":\""
        ).dropFirst().first?.prefix { $0 != "\"" }
        #expect(boxName.map { listening?.contains("→ \($0)") == true } == true, "the box is shown: \(listening ?? "")")
        // The status area is the screen from its first line (the recording dot) down; what is printed above it (a
        // transcript line, a note on a busy machine) wraps as any terminal output does.
        let shown = listening?.split(separator: "\n") ?? []
        let lines = shown.lastIndex { $0.contains("●") }.map { Array(shown[$0...]) } ?? []
        #expect(lines.count >= 3, "the status area: \(listening ?? "")")
        #expect(lines.allSatisfy { $0.count <= columns }, "nothing wider than the terminal: \(listening ?? "")")
        #expect(lines.contains { $0.contains("Enter send · Esc cancel") }, "the hints whole: \(listening ?? "")")
        // Heard something first, so there is a message to send.
        #expect(
            terminal.waitFor {
                $0.contains("… ") && $0.split(separator: "\n").contains { $0.hasPrefix("… ") && $0.count > 10 }
            } != nil)

        let pressed = Date()
        terminal.press("Enter")
        let acknowledged = terminal.waitFor(timeout: 10) { $0.contains("Enter: sending…") }
        let delay = Date().timeIntervalSince(pressed)
        #expect(acknowledged != nil && delay < 1.5, "acknowledged after \(delay) s: \(terminal.screen())")
        #expect(acknowledged?.contains("delivered") == false, "before HQ answered")

        let ended = terminal.waitFor(timeout: 60) { $0.contains("EXITED") }
        #expect(ended?.contains("EXITED 0") == true, "\(terminal.screen())")
        let screen = ended ?? ""
        #expect(
            screen.components(separatedBy: "The weather today is sunny.").count == 2,
            "the message once, as said: \(screen)")
        #expect(!screen.contains("<speech"), "no framing without --raw")
        #expect(screen.components(separatedBy: "delivered ").count == 2, "one result: \(screen)")
        #expect(!screen.contains("Esc cancel") && !screen.contains("●"), "the status area is cleared: \(screen)")
        for name in ["sendHq", "sendClose", "micOff", "sendCheckpoint"] { #expect(!screen.contains(name)) }
    }
}
