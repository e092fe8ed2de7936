import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceDaemon
import BoxVoiceDesktop
import BoxVoicePresentation
import BoxVoiceKeywords
import BoxVoiceStore
import CommandGrammar
import Foundation
import Synchronization

/// `boxvoice daemon`: stays connected to every paired box, answers its retranscription requests from the retained
/// recordings and delivers the outbox. Foreground; logs to stderr; SIGINT/SIGTERM end it cleanly.
enum DaemonCommand: Command {
    static let debug = Option.flag(
        "--debug",
        help: "also log what each message said, and the normal 404s of requests another client answered first")

    static let spec = CommandSpec(
        "daemon", summary: "keep every paired box's event stream open; answer retranscription; hotkey turns",
        about: """
            For every paired box (read again every second: boxes paired, re-paired or unpaired while it runs are \
            picked up without a restart, and with none paired it waits for one): keeps the event stream open \
            (reconnecting at once, then backing off up to 30 s; a box that answers 401 is marked "needs re-pair" and \
            left alone while the others carry on), answers each retranscription request from the retained recordings \
            (or with none), and delivers pending outbox messages every 10 s. Logs to stderr.

            It also listens on the control socket ($XDG_RUNTIME_DIR/boxvoice/control.sock, mode 0600; one daemon per \
            user) for `boxvoice start | stop | toggle | cancel | send | status`: a turn records from the device and \
            dictates to the box, exactly as `boxvoice dictate` does, spoken commands included, with desktop \
            notifications, sound cues, pre-roll and close-after-send as `boxvoice config` sets them (read at each \
            turn). A device without a clock (an ALSA `file` PCM from `boxvoice devices file-pcm`) is paced to real \
            time, so a turn holds as much audio as it lasted.
            """,
        options: [
            CommonOptions.box, CommonOptions.device, CommonOptions.alsaConfig, debug,
        ])

    static func run(_ invocation: Invocation) throws -> Int32 {
        let dictationBox = invocation[CommonOptions.box]
        let deviceOption = invocation[CommonOptions.device]
        let alsaConfig = invocation[CommonOptions.alsaConfig]
        let debug = invocation[debug]
        // a bad settings file stops the daemon at start, with the key at fault
        let initial = try UserSettingsFile.load()
        // Read again at each use: `boxvoice config set …` takes effect at the next turn, without a restart. A file
        // broken while it runs keeps the defaults and is said once.
        let settingsWarned = Atomic<Bool>(false)
        let settings: @Sendable () -> UserSettings = {
            do { return try UserSettingsFile.load() } catch {
                if !settingsWarned.exchange(true, ordering: .relaxed) { log("\(error); using the defaults") }
                return UserSettings()
            }
        }
        let device = deviceOption ?? initial.device ?? "default"
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
                    if missingTokens.withLock({ $0.insert(box.name).inserted }) {
                        log("\(box.name): no device token is stored; pair it again")
                    }
                    continue
                }
                var served = Daemon.Box(name: box.name, baseURL: box.baseURL, token: token, verifyTLS: !box.insecure)
                served.uploadCodec = box.uploadCodec.flatMap(UploadCodec.init(rawValue:)) ?? .auto
                served.pairedAt = box.pairedAt
                boxes.append(served)
            }
            let wanted = try dictationBox ?? settings().box ?? registry.selectedName()
            let dictating = boxes.first { $0.name == wanted }?.name ?? boxes.first?.name
            return Daemon.Pairing(boxes: boxes, dictating: dictating)
        }
        let work = try ScratchDirectory(purpose: "daemon", fallback: Paths.cacheDirectory)
        defer { work.remove() }
        var configuration = Daemon.Configuration(
            pairing: pairing, store: try LocalStore.open(),
            detector: try ModelsDirectory.keywordDetector(override: initial.vocabulary),
            spotterPhrases: { try ModelsDirectory.spotterPhrases() },
            dictionaryCache: Paths.cacheDirectory, controlSocket: Paths.controlSocket, workDirectory: work.path,
            deviceName: device
        ) {
            let current = settings()
            return try ALSACapturePCM(
                name: deviceOption ?? current.device ?? "default", configFile: alsaConfig ?? current.alsaConfig
            ).paced()
        }
        configuration.debug = debug
        let desktop = DesktopFeedback(alsaConfig: alsaConfig ?? initial.alsaConfig, settings: settings, log: log)
        configuration.feedback = { desktop.tell($0) }
        configuration.ready = { ServiceManager.ready() }
        configuration.closeAfterSend = { settings().closeAfterSend }
        configuration.voiceAdaptation = { ModelsDirectory.voiceAdaptation() }
        configuration.preRoll = { settings().preRoll }
        configuration.frontEnd = { settings().frontEnd }
        configuration.whisper = { ModelsDirectory.whisperHearing(settings().recognizer) }
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
