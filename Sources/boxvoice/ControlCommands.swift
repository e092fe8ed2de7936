import BoxVoiceCore
import Foundation

/// `boxvoice start | stop | toggle | cancel | send | status`: one request to the running daemon's control socket,
/// so a desktop hotkey can run a dictation turn without a terminal.
protocol ControlCommand: Command {
    static var request: ControlRequest.Command { get }
}

extension ControlCommand {
    static var name: String { request.rawValue }
    static var usage: String {
        """
        Usage: boxvoice \(name)\(request == .status ? " [--follow [--waybar]] [--json]" : " [--json]")

        \(summary). Talks to `boxvoice daemon` over \(Paths.controlSocket)\(request == .status ? """
        ; --follow then prints what the daemon does, a line per event, until interrupted (--json: the events as JSON
        lines; --waybar: one line of waybar/polybar JSON — text, tooltip, class idle|recording|holding|failed — each time
        the state changes, for a status-bar module with `"return-type": "json"`)
        """ : "").
        Bind `boxvoice toggle` to a hotkey: README "Hotkeys".
        """
    }

    static func run(_ arguments: inout Arguments) throws -> Int32 {
        let follow = request == .status && arguments.flag("--follow")
        let waybar = request == .status && arguments.flag("--waybar")
        let json = arguments.flag("--json")
        try arguments.finish()
        if waybar && !follow { throw CLIError.usage("--waybar goes with --follow (a status bar reads the stream)") }
        if waybar && json { throw CLIError.usage("give --waybar or --json, not both") }
        var reply: ControlReply?
        var bar = FollowView.BarState.idle
        do {
            try ControlClient.send(ControlRequest(request, follow: follow), path: Paths.controlSocket) { line in
                if reply == nil {
                    reply = ControlReply.decode(line)
                    if waybar {
                        bar = reply?.message.hasPrefix("dictating") == true ? .recording : .idle
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
                guard let event = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { return true }
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
