import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceCore
import BoxVoiceKeywords
import BoxVoiceStore
import Foundation

/// `boxvoice daemon`: stays connected to every paired box, answers its retranscription requests from the retained
/// recordings and delivers the outbox. Foreground; logs to stderr; SIGINT/SIGTERM end it cleanly.
enum DaemonCommand: Command {
    static let name = "daemon"
    static let summary = "stay connected: answer retranscription requests, deliver the outbox"
    static let usage = """
    Usage: boxvoice daemon [--box NAME] [--device PCM] [--alsa-config FILE] [--debug]

    For every paired box: keeps the event stream open (reconnecting at once, then backing off up to
    30 s; a box that answers 401 is marked "needs re-pair" and left alone while the others carry on),
    answers each retranscription request from the retained recordings (or with none), and delivers
    pending outbox messages every 10 s. Logs to stderr (--debug adds the normal 404s of requests
    another client answered first).

    It also listens on the control socket ($XDG_RUNTIME_DIR/boxvoice/control.sock, mode 0600; one
    daemon per user) for `boxvoice start | stop | toggle | cancel | send | status`: a turn records from
    --device (default: ALSA's default) and dictates to --box (default: the selected box), exactly as
    `boxvoice dictate` does, spoken commands included. A device without a clock (an ALSA `file`
    PCM from `boxvoice devices file-pcm`) is paced to real time, so a turn holds as much audio as it
    lasted.
    """

    static func run(_ arguments: inout Arguments) throws -> Int32 {
        let dictationBox = try arguments.option("--box")
        let device = try arguments.option("--device") ?? "default"
        let alsaConfig = try arguments.option("--alsa-config")
        let debug = arguments.flag("--debug")
        try arguments.finish()
        let registry = BoxRegistry(directory: Paths.configDirectory)
        let boxes = try registry.boxes()
        guard !boxes.isEmpty else {
            throw CLIError.failed("no box is paired; the daemon serves paired boxes. Pair one with `boxvoice pair LINK`.")
        }
        let store = try LocalStore.open()
        let stop = StopSignal()
        let signals = stop.requestOnTerminationSignals()
        defer { signals.forEach { $0.cancel() } }
        let work = try ScratchDirectory(purpose: "daemon", fallback: Paths.cacheDirectory)
        defer { work.remove() }
        // The control socket first: a second daemon must stop here, before it subscribes to any box.
        // Dictation turns for hotkeys, to one box.
        guard let target = try registry.box(named: dictationBox ?? registry.selectedName()) ?? boxes.first else {
            throw CLIError.failed("no paired box is named '\(dictationBox ?? "")'; `boxvoice boxes` lists them")
        }
        let (_, targetClient) = try SelectedBox.client(named: target.name, deliverPending: false)
        let models = try ModelsDirectory.locate()
        let detector = try KeywordDetector(contentsOf: models + "/speech-keywords.en.txt")
        let control = ControlServerBox()
        let turns = DictationTurns(begin: {
            let pcm = try ALSACapturePCM(name: device, configFile: alsaConfig).paced()
            let session = try? targetClient.defaultSession()
            var configuration = DictationSession.Configuration(box: target.name, client: targetClient, session: session ?? nil,
                                                               spotterPhrases: models + "/command-spotter.en.txt")
            configuration.endOfInput = .send
            configuration.dictionaryCache = Paths.cacheDirectory
            let dictation = DictationSession(configuration: configuration, detector: detector, store: store) { event in
                if let object = DictationOutput.jsonObject(event) {
                    control.server?.broadcast(object)
                    if case .partial = event {} else { log("\(target.name): dictation: \(jsonLine(object))") }
                }
            }
            log("\(target.name): dictation turn started on '\(device)'")
            return (dictation, pcm)
        }, onEnd: { error in
            log("\(target.name): dictation turn ended" + (error.map { ": \($0)" } ?? ""))
            control.server?.broadcast(["event": "idle"])
        })
        do {
            control.server = try ControlServer(path: Paths.controlSocket) { request in
                guard request.command == .status else { return turns.handle(request.command) }
                var reply = turns.status()
                reply.message += "; serving \(boxes.count) box(es), dictating to '\(target.name)'"
                return reply
            }
        } catch let error as ControlSocketError {
            throw CLIError.failed(error.description)
        }
        var streams: [EventStream] = []
        var clients: [(String, BoxClient)] = []
        for box in boxes {
            guard let (_, client) = try? SelectedBox.client(named: box.name, deliverPending: false), let token = try registry.token(for: box) else {
                log("\(box.name): no device token is stored; pair it again")
                continue
            }
            clients.append((box.name, client))
            let responder = LastAudioResponder(box: box.name, client: client, store: store, workDirectory: work.path)
            let name = box.name
            let stream = EventStream(baseURL: box.baseURL, token: token, verifyTLS: !box.insecure) { update in
                switch update {
                case .subscribed:
                    log("\(name): connected")
                case .disconnected(let reason, let retryIn):
                    log("\(name): disconnected (\(reason)); retrying in \(Int(retryIn)) s")
                case .unauthorized:
                    log("\(name): needs re-pair — the box refused this device (401); no more attempts")
                case .lastAudioRequest(let request):
                    // Answer off the event thread: a large upload must not hold back keep-alive replies.
                    DispatchQueue.global().async {
                        do {
                            switch try responder.answer(request) {
                            case .audio(.ignored, _, _), .none(.ignored):
                                log("\(name): ERROR the box ignored our answer to \(request.requestId): echoed messageId \(request.messageId) did not match")
                            case .audio(.unknownRequest, _, _), .none(.unknownRequest):
                                // Normal: another client answered first, or the box stopped waiting.
                                if debug { log("\(name): debug: the box no longer waited for \(request.requestId) (404)") }
                            case .audio(let outcome, let format, let bytes):
                                var cut = ""
                                if case .pcm16kTail = format { cut = "WARNING: the recording is longer than 45 MB even at 16 kHz; sent its end: " }
                                log("\(name): \(cut)answered \(request.requestId) with the recording of \(request.messageId) (\(format), \(bytes) bytes): \(outcome)")
                            case .none(let outcome):
                                log("\(name): answered \(request.requestId) with none (\(request.messageId) is not kept): \(outcome)")
                            }
                        } catch {
                            log("\(name): could not answer \(request.requestId): \(error)")
                        }
                    }
                case .event, .answeredPing:
                    break
                }
            }
            stream.start()
            streams.append(stream)
        }
        log("serving \(streams.count) box(es); control socket \(Paths.controlSocket); Ctrl-C to stop")
        var nextDelivery = Date()
        while !stop.isRequested {
            if Date() >= nextDelivery {
                // What killed runs left (a message awaiting HQ, a recording cut off) is put right continuously.
                do {
                    let report = try store.recover()
                    if !report.isEmpty { log("recovered: \(report.summary)") }
                } catch {
                    log("could not check for interrupted recordings: \(error)")
                }
                for (name, client) in clients {
                    let courier = BoxCourier(store: store, box: name, client: client, detector: detector) { event in
                        if case .queued(let id, _) = event { log("\(name): finished \(id), left awaiting HQ by an interrupted run") }
                    }
                    for report in courier.run(everything: false) { log("\(name): outbox: \(report.summary)") }
                }
                nextDelivery = Date().addingTimeInterval(10)
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        turns.finish()
        control.server?.stop()
        streams.forEach { $0.stop() }
        log("stopped")
        return 0
    }

    fileprivate static func log(_ line: String) {
        let stamp = ISO8601DateFormatter().string(from: Date())
        Console.err("\(stamp) \(line)")
    }
}

/// The control server, set once it is listening; dictation events reach its followers through it.
private final class ControlServerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: ControlServer?
    var server: ControlServer? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

private func log(_ line: String) { DaemonCommand.log(line) }
