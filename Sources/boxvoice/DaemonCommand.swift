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
        let paired = try registry.boxes()
        guard !paired.isEmpty else {
            throw CLIError.failed("no box is paired; the daemon serves paired boxes. Pair one with `boxvoice pair LINK`.")
        }
        guard let target = try registry.box(named: dictationBox ?? registry.selectedName()) ?? paired.first else {
            throw CLIError.failed("no paired box is named '\(dictationBox ?? "")'; `boxvoice boxes` lists them")
        }
        var boxes: [Daemon.Box] = []
        for box in paired {
            guard let token = try registry.token(for: box) else {
                log("\(box.name): no device token is stored; pair it again")
                continue
            }
            boxes.append(Daemon.Box(name: box.name, client: BoxClient(baseURL: box.baseURL, token: token, verifyTLS: !box.insecure),
                                    baseURL: box.baseURL, token: token, verifyTLS: !box.insecure))
        }
        guard let dictationTarget = boxes.first(where: { $0.name == target.name }) else {
            throw CLIError.failed("no device token is stored for '\(target.name)'; pair it again")
        }
        let work = try ScratchDirectory(purpose: "daemon", fallback: Paths.cacheDirectory)
        defer { work.remove() }
        var configuration = Daemon.Configuration(
            boxes: boxes, dictationBox: dictationTarget, store: try LocalStore.open(),
            detector: try ModelsDirectory.keywordDetector(override: nil), spotterPhrases: try ModelsDirectory.spotterPhrases(),
            dictionaryCache: Paths.cacheDirectory, controlSocket: Paths.controlSocket, workDirectory: work.path, deviceName: device
        ) { try ALSACapturePCM(name: device, configFile: alsaConfig).paced() }
        configuration.debug = debug
        let stop = StopSignal()
        let signals = stop.requestOnTerminationSignals()
        defer { signals.forEach { $0.cancel() } }
        do {
            try Daemon(configuration: configuration, log: log).run(until: stop)
        } catch let error as ControlSocketError {
            throw CLIError.failed(error.description)
        }
        return 0
    }

    fileprivate static func log(_ line: String) {
        let stamp = ISO8601DateFormatter().string(from: Date())
        Console.err("\(stamp) \(line)")
    }
}

private func log(_ line: String) { DaemonCommand.log(line) }
