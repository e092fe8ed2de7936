import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoicePresentation
import BoxVoiceStore
import Foundation

/// What a daemon is told: the boxes it serves, and how its turns and deliveries run.
extension Daemon {
    /// A paired box the daemon serves.
    public struct Box: Sendable {
        public var name: String
        public var client: BoxClient
        public var baseURL: String
        public var token: String
        public var verifyTLS: Bool
        /// What HQ uploads go as (the box's `boxes codec` setting).
        public var uploadCodec: UploadCodec = .auto
        /// When it was paired: a refusal older than this is not a reason to re-pair.
        public var pairedAt = Date.distantPast

        public init(name: String, baseURL: String, token: String, verifyTLS: Bool) {
            self.name = name
            self.client = BoxClient(baseURL: baseURL, token: token, verifyTLS: verifyTLS)
            self.baseURL = baseURL
            self.token = token
            self.verifyTLS = verifyTLS
        }

        /// How the store knows it: a paired box, never the embedded one.
        public var reference: BoxReference { .paired(name) }

        /// Whether a connection made for `other` still serves this box (re-pairing changes the token).
        func connectsLike(_ other: Box) -> Bool {
            name == other.name && baseURL == other.baseURL && token == other.token && verifyTLS == other.verifyTLS
        }
    }

    /// The boxes paired now, and the one hotkey turns dictate to (nil: none is paired).
    public struct Pairing: Sendable {
        public var boxes: [Box]
        public var dictating: String?

        public init(boxes: [Box], dictating: String?) {
            self.boxes = boxes
            self.dictating = dictating
        }
    }

    public struct Configuration: Sendable {
        /// Reads the pairing as it is now: called at start and every `pairingCheckInterval`, so boxes paired,
        /// re-paired or unpaired while the daemon runs are served without a restart. A throw keeps the last pairing.
        public var pairing: @Sendable () throws -> Pairing
        public var store: MessageStore
        public var detector: KeywordDetector
        /// Asked at each turn: the command spotter's phrase file (a new `boxvoice calibrate` applies from the next
        /// turn,
        /// without a restart). A throw means the turn cannot start.
        public var spotterPhrases: @Sendable () throws -> String?
        public var dictionaryCache: String?
        public var controlSocket: String
        /// A private folder for answers being joined.
        public var workDirectory: String
        /// Opens the microphone for a turn.
        public var openDevice: @Sendable () throws -> CapturePCM
        public var deviceName: String
        /// Logs the normal 404 of a request another client answered first, and what each message said.
        public var debug = false
        /// How often what killed runs left is looked for, and pending messages are tried.
        public var deliveryInterval: TimeInterval = 10
        /// How often the pairing is read again.
        public var pairingCheckInterval: TimeInterval = 1
        /// Told when a turn starts, ends, delivers, is held or refused (notifications, sounds).
        public var feedback: @Sendable (TurnFeedbackEvent) -> Void = { _ in }
        /// Called once the control socket takes commands (the user unit is `Type=notify`: systemd, and a `boxvoice
        /// status` run right after `systemctl --user enable --now`, wait for this moment).
        public var ready: @Sendable () -> Void = {}
        /// Asked at each turn: a spoken send also ends the turn (the microphone closes) instead of listening on.
        public var closeAfterSend: @Sendable () -> Bool = { false }
        /// Asked every second: keep the microphone open between turns, holding `preRollSeconds` in memory only, so a
        /// turn starts with what was said just before the key press.
        public var preRoll: @Sendable () -> Bool = { false }
        public var preRollSeconds = 0.5
        /// Asked at each turn: when the live recognizer hears the audio through the speexdsp front end.
        public var frontEnd: @Sendable () -> FrontEndUse = { .auto }
        /// Asked at each turn, with `spotterPhrases`: the acoustic model's adaptation to the user's voice (nil: none).
        public var voiceAdaptation: @Sendable () -> String? = { nil }
        /// The utterance-end road for each turn (read at each turn, like the settings); nil: pocketsphinx alone.
        public var whisper: @Sendable () -> LiveTranscriber.WhisperHearing? = { nil }

        public init(
            pairing: @escaping @Sendable () throws -> Pairing, store: MessageStore, detector: KeywordDetector,
            spotterPhrases: @escaping @Sendable () throws -> String?,
            dictionaryCache: String?, controlSocket: String, workDirectory: String, deviceName: String,
            openDevice: @escaping @Sendable () throws -> CapturePCM
        ) {
            self.pairing = pairing
            self.store = store
            self.detector = detector
            self.spotterPhrases = spotterPhrases
            self.dictionaryCache = dictionaryCache
            self.controlSocket = controlSocket
            self.workDirectory = workDirectory
            self.deviceName = deviceName
            self.openDevice = openDevice
        }
    }

    /// A hotkey turn could not start because no box is paired.
    public struct NoBoxPaired: Error, CustomStringConvertible {
        public var description: String {
            "no box is paired, so there is nowhere to dictate to; pair one with `boxvoice pair LINK` (the daemon picks "
                + "it up without a restart)"
        }
    }
}
