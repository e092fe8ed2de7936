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
    Usage: boxvoice dictate [--box NAME | --local] [--device PCM | --input FILE.wav [--realtime]] [--alsa-config FILE]
                            [--session ID|new] [--once] [--on-eof send|draft|discard] [--json]

    Listens, shows what it hears, and acts on the spoken commands of Models/speech-keywords.en.txt
    (`boxvoice keywords detect TEXT` shows which a phrase is): send and sendHq deliver and keep
    listening (--once: stop), sendClose delivers and stops, sendCheckpoint delivers this part, erase
    drops the message, cancel drops it and stops, micOff keeps a draft. Each 60 s segment is uploaded
    for HQ while you talk; the message is committed to the outbox before it is posted. With no paired
    box (or --local) it uses the embedded local box, which keeps its data under
    $XDG_DATA_HOME/boxvoice/local-box.
    """

    static func run(_ arguments: inout Arguments) throws -> Int32 {
        let boxName = try arguments.option("--box")
        let local = arguments.flag("--local")
        let device = try arguments.option("--device")
        let input = try arguments.option("--input")
        let alsaConfig = try arguments.option("--alsa-config")
        let sessionOption = try arguments.option("--session")
        let eofName = try arguments.option("--on-eof") ?? "send"
        let realtime = arguments.flag("--realtime")
        let once = arguments.flag("--once")
        let json = arguments.flag("--json")
        try arguments.finish()
        guard let endOfInput = DictationStateMachine.EndOfInputPolicy(rawValue: eofName) else {
            throw CLIError.usage("--on-eof must be send, draft or discard")
        }

        // The box: a paired one, or the embedded local box.
        var embedded: BoxSimServer?
        defer { embedded?.stop() }
        let boxLabel: String
        let client: BoxClient
        let registry = BoxRegistry(directory: Paths.configDirectory)
        if !local, let paired = try registry.box(named: boxName) {
            (_, client) = try SelectedBox.client(named: paired.name)
            boxLabel = paired.name
        } else {
            if let boxName { throw CLIError.failed("no paired box is named '\(boxName)'; `boxvoice boxes` lists them") }
            let started = try EmbeddedBox.start()
            embedded = started.server
            client = started.client
            boxLabel = EmbeddedBox.name
            let line = "No box is paired: dictating to the embedded local box (pocketsphinx HQ). Pair a box with `boxvoice pair LINK`."
            if json { Console.json(["event": "local-box", "message": line]) } else { Console.err(line) }
        }
        let session: String?
        do {
            session = try sessionOption.map { $0 == "new" ? nil : $0 } ?? client.defaultSession()
        } catch {
            throw CLIError.failed("\(error) Nothing was recorded.")
        }

        let pcm: CapturePCM
        do {
            pcm = try input.map { try WAVCapturePCM(path: $0, realtime: realtime) as CapturePCM }
                ?? ALSACapturePCM(name: device ?? "default", configFile: alsaConfig)
        } catch let error as ALSAError {
            throw CLIError.failed(error.description)
        } catch {
            throw CLIError.failed("cannot read '\(input ?? "")' as audio: \(error)")
        }
        let models = try ModelsDirectory.locate()
        let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
        try FileManager.default.createDirectory(atPath: Paths.dataDirectory, withIntermediateDirectories: true)
        let database = try SQLiteDatabase(path: Paths.dataDirectory + "/boxvoice.sqlite")
        var configuration = DictationSession.Configuration(box: boxLabel, client: client, session: session,
                                                           recordingsDirectory: Paths.dataDirectory + "/recordings/" + boxLabel,
                                                           spotterPhrases: models + "/command-spotter.en.txt")
        configuration.once = once
        configuration.endOfInput = endOfInput
        // What a killed earlier run left committed but unsent goes first (same ids: the box deduplicates).
        let outbox = try Outbox(database: database)
        for report in try OutboxDelivery(outbox: outbox, box: boxLabel, client: client).deliverDue() {
            if case .delivered(let id, _) = report {
                if json { Console.json(["event": "delivered", "messageId": id, "pending": true]) } else { Console.out("delivered pending \(id)") }
            }
        }
        let dictation = DictationSession(configuration: configuration, detector: detector, outbox: outbox,
                                        retention: try Retention(database: database)) { report($0, json: json) }
        let stop = StopSignal()
        let signals = stop.requestOnTerminationSignals()
        defer { signals.forEach { $0.cancel() } }
        if json { Console.json(["event": "listening", "box": boxLabel]) } else { Console.err("Listening (box '\(boxLabel)') …") }
        try dictation.run(pcm: pcm, stop: stop)
        return 0
    }

    private static func report(_ event: DictationSession.Event, json: Bool) {
        switch event {
        case .partial(let text):
            if json { Console.json(["event": "partial", "text": text]) }
        case .final(let text):
            if json { Console.json(["event": "final", "text": text]) } else { Console.out("… \(text)") }
        case .keyword(let action, let phrase, let at):
            if json { Console.json(["event": "keyword", "action": action.rawValue, "phrase": phrase, "at": at]) }
            else { Console.out("[\(at.formatted(2)) s] \(action.rawValue) (\"\(phrase)\")") }
        case .segment(let index, let seconds):
            if json { Console.json(["event": "segment", "index": index, "seconds": seconds]) }
        case .fallback(let reason):
            if json { Console.json(["event": "fallback", "reason": reason]) } else { Console.err("HQ unavailable, sending the live text: \(reason)") }
        case .queued(let id, let message):
            if json { Console.json(["event": "queued", "messageId": id, "message": message]) } else { Console.out(message) }
        case .delivered(let id):
            if json { Console.json(["event": "delivered", "messageId": id]) } else { Console.out("delivered \(id)") }
        case .postponed(let id, let reason):
            if json { Console.json(["event": "queued", "messageId": id, "reason": reason]) }
            else { Console.err("kept in the outbox, will retry: \(id) (\(reason))") }
        case .failed(let id, let reason):
            if json { Console.json(["event": "failed", "messageId": id, "reason": reason]) } else { Console.err("not delivered (kept in the outbox): \(id): \(reason)") }
        case .draft(let id):
            if json { Console.json(["event": "draft", "messageId": id]) } else { Console.out("kept as a draft: \(id)") }
        case .discarded:
            if json { Console.json(["event": "discarded"]) } else { Console.out("discarded") }
        }
    }
}
