import BoxVoiceContract
import CommandGrammar
import Foundation

/// A subcommand: its grammar as data (the parser, `--help`, the man page and completions read it) and what it does.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    /// Returns the process exit status.
    static func run(_ invocation: Invocation) throws -> Int32
}

/// What the process exit status says (documented in `boxvoice --help` and the man page).
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    /// The box refused a message (a 4xx, or 401: re-pair). It is kept in the outbox with its text.
    static let refused: Int32 = 3

    static let explained = """
        Exit status: 0 done, 1 failed (the message says why and what was kept), 2 a usage error, 3 the box refused a
        message (it is kept in the outbox; `boxvoice outbox` lists it).
        """
}

enum Commands {
    static let all: [any Command.Type] = [
        DictateCommand.self, InboxCommand.self, RecordCommand.self, DevicesCommand.self, RepairCommand.self,
        KeywordsCommand.self,
        PairCommand.self, BoxesCommand.self, TranscribeCommand.self, ListenCommand.self, OutboxCommand.self,
        RecordingsCommand.self, AnswerCommand.self, DaemonCommand.self,
        StartCommand.self, StopCommand.self, ToggleCommand.self, CancelCommand.self, SendCommand.self,
        StatusCommand.self,
        ConfigCommand.self, CalibrateCommand.self, DocsCommand.self,
    ]

    static let program = ProgramSpec(
        "boxvoice", summary: "dictate messages from a Linux desktop to your box",
        commands: all.map { $0.spec },
        manSections: [
            ("EXIT STATUS", ExitStatus.explained),
            (
                "FILES",
                """
                $XDG_CONFIG_HOME/boxvoice/config.json                     your settings (boxvoice config)
                $XDG_CONFIG_HOME/boxvoice/boxes.json, credentials.json   paired boxes and device tokens (0600)
                $XDG_DATA_HOME/boxvoice/boxvoice.sqlite                   every dictated message (0600)
                $XDG_DATA_HOME/boxvoice/recordings/BOX/ID/                their recordings (0700 folders, 0600 files)
                $XDG_RUNTIME_DIR/boxvoice/control.sock                    the daemon's control socket
                PREFIX/share/boxvoice/Models                              vocabulary and recognizer settings
                """
            ),
            (
                "ENVIRONMENT",
                "BOXVOICE_MODELS   another Models folder\nNO_COLOR          plain output instead of the status area"
            ),
        ])
}

extension Commands {
    /// The one stderr line a command line the grammar refuses gets: the command, what is wrong, where help is.
    static func usageLine(_ error: UsageError, argv: [String]) -> String {
        let command = argv.first.flatMap { program.command($0) }
        let helpHint = command.map { " (`boxvoice \($0.name) --help`)" } ?? ""
        return
            "boxvoice\(command.map { " " + $0.name } ?? ""): "
            + "\(error.message)\(error.code == .unknownCommand ? "" : helpHint)"
    }
}

func runMain() -> Int32 {
    let argv = Array(CommandLine.arguments.dropFirst())
    let parsed: ParseResult
    do {
        parsed = try CommandLineParser(Commands.program).parse(argv)
    } catch {
        Console.err(Commands.usageLine(error, argv: argv))
        return ExitStatus.usage
    }
    switch parsed {
    case .version:
        Console.out(BuildInfo.line(program: "boxvoice"))
        return ExitStatus.success
    case .help(nil, _):
        Console.out(HelpText.program(Commands.program, footer: "\n" + ExitStatus.explained))
        return argv.isEmpty ? ExitStatus.usage : ExitStatus.success
    case .help(let command?, let verb):
        Console.out(HelpText.command(command, verb: verb, program: "boxvoice"))
        return ExitStatus.success
    case .run(let invocation):
        let command = Commands.all.first { $0.spec.name == invocation.command }!
        do {
            return try command.run(invocation)
        } catch CLIError.usage(let message) {
            Console.err("boxvoice \(invocation.command): \(message) (`boxvoice \(invocation.command) --help`)")
            return ExitStatus.usage
        } catch let error as UsageError {
            Console.err("boxvoice \(invocation.command): \(error) (`boxvoice \(invocation.command) --help`)")
            return ExitStatus.usage
        } catch {
            Console.err("boxvoice \(invocation.command): \(error)")
            return ExitStatus.failure
        }
    }
}

// A write past a file-size limit must fail the write (and be reported), not kill the recorder.
signal(SIGXFSZ, SIG_IGN)
exit(runMain())
