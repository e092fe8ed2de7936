import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoicePresentation
import BoxVoiceKeywords
import BoxVoiceStore
import CommandGrammar
import Foundation

/// `boxvoice dictate`: the main job.
enum DictateCommand: Command {
    static let local = Option.flag("--local", help: "dictate to the embedded local box even when a box is paired")
    static let session = Option.text(
        "--session", placeholder: "ID", defaultNote: "the box's default session, asked when the first message is sent",
        help: "the conversation this run's messages go to (new: open one for the run)")
    static let once = Option.flag("--once", help: "stop after the first message is sent")
    static let onEOF = Option.choice(
        "--on-eof", DictationStateMachine.EndOfInputPolicy.allCases.map(\.rawValue), defaultNote: "send",
        help: "what happens to what was said when the input ends")
    static let raw = Option.flag(
        "--raw", help: "show a delivered message with its speech framing as the box receives it")
    static let noKeys = Option.flag("--no-keys", help: "leave standard input alone (no Enter/Esc)")
    static let noPipelining = Option.flag(
        "--no-pipelining", help: "hold HQ uploads until the send (only to measure what pipelining gains)")

    static let spec = CommandSpec(
        "dictate", summary: "dictate a message to the box (the main job)",
        about: """
            Listens, shows what it hears, and acts on the spoken commands of Models/speech-keywords.en.txt (`boxvoice \
            keywords detect TEXT` shows which a phrase is): a send delivers and keeps listening (--once: stop), a send \
            that ends the turn delivers and stops, a checkpoint delivers this part, erase drops the message, cancel \
            drops it and stops, turning the microphone off keeps a draft. Each 60 s segment is uploaded for HQ while \
            you talk; the message is committed to the outbox before it is posted. With no paired box (or --local) it \
            uses the embedded local box, which keeps its data under $XDG_DATA_HOME/boxvoice/local-box.

            Keys: Enter sends the message (like a spoken send), Esc cancels it and stops. From a pipe a newline is \
            Enter and an ESC byte is Esc. On a terminal a status area shows the box, the level, segments, the live \
            transcript and HQ progress; NO_COLOR or a non-terminal gives plain lines. Defaults for --device, --box, \
            --on-eof and --keywords come from `boxvoice config` when set.
            """,
        options: [
            CommonOptions.box, local, CommonOptions.device, CommonOptions.input, CommonOptions.realtime,
            CommonOptions.alsaConfig, session, once, onEOF, CommonOptions.json, raw, noKeys, noPipelining,
            CommonOptions.codec, CommonOptions.keywords,
        ], exclusive: [[CommonOptions.device, CommonOptions.input], [CommonOptions.box, local]])

    static func run(_ invocation: Invocation) throws -> Int32 {
        let settings = try UserSettingsFile.load()
        let local = invocation[local]
        let boxName = invocation[CommonOptions.box] ?? (local ? nil : settings.box)
        let sessionOption = invocation[session]
        let codecOption = invocation[CommonOptions.codec].flatMap(UploadCodec.init(rawValue:))
        let keywordsOption = invocation[CommonOptions.keywords] ?? settings.vocabulary
        let endOfInput =
            invocation[onEOF].flatMap(DictationStateMachine.EndOfInputPolicy.init(rawValue:)) ?? settings.onEOF ?? .send
        let once = invocation[once]
        let json = invocation[CommonOptions.json]
        let noPipelining = invocation[noPipelining]
        let noKeys = invocation[noKeys]
        let raw = invocation[raw]

        let detector = try ModelsDirectory.keywordDetector(override: keywordsOption)
        let output = DictationOutput(json: json, raw: raw, vocabulary: detector.vocabulary)
        // Loading the recognizers takes a moment: the screen says so instead of staying blank.
        if output.mode != .json { Console.err("Starting (loading the recognizers) …") }

        let (box, client, configuredCodec, embedded) = try target(local: local, boxName: boxName, output: output)
        defer { embedded?.stop() }
        // Without --session, each message goes to the box's default session, asked when it is sent: listening
        // starts at once, even with the box unreachable (messages wait in the outbox, never sent into a new session).
        let session = sessionOption.flatMap { $0 == "new" ? nil : $0 }

        let pcm = try CaptureSource.open(invocation, settings: settings).pcm
        var configuration = DictationSession.Configuration(
            box: box, client: client, session: session,
            spotterPhrases: try ModelsDirectory.spotterPhrases())
        configuration.sessionFromDefault = sessionOption == nil
        configuration.once = once
        configuration.endOfInput = endOfInput
        configuration.dictionaryCache = Paths.cacheDirectory
        configuration.voiceAdaptation = ModelsDirectory.voiceAdaptation()
        configuration.frontEnd = settings.frontEnd
        configuration.whisper = ModelsDirectory.whisperHearing(settings.recognizer)
        configuration.uploadWhileRecording = !noPipelining
        // Short files sent for a second opinion on a command only the spotter heard.
        let scratch = try ScratchDirectory(purpose: "dictate", fallback: Paths.cacheDirectory)
        defer { scratch.remove() }
        configuration.workDirectory = scratch.path
        // Messages a killed or offline earlier run left committed go out first (same ids: the box deduplicates).
        let store = try LocalStore.open()
        configuration.uploadCodec = try UploadCodecs.policy(
            for: box, configured: configuredCodec,
            override: codecOption, store: store)
        let dictation = DictationSession(configuration: configuration, detector: detector, store: store) {
            output.handle($0)
        }
        let stop = StopSignal()
        let signals = stop.requestOnTerminationSignals()
        defer { signals.forEach { $0.cancel() } }
        let control = DictationControl()
        output.show(box: box.description)
        let keys = TerminalKeys(control: control, onKey: { output.acknowledge($0) }) {
            output.acknowledgeLiveTextNow(sent: $0)
        }
        if !noKeys { keys.start() }
        defer { keys.restore() }
        if json {
            Console.out(EventRecord.listening(box: box.description).line)
        } else if output.mode == .plain {
            Console.err("Listening (box '\(box)') …")
        }
        do {
            try dictation.run(pcm: pcm, stop: stop, control: control)
        } catch {
            output.finish()
            throw CLIError.failed("\(error)")
        }
        output.finish()
        // A message the box refused (401, 4xx) is kept in the outbox, but the run did not do what was asked.
        return output.refusals > 0 ? ExitStatus.refused : ExitStatus.success
    }

    /// The box dictated to: a paired one, or the embedded local box (started here; the caller stops it).
    private static func target(local: Bool, boxName: String?, output: DictationOutput) throws -> (
        box: BoxReference, client: BoxClient, configuredCodec: String?, embedded: BoxSimServer?
    ) {
        if !local, let paired = try BoxRegistry(directory: Paths.configDirectory).box(named: boxName) {
            let (_, client) = try SelectedBox.client(named: paired.name, deliverPending: false)
            return (paired.reference, client, paired.uploadCodec, nil)
        }
        if let boxName { throw CLIError.failed("no paired box is named '\(boxName)'; `boxvoice boxes` lists them") }
        let started = try EmbeddedBox.start(dataDirectory: Paths.embeddedBoxDirectory)
        output.notice(
            "No box is paired: dictating to the embedded local box (its HQ runs on this machine). Pair a box with "
                + "`boxvoice pair LINK`.",
            json: .localBox)
        return (.embedded, started.client, nil, started.server)
    }
}
