import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceCore
import BoxVoiceKeywords
import BoxVoiceStore
import Foundation
import Synchronization

/// `boxvoice daemon`: stays connected to every paired box, answers its retranscription requests from the retained
/// recordings and delivers the outbox. Foreground; logs to stderr; SIGINT/SIGTERM end it cleanly.
enum DaemonCommand: Command {
    static let name = "daemon"
    static let summary = "stay connected: answer retranscription requests, deliver the outbox"
    static let usage = """
    Usage: boxvoice daemon [--box NAME] [--device PCM] [--alsa-config FILE] [--debug]

    For every paired box (read again every second: boxes paired, re-paired or unpaired while it runs
    are picked up without a restart, and with none paired it waits for one): keeps the event stream open (reconnecting at once, then backing off up to
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
        // Read now to refuse a --box that names no paired box; read again while running, so pairing, re-pairing
        // and unpairing take effect without a restart (a daemon started with no box waits for one).
        if let dictationBox, try registry.box(named: dictationBox) == nil {
            throw CLIError.failed("no paired box is named '\(dictationBox)'; `boxvoice boxes` lists them")
        }
        let missingTokens = Mutex<Set<String>>([])
        let pairing: @Sendable () throws -> Daemon.Pairing = {
            var boxes: [Daemon.Box] = []
            for box in try registry.boxes() {
                guard let token = try registry.token(for: box) else {
                    if missingTokens.withLock({ $0.insert(box.name).inserted }) { log("\(box.name): no device token is stored; pair it again") }
                    continue
                }
                var served = Daemon.Box(name: box.name, baseURL: box.baseURL, token: token, verifyTLS: !box.insecure)
                served.uploadCodec = box.uploadCodec.flatMap(UploadCodec.init(rawValue:)) ?? .auto
                boxes.append(served)
            }
            let wanted = try dictationBox ?? registry.selectedName()
            let dictating = boxes.first { $0.name == wanted }?.name ?? boxes.first?.name
            return Daemon.Pairing(boxes: boxes, dictating: dictating)
        }
        let work = try ScratchDirectory(purpose: "daemon", fallback: Paths.cacheDirectory)
        defer { work.remove() }
        var configuration = Daemon.Configuration(
            pairing: pairing, store: try LocalStore.open(),
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
