import BoxSim
import BoxVoiceAudio
import BoxVoiceDesktop
import BoxVoiceTestSupport
import Foundation
import Testing

/// Desktop notifications end to end: a real D-Bus session bus (Debian's dbus-daemon) with a Notifications server of
/// our own that records each call, a daemon turn from an ALSA `file` PCM, boxsim over loopback.
@Suite struct NotificationTests {
    /// Waits for a notification, after the first `count`, that `matches`.
    private func shown(
        _ recorder: NotificationRecorder, after count: Int = 0, timeout: TimeInterval = 90,
        _ matches: (NotificationRecorder.Shown) -> Bool
    ) -> NotificationRecorder.Shown? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let found = recorder.notifications.dropFirst(count).first(where: matches) { return found }
            usleep(20_000)
        }
        return nil
    }

    /// A session bus of the test's own (Debian's dbus-daemon): the process, kept for the test's length, and its
    /// address.
    static func privateBus(_ home: TemporaryDirectory) throws -> (Spawned, String) {
        let bus = try Spawned(
            "/usr/bin/dbus-daemon",
            ["--session", "--nofork", "--nopidfile", "--address=unix:path=\(home.file("bus"))", "--print-address"])
        #expect(bus.waitFor("unix:path="), "\(bus.stderr)")
        return (bus, bus.stdout.split(separator: "\n").first.map(String.init) ?? "")
    }

    @Test func aDaemonTurnIsToldStartDeliveredAndHeldWhenTheBoxStops() throws {
        let box = try SimulatedBox {
            $0.hq = .fixed("The weather today is sunny."); $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("notifications")
        var env = try Run.pairedEnvironment(home, with: box.server)
        let (bus, address) = try Self.privateBus(home)
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        let recorder = try NotificationRecorder(address: address)
        defer { recorder.stop() }

        let running = try DaemonUnderTest(sample: "none-weather.wav", home: home, environment: env, micName: "desk_mic")
        let (daemon, follow) = (running.daemon, running.follow)

        #expect(try Run.process(Run.boxvoice, ["toggle"], environment: env).status == 0)
        let started = shown(recorder) { $0.summary.hasPrefix("Dictating to ") }
        #expect(
            started?.app == "boxvoice" && started?.body.contains("send command") == true,
            "\(recorder.notifications) \(daemon.stderr)")
        #expect(follow.waitFor("\"event\":\"final\""), "\(daemon.stderr)")
        #expect(try Run.process(Run.boxvoice, ["toggle"], environment: env).status == 0)
        let delivered = shown(recorder) { $0.summary.hasPrefix("Sent to ") }
        #expect(
            delivered?.body == "The weather today is sunny.",
            "the message as said, not its framing: \(recorder.notifications)")
        #expect(shown(recorder) { $0.summary.hasPrefix("Stopped dictating") } != nil)

        // The box goes away: the next turn's message is kept, and the user is told so.
        box.server.stop()
        let before = recorder.notifications.count
        #expect(follow.waitFor("\"event\":\"idle\""))
        let second = try Spawned(Run.boxvoice, ["status", "--follow", "--json"], environment: env)
        #expect(second.waitFor("\"state\":\"idle\""))
        #expect(try Run.process(Run.boxvoice, ["toggle"], environment: env).status == 0)
        #expect(shown(recorder, after: before) { $0.summary.hasPrefix("Dictating to ") } != nil)
        #expect(second.waitFor("\"event\":\"final\"", timeout: 60))
        #expect(try Run.process(Run.boxvoice, ["toggle"], environment: env).status == 0)
        let held = shown(recorder, after: before) { $0.summary.contains("unreachable") }
        #expect(
            held?.summary.hasSuffix("is unreachable: message kept") == true,
            "\(recorder.notifications.map(\.summary)) \(daemon.stderr)")
        #expect(held?.body.contains("outbox") == true)
        // `status` says so per box too.
        let status = try Run.process(Run.boxvoice, ["status"], environment: env).stdout
        #expect(status.contains(": unreachable since "), "\(status)")

        // Switched off in the settings: nothing more is shown.
        #expect(
            try Run.process(Run.boxvoice, ["config", "set", "notifications", "false"], environment: env).status == 0)
        #expect(second.waitFor("\"event\":\"idle\""))
        let quiet = recorder.notifications.count
        let third = try Spawned(Run.boxvoice, ["status", "--follow", "--json"], environment: env)
        #expect(third.waitFor("\"state\":\"idle\""))
        #expect(try Run.process(Run.boxvoice, ["toggle"], environment: env).status == 0)
        #expect(third.waitFor("\"event\":\"final\"", timeout: 60))
        #expect(recorder.notifications.count == quiet, "\(recorder.notifications.dropFirst(quiet))")
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
        follow.signal(SIGTERM)
        bus.signal(SIGTERM)
    }

    /// A hotkey bound to `boxvoice toggle` with no daemon running: the command fails on stderr, which a hotkey never
    /// shows, so the desktop is told too, with how to start the daemon.
    @Test func aControlCommandWithNoDaemonTellsTheDesktopHowToStartIt() throws {
        let home = TemporaryDirectory("no-daemon")
        var env = Run.isolatedEnvironment(home)
        let (bus, address) = try Self.privateBus(home)
        defer { bus.signal(SIGTERM) }
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        let recorder = try NotificationRecorder(address: address)
        defer { recorder.stop() }
        let result = try Run.process(Run.boxvoice, ["toggle"], environment: env)
        #expect(result.status == 1 && result.stderr.contains("no boxvoice daemon is running"), "\(result.stderr)")
        let told = shown(recorder, timeout: 10) { $0.summary.contains("no daemon is running") }
        #expect(told?.body.contains("systemctl --user start boxvoice") == true, "\(recorder.notifications)")
        #expect(told?.urgency == 2, "critical: the key did nothing")
    }
}
