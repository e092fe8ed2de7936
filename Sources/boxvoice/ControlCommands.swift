import BoxVoiceCore
import BoxVoiceDaemon
import BoxVoicePresentation
import CommandGrammar
import Foundation

/// `boxvoice start | stop | toggle | cancel | send | status`: one request to the running daemon's control socket,
/// so a desktop hotkey can run a dictation turn without a terminal.
protocol ControlCommand: Command {
    static var request: ControlRequest.Command { get }
    static var summary: String { get }
}

extension ControlCommand {
    static var spec: CommandSpec {
        CommandSpec(request.rawValue, summary: summary, about: """
        Talks to `boxvoice daemon` over \(Paths.controlSocket). Bind `boxvoice toggle` to a hotkey: README "Hotkeys".
        """ + (request == .status ? """


        --follow then prints what the daemon does, a line per event, until interrupted (--json: the events as JSON lines). \
        --waybar prints one line of waybar/polybar JSON (text, tooltip, class idle|recording|holding|failed) each time the \
        state changes, for a status-bar module with `"return-type": "json"`.
        """ : ""), options: request == .status ? [
            OptionSpec("--follow", help: "keep printing what the daemon does"),
            OptionSpec("--waybar", help: "follow, as waybar/polybar custom-module JSON lines"),
            CommonOptions.json,
        ] : [CommonOptions.json], exclusive: [["--waybar", "--json"]])
    }

    static func run(_ invocation: Invocation) throws -> Int32 {
        let waybar = request == .status && invocation.flag("--waybar")
        let follow = request == .status && (invocation.flag("--follow") || waybar)
        let json = invocation.flag("--json")
        var reply: ControlReply?
        var bar = FollowView.BarState.idle
        do {
            try ControlClient.send(ControlRequest(request, follow: follow), path: Paths.controlSocket) { line in
                if reply == nil {
                    reply = ControlReply.decode(line)
                    if waybar {
                        bar = reply?.state == .dictating ? .recording : .idle
                        Console.out(FollowView.bar(bar))
                    } else if json || reply == nil {
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
                guard let event = EventRecord(line: line) else { return true }
                if waybar {
                    let next = FollowView.state(after: event, from: bar)
                    if next != bar { Console.out(FollowView.bar(next)) }
                    bar = next
                } else if let text = FollowView.line(event) {
                    Console.out(text)
                }
                return true
            }
        } catch let error as ControlSocketError {
            throw CLIError.failed(error.description)
        }
        guard let reply else { throw CLIError.failed("the daemon closed the connection without answering") }
        return reply.ok ? 0 : 1
    }
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
