import BoxVoiceContract
import Foundation

/// A subcommand: one file each.
protocol Command: Sendable {
    static var name: String { get }
    static var summary: String { get }
    static var usage: String { get }
    /// Returns the process exit status.
    static func run(_ arguments: inout Arguments) throws -> Int32
}

/// What the process exit status says (documented in `boxvoice --help` and the man page).
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    /// The box refused a message (a 4xx, or 401: re-pair). It is kept in the outbox with its text.
    static let refused: Int32 = 3
}

enum Commands {
    static let all: [any Command.Type] = [
        DictateCommand.self, InboxCommand.self, RecordCommand.self, DevicesCommand.self, RepairCommand.self, KeywordsCommand.self,
        PairCommand.self, BoxesCommand.self, TranscribeCommand.self, ListenCommand.self, OutboxCommand.self, RecordingsCommand.self, AnswerCommand.self, DaemonCommand.self,
        StartCommand.self, StopCommand.self, ToggleCommand.self, CancelCommand.self, SendCommand.self, StatusCommand.self,
        CalibrateCommand.self, DocsCommand.self,
    ]
}

func printHelp() {
    Console.out("""
    boxvoice — dictate messages from a Linux desktop to your box

    Usage: boxvoice <command> [options]

    Commands:
    """)
    let width = (Commands.all.map { $0.name.count }.max() ?? 0) + 2
    for command in Commands.all {
        Console.out("  " + command.name.padding(toLength: width, withPad: " ", startingAt: 0) + command.summary)
    }
    Console.out("\nRun `boxvoice <command> --help` for a command's options; `boxvoice --version` for the version.")
    Console.out("Exit status: 0 done, 1 failed (the message says why and what was kept), 2 a usage error, 3 the box refused a")
    Console.out("message (it is kept in the outbox; `boxvoice outbox` lists it).")
}

func runMain() -> Int32 {
    var arguments = Arguments(CommandLine.arguments.dropFirst())
    if CommandLine.arguments.dropFirst().first == "--version" {
        Console.out(BuildInfo.line(program: "boxvoice"))
        return 0
    }
    guard let name = arguments.positional() else {
        printHelp()
        return arguments.flag("--help") || arguments.flag("-h") ? 0 : 2
    }
    if name == "help" || name == "-h" {
        printHelp()
        return 0
    }
    guard let command = Commands.all.first(where: { $0.name == name }) else {
        let nearest = Commands.all.map { ($0.name, Arguments.distance(name, $0.name)) }.min { $0.1 < $1.1 }
        let hint = nearest.flatMap { $0.1 <= max(2, name.count / 3) ? " Did you mean '\($0.0)'?" : nil } ?? ""
        Console.err("boxvoice: unknown command '\(name)'.\(hint) Run `boxvoice --help` for the list.")
        return 2
    }
    if arguments.flag("--help") || arguments.flag("-h") {
        Console.out(command.usage)
        return 0
    }
    do {
        return try command.run(&arguments)
    } catch CLIError.usage(let message) {
        // An option the command does not know is the likelier mistake than what it complained of.
        Console.err("boxvoice \(command.name): \(arguments.unknownOption ?? message)\nRun `boxvoice \(command.name) --help` for its options.")
        return 2
    } catch {
        Console.err("boxvoice \(command.name): \(error)")
        return 1
    }
}

// A write past a file-size limit must fail the write (and be reported), not kill the recorder.
signal(SIGXFSZ, SIG_IGN)
exit(runMain())
