import BoxVoiceDictation
import BoxVoiceDaemon
import BoxVoicePresentation
import CommandGrammar
import BoxVoiceDesktop
import Foundation

/// `boxvoice start | stop | toggle | cancel | send | status`: one request to the running daemon's control socket,
/// so a desktop hotkey can run a dictation turn without a terminal.
protocol ControlCommand: Command {
    static var request: ControlRequest.Command { get }
    static var summary: String { get }
}

/// `status`'s own options.
enum StatusOptions {
    static let follow = Option.flag("--follow", help: "keep printing what the daemon does")
    static let waybar = Option.flag("--waybar", help: "follow, as waybar/polybar custom-module JSON lines")
}

extension ControlCommand {
    static var spec: CommandSpec {
        CommandSpec(
            request.rawValue, summary: summary,
            about: """
                Talks to `boxvoice daemon` over \(Paths.controlSocket). Bind `boxvoice toggle` to a hotkey: README \
                "Hotkeys".
                """
                    + (request == .status
                        ? """


                        --follow then prints what the daemon does, a line per event, until interrupted (--json: the \
                        events as JSON lines). --waybar prints one line of waybar/polybar JSON (text, tooltip, class \
                        idle|recording|holding|failed|stopped) each time the state changes, for a status-bar module \
                        with `"return-type": "json"`; it waits for the daemon (stopped) and follows its restarts.
                        """ : ""),
            options: request == .status
                ? [StatusOptions.follow, StatusOptions.waybar, CommonOptions.json] : [CommonOptions.json],
            exclusive: request == .status ? [[StatusOptions.waybar, CommonOptions.json]] : [])
    }

    static func run(_ invocation: Invocation) throws -> Int32 {
        if request == .status && invocation[StatusOptions.waybar] { followForTheBar() }
        let follow = request == .status && invocation[StatusOptions.follow]
        let json = invocation[CommonOptions.json]
        var reply: ControlReply?
        do {
            try ControlClient.send(ControlRequest(request, follow: follow), path: Paths.controlSocket) { line in
                if reply == nil {
                    reply = ControlReply.decode(line)
                    if json || reply == nil {
                        Console.out(line)
                    } else if let reply {
                        Console.out(reply.message)
                    }
                    return follow && reply?.ok == true
                }
                guard !json else {
                    Console.out(line)
                    return true
                }
                if let text = EventRecord(line: line).flatMap(FollowView.line) { Console.out(text) }
                return true
            }
        } catch let error as ControlSocketError {
            if error.code == .noDaemon, isatty(STDERR_FILENO) != 1 { tellTheDesktop(request) }
            throw CLIError.failed(error.description)
        }
        guard let reply else { throw CLIError.failed("the daemon closed the connection without answering") }
        return reply.ok ? 0 : 1
    }
}

extension ControlCommand {
    /// `status --waybar`: a status bar starts before the daemon and outlives its restarts, so the module waits for
    /// the daemon (showing `stopped`), follows it while it runs, and shows `stopped` again when it goes away.
    static func followForTheBar() -> Never {
        var bar: FollowView.BarState?
        func show(_ next: FollowView.BarState) {
            if next != bar { Console.out(FollowView.bar(next)) }
            bar = next
        }
        while true {
            var answered = false
            try? ControlClient.send(ControlRequest(.status, follow: true), path: Paths.controlSocket) { line in
                if !answered {
                    answered = true
                    show(ControlReply.decode(line)?.state == .dictating ? .recording : .idle)
                    return true
                }
                if let event = EventRecord(line: line) { show(FollowView.state(after: event, from: bar ?? .idle)) }
                return true
            }
            show(.stopped)
            Thread.sleep(forTimeInterval: 1)
        }
    }
}

/// A hotkey has no terminal: when no daemon answers, the desktop says so and how to start one, or the key would
/// seem to do nothing. Without a notification service only stderr (the journal) has it.
private func tellTheDesktop(_ request: ControlRequest.Command) {
    let notifier = try? DesktopNotifier(bus: DesktopBus())
    _ = try? notifier?.notify(
        summary: "boxvoice \(request.rawValue): no daemon is running",
        body: "Start it with `systemctl --user start boxvoice` (or run `boxvoice daemon`), then press the key again.",
        urgency: .critical)
}

enum StartCommand: ControlCommand {
    static let request = ControlRequest.Command.start
    static let summary = "daemon: start a dictation turn (the microphone opens)"
}

enum StopCommand: ControlCommand {
    static let request = ControlRequest.Command.stop
    static let summary = "daemon: end the turn and send what was said"
}

enum ToggleCommand: ControlCommand {
    static let request = ControlRequest.Command.toggle
    static let summary = "daemon: start a turn, or end the one running (bind this to a hotkey)"
}

enum CancelCommand: ControlCommand {
    static let request = ControlRequest.Command.cancel
    static let summary = "daemon: drop the message being dictated and end the turn"
}

enum SendCommand: ControlCommand {
    static let request = ControlRequest.Command.send
    static let summary = "daemon: send what was said so far and keep listening"
}

enum StatusCommand: ControlCommand {
    static let request = ControlRequest.Command.status
    static let summary = "daemon: idle or dictating (--follow: stream the dictation events)"
}
