import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceAudio
import BoxVoiceDesktop
import BoxVoiceStore
import Foundation
import Synchronization

/// What a hotkey user is told about a daemon turn, with no terminal to read: the moments that matter, in words.
public enum TurnFeedbackEvent: Sendable, Equatable {
    case started(box: String)
    case ended(box: String)
    case couldNotStart(reason: String)
    case delivered(box: String, text: String)
    /// The box could not be reached: the message waits in the outbox.
    case held(box: String, reason: String)
    case failed(box: String, reason: String)
    case needsRePair(box: String)

    /// The notification's title and text.
    public var notification: (summary: String, body: String, urgency: DesktopNotifier.Urgency) {
        switch self {
        case .started(let box):
            ("Dictating to \(box)", "Speak, then say a send command or press the hotkey again.", .low)
        case .ended(let box):
            ("Stopped dictating to \(box)", "The microphone is closed; what you said is being sent.", .low)
        case .couldNotStart(let reason): ("Could not start dictating", reason, .critical)
        case .delivered(let box, let text): ("Sent to \(box)", text, .normal)
        case .held(let box, let reason):
            (
                "\(box) is unreachable: message kept",
                "It waits in the outbox and is sent when the box answers (\(reason)).", .normal
            )
        case .failed(let box, let reason):
            ("\(box) refused a message", "It is kept in the outbox: \(reason)", .critical)
        case .needsRePair(let box):
            (
                "\(box) needs pairing again",
                "The box no longer accepts this device; the message is kept. Pair again with a new link: "
                    + "boxvoice pair LINK.",
                .critical
            )
        }
    }

    /// The sound that goes with it, if any.
    public var cue: SoundCue? {
        switch self {
        case .started: .start
        case .ended: .stop
        case .delivered: .sent
        default: nil
        }
    }

    /// Turns a dictation event into what the user hears of it (nil: nothing to tell). `texts` remembers what each
    /// message said between its `queued` and the turn's last word on it (delivered, held or refused).
    public static func from(_ event: DictationEvent, box: String, texts: borrowing Mutex<[MessageID: String]>)
        -> TurnFeedbackEvent?
    {
        switch event {
        case .listeningEnded:
            return .ended(box: box)
        case .queued(let id, _, let text):
            texts.withLock { $0[id] = SpeechFraming.asSaid(text) }
            return nil
        case .delivered(let id):
            return .delivered(box: box, text: texts.withLock { $0.removeValue(forKey: id) } ?? "")
        case .postponed(let id, let failure):
            texts.withLock { _ = $0.removeValue(forKey: id) }
            return .held(box: box, reason: failure.description)
        case .refused(let id, let reason, let needsRePair):
            texts.withLock { _ = $0.removeValue(forKey: id) }
            return needsRePair ? .needsRePair(box: box) : .failed(box: box, reason: reason)
        default: return nil
        }
    }
}

/// Tells the user through desktop notifications and sound cues, as the settings say at the moment of each event. A
/// desktop without a notification service, or a machine without a speaker, is not an error worth more than one log
/// line.
public final class DesktopFeedback: Sendable {
    private let settings: @Sendable () -> UserSettings
    private let busAddress: String?
    private let log: @Sendable (String) -> Void
    private let notifier = Mutex<DesktopNotifier?>(nil)
    private let warned = Atomic<Bool>(false)
    private let cues: CuePlayer
    private let notifications = SerialWork("boxvoice notifications")

    /// - Parameter alsaConfig: the ALSA configuration the sound device is resolved in (as the capture device is).
    public init(
        busAddress: String? = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"],
        alsaConfig: String? = nil,
        settings: @escaping @Sendable () -> UserSettings, log: @escaping @Sendable (String) -> Void
    ) {
        self.busAddress = busAddress
        self.settings = settings
        self.log = log
        cues = CuePlayer(alsaConfig: alsaConfig, log: log)
    }

    /// Returns at once: sounds and notifications go out in order on threads of their own.
    public func tell(_ event: TurnFeedbackEvent) {
        let settings = settings()
        if settings.sounds, let cue = event.cue { cues.play(cue, device: settings.soundDevice ?? "default") }
        guard settings.notifications else { return }
        let (summary, body, urgency) = event.notification
        notifications.run { [self] in
            do {
                try notifier.withLock { (notifier: inout DesktopNotifier?) throws(DesktopBusError) in
                    if notifier == nil { notifier = DesktopNotifier(bus: try DesktopBus(address: busAddress)) }
                    try notifier!.notify(summary: summary, body: body, urgency: urgency)
                }
            } catch {
                notifier.withLock { $0 = nil }
                if !warned.exchange(true, ordering: .relaxed) { log("desktop notifications are off: \(error)") }
            }
        }
    }
}

/// Plays cues one after another on a thread of its own, in the order asked: the event that asks (often on the capture
/// or delivery path) never waits for a speaker.
final class CuePlayer: Sendable {
    private let alsaConfig: String?
    private let log: @Sendable (String) -> Void
    private let work = SerialWork("boxvoice sound cues")
    private let warned = Atomic<Bool>(false)

    init(alsaConfig: String?, log: @escaping @Sendable (String) -> Void) {
        self.alsaConfig = alsaConfig
        self.log = log
    }

    func play(_ cue: SoundCue, device: String) {
        work.run { [self] in
            do {
                let pcm = try ALSAPlaybackPCM(name: device, configFile: alsaConfig)
                try pcm.play(cue.samples(sampleRate: pcm.sampleRate))
                pcm.close()
            } catch let error as ALSAError {
                if !warned.exchange(true, ordering: .relaxed) {
                    log(
                        "sound cues cannot play on '\(error.device)' (ALSA: \(error.libraryMessage)); pick another "
                            + "playback PCM with "
                            + "`boxvoice config set sound-device PCM`, or turn them off with `boxvoice config set "
                            + "sounds false`"
                    )
                }
            } catch {
                if !warned.exchange(true, ordering: .relaxed) { log("sound cues cannot play: \(error)") }
            }
        }
    }
}
