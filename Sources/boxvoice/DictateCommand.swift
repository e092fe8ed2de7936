import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceCore
import BoxVoiceKeywords
import BoxVoiceStore
import Foundation

/// `boxvoice dictate`: the main job.
enum DictateCommand: Command {
    static let name = "dictate"
    static let summary = "dictate a message to the box (the main job)"
    static let usage = """
    Usage: boxvoice dictate [--box NAME | --local] [--device PCM | --input FILE.wav] [--realtime] [--alsa-config FILE]
                            [--session ID|new] [--once] [--on-eof send|draft|discard] [--json] [--no-keys]
                            [--codec wav|opus|auto] [--keywords FILE]

    Listens, shows what it hears, and acts on the spoken commands of Models/speech-keywords.en.txt
    (`boxvoice keywords detect TEXT` shows which a phrase is): send and sendHq deliver and keep
    listening (--once: stop), sendClose delivers and stops, sendCheckpoint delivers this part, erase
    drops the message, cancel drops it and stops, micOff keeps a draft. Each 60 s segment is uploaded
    for HQ while you talk; the message is committed to the outbox before it is posted. With no paired
    box (or --local) it uses the embedded local box, which keeps its data under
    $XDG_DATA_HOME/boxvoice/local-box.

    Keys: Enter sends the message (like a spoken send), Esc cancels it and stops. From a pipe a newline
    is Enter and an ESC byte is Esc; --no-keys leaves standard input alone. On a terminal a status area
    shows the level, segments, the live transcript and HQ progress; NO_COLOR or a non-terminal gives
    plain lines. --no-pipelining holds HQ uploads until the send (only to measure what pipelining gains).
    --input and clockless devices (ALSA `file` PCMs) are read as fast as they go; --realtime paces them
    like a microphone. --keywords: another vocabulary file in the format of Models/speech-keywords.en.txt
    (the commands it names are the ones that act). --codec: what segments go to HQ as (default: the box's `boxes codec` setting,
    else auto — Ogg Opus when it reaches the box sooner than WAV on the link measured from the uploads,
    WAV when the box refused Opus before).
    """

    static func run(_ arguments: inout Arguments) throws -> Int32 {
        let boxName = try arguments.option("--box")
        let local = arguments.flag("--local")
        let device = try arguments.option("--device")
        let input = try arguments.option("--input")
        let alsaConfig = try arguments.option("--alsa-config")
        let sessionOption = try arguments.option("--session")
        let codecOption = try UploadCodecs.parse(try arguments.option("--codec"))
        let keywordsOption = try arguments.option("--keywords")
        let eofName = try arguments.option("--on-eof") ?? "send"
        let realtime = arguments.flag("--realtime")
        let once = arguments.flag("--once")
        let json = arguments.flag("--json")
        let noPipelining = arguments.flag("--no-pipelining")
        let noKeys = arguments.flag("--no-keys")
        try arguments.finish()
        if device != nil && input != nil { throw CLIError.usage("give --device or --input, not both") }
        if local && boxName != nil { throw CLIError.usage("give --box NAME or --local, not both") }
        guard let endOfInput = DictationStateMachine.EndOfInputPolicy(rawValue: eofName) else {
            throw CLIError.usage("--on-eof must be send, draft or discard")
        }

        let detector = try ModelsDirectory.keywordDetector(override: keywordsOption)
        let output = DictationOutput(json: json, vocabulary: detector.vocabulary)

        // The box: a paired one, or the embedded local box.
        var embedded: BoxSimServer?
        defer { embedded?.stop() }
        let boxLabel: String
        let client: BoxClient
        let registry = BoxRegistry(directory: Paths.configDirectory)
        if !local, let paired = try registry.box(named: boxName) {
            (_, client) = try SelectedBox.client(named: paired.name, deliverPending: false)
            boxLabel = paired.name
        } else {
            if let boxName { throw CLIError.failed("no paired box is named '\(boxName)'; `boxvoice boxes` lists them") }
            let started = try EmbeddedBox.start(dataDirectory: Paths.embeddedBoxDirectory)
            embedded = started.server
            client = started.client
            boxLabel = EmbeddedBox.name
            output.notice("No box is paired: dictating to the embedded local box (pocketsphinx HQ). Pair a box with `boxvoice pair LINK`.",
                          json: "local-box")
        }
        // Without --session, each message goes to the box's default session, asked when it is sent: listening
        // starts at once, even with the box unreachable (messages wait in the outbox, never sent into a new session).
        let session = sessionOption.flatMap { $0 == "new" ? nil : $0 }

        let pcm: CapturePCM
        do {
            pcm = try (input.map { try WAVCapturePCM(path: $0) as CapturePCM } ?? ALSACapturePCM(name: device ?? "default", configFile: alsaConfig))
                .paced(realtime)
        } catch let error as ALSAError {
            throw CLIError.failed(error.description)
        } catch {
            throw CLIError.failed("cannot read '\(input ?? "")' as audio: \(error)")
        }
        var configuration = DictationSession.Configuration(box: boxLabel, client: client, session: session,
                                                           spotterPhrases: try ModelsDirectory.spotterPhrases())
        configuration.sessionFromDefault = sessionOption == nil
        configuration.once = once
        configuration.endOfInput = endOfInput
        configuration.dictionaryCache = Paths.cacheDirectory
        configuration.uploadWhileRecording = !noPipelining
        // Short files sent for a second opinion on a command only the spotter heard.
        let scratch = try ScratchDirectory(purpose: "dictate", fallback: Paths.cacheDirectory)
        defer { scratch.remove() }
        configuration.workDirectory = scratch.path
        // Messages a killed or offline earlier run left committed go out first (same ids: the box deduplicates).
        let store = try LocalStore.open()
        configuration.uploadCodec = try UploadCodecs.policy(for: boxLabel, configured: try registry.box(named: boxLabel)?.uploadCodec,
                                                            override: codecOption, store: store)
        let dictation = DictationSession(configuration: configuration, detector: detector, store: store) { output.handle($0) }
        let stop = StopSignal()
        let signals = stop.requestOnTerminationSignals()
        defer { signals.forEach { $0.cancel() } }
        let control = DictationControl()
        let keys = TerminalKeys(control: control)
        if !noKeys { keys.start() }
        defer { keys.restore() }
        if json { Console.json(["event": "listening", "box": boxLabel]) } else if output.mode == .plain { Console.err("Listening (box '\(boxLabel)') …") }
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
}
