import BoxSim
import CommandGrammar

/// `boxsim`: a local box speaking boxvoice's contract, for trying boxvoice without a box and for tests. Its command
/// line is read by the same grammar as boxvoice's.
/// The options and arguments, declared once: the grammar lists them and `main.swift` reads by them.
enum BoxSimOptions {
    static let data = Option.path("--data", placeholder: "DIR", default: "boxsim-data", help: "the box's data folder")
    static let url = Option.text(
        "--url", placeholder: "BASE", defaultNote: "read from DIR/boxsim.url", help: "a running boxsim's base URL")
    static let reach: [any OptionDeclaration] = [data, url]
    static let port = Option.integer(
        "--port", 0...65_535, unit: "port", default: "0", help: "the TCP port (0: any free port)")
    static let slug = Option.text("--slug", help: "the box's slug")
    static let hq = Option.text(
        "--hq", placeholder: "MODE", default: "whisper",
        help: """
            what transcription answers: whisper (Whisper base decodes the upload; whisper:MODEL names another ggml \
            file), pocketsphinx (Debian's en-us model decodes the upload), describe (says how much audio it heard), \
            fixed:TEXT, fail:CODE (500 with that code), flaky:N (the first N calls fail with network_error), \
            slow:SECONDS
            """)
    static let hqText = Option.text("--hq-text", help: "the text after flaky/slow calls")
    static let defaultSession = Option.text(
        "--default-session", placeholder: "ID", help: "the default session at start")
    static let turnSeconds = Option.number(
        "--turn-seconds", 0...86_400, unit: "seconds",
        help: "how long a run keeps a session busy (a send meanwhile is queued)")
    static let pingInterval = Option.number(
        "--ping-interval", 0.1...3_600, unit: "seconds", default: "30", help: "PING a client silent this long")
    static let pongGrace = Option.number(
        "--pong-grace", 0.1...3_600, unit: "seconds", default: "5",
        help: "cut a client that does not answer within this")
    static let sendDelay = Option.number(
        "--send-delay", 0...600, unit: "seconds", help: "hold each chat/send this long before handling it (a slow box)")
    static let uplink = Option.number(
        "--uplink", 0.01...100_000, unit: "megabits per second",
        help: "read request bodies no faster than this (a box across the internet)")
    static let hqRejects = Option.list(
        "--hq-rejects", placeholder: "FORMAT,…",
        help: "the HQ service refuses these formats (wav, ogg, flac, …) with a permanent invalid_file_format")
    static let label = Option.text("--label", placeholder: "NAME", help: "the label the link carries")
    static let session = Option.text("--session", placeholder: "ID", help: "the session the link names")
    static let message = Option.text("--message", placeholder: "ID", help: "the message whose recording to ask for")
    static let timeout = Option.integer(
        "--timeout-ms", 1...600_000, unit: "milliseconds", default: "10000",
        help: "how long the box waits for an answer")
    static let shell = ArgumentSpec("SHELL", .choice(["bash", "zsh", "fish"]), help: "bash, zsh or fish")
}

let program = ProgramSpec(
    "boxsim", summary: "a local stand-in for a box, speaking boxvoice's contract",
    commands: [
        CommandSpec(
            "serve", summary: "run the box on 127.0.0.1 until SIGINT/SIGTERM",
            about: """
                What the box keeps across restarts is kept in DIR: paired devices, messages, sessions and the default, \
                stored events (their ids keep increasing; older than a day pruned at start), the transcription log; it \
                writes its base URL to DIR/boxsim.url. Pairing tickets die with the process, as on the box. The \
                default session moves as the box's does: to a session where a send starts a run, and to a new session \
                when it is assigned. The event WebSocket PINGs (twice) a client silent for --ping-interval seconds and \
                cuts it, without a close frame, when nothing comes within --pong-grace.

                Simulator features (a real box has none of these): --hq, --hq-text, --turn-seconds, --send-delay, \
                --hq-rejects, --uplink, and the /boxsim/* routes (loopback, no token): pair-link, messages, \
                transcriptions, events, pending, status, retranscribe, default?session=ID, \
                session?id=ID&state=live|deleting|gone, fail-subscriptions. Fields sent after the file part are always \
                missed (the box misses them only sometimes).
                """,
            options: [
                BoxSimOptions.data, BoxSimOptions.port, BoxSimOptions.slug, BoxSimOptions.hq, BoxSimOptions.hqText,
                BoxSimOptions.defaultSession, BoxSimOptions.turnSeconds, BoxSimOptions.pingInterval,
                BoxSimOptions.pongGrace, BoxSimOptions.sendDelay, BoxSimOptions.uplink, BoxSimOptions.hqRejects,
            ],
            check: { invocation in
                do {
                    _ = try HQMode.parse(invocation.required(BoxSimOptions.hq))
                    return nil
                } catch {
                    return "--hq: \(error)"
                }
            }),
        CommandSpec(
            "pair-link", summary: "mint a single-use pairing link (valid 10 minutes, gone when boxsim restarts)",
            options: BoxSimOptions.reach + [BoxSimOptions.label, BoxSimOptions.session],
            exclusive: [BoxSimOptions.reach]),
        CommandSpec(
            "messages", summary: "list what the box received through chat/send (JSON)", options: BoxSimOptions.reach,
            exclusive: [BoxSimOptions.reach]),
        CommandSpec(
            "transcriptions", summary: "list transcribe-audio calls: fields, audio format as decoded, outcome (JSON)",
            options: BoxSimOptions.reach, exclusive: [BoxSimOptions.reach]),
        CommandSpec(
            "retranscribe", summary: "play the agent asking for a message's recording (`bbx chat retranscribe`)",
            about: """
                The box asks every connected client, then this prints the outcome, the returned WAV's format and X-* \
                headers.
                """,
            options: BoxSimOptions.reach + [BoxSimOptions.message, BoxSimOptions.timeout],
            exclusive: [BoxSimOptions.reach],
            check: { $0.has(BoxSimOptions.message) ? nil : "retranscribe needs --message ID" }),
        CommandSpec("manpage", summary: "print this program's man page"),
        CommandSpec(
            "completions", summary: "print a shell's completions",
            arguments: [BoxSimOptions.shell]),
    ])

/// The one stderr line a command line the grammar refuses gets: the command, what is wrong, where help is.
func usageLine(_ error: UsageError, argv: [String]) -> String {
    let command = argv.first.flatMap(program.command)
    let name = command.map { $0.name + ": " } ?? ""
    let help = command.map { " (`boxsim \($0.name) --help`)" } ?? ""
    return "boxsim: \(name)\(error.message)\(help)"
}
