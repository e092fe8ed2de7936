import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceStore
import Foundation

/// What a dictation is configured with, what it reports, and how it fails.
extension DictationSession {
    public struct Configuration: Sendable {
        public var box: BoxReference
        public var client: BoxClient
        /// The session dictated into; nil means "new".
        public var session: String?
        /// Ask the box for its default session when each message is sent, not before listening (`session` unused):
        /// dictation never waits on the network, and a box that is down never sends a message into a new session.
        public var sessionFromDefault = false
        public var spotterPhrases: String?
        /// The acoustic model's MLLR adaptation to the user's voice and microphone (`boxvoice calibrate`); nil: as
        /// shipped.
        public var voiceAdaptation: String?
        public var once = false
        public var endOfInput: DictationStateMachine.EndOfInputPolicy = .send
        public var typedPrefix = ""
        public var segmentPolicy = SegmentPolicy()
        /// Upload each segment the moment it closes (the default). Off, every segment waits for the send — only
        /// there to measure what pipelining gains.
        public var uploadWhileRecording = true
        /// Retry waits for one segment's HQ upload after an uncertain failure.
        public var hqRetryDelays: [Double] = [1, 2]
        /// How long a command only the spotter heard waits for the box's second opinion (nil: never asked).
        public var secondOpinionSeconds: Double? = 3
        /// How long the speaker must stay quiet after a command only the spotter heard before it counts
        /// (`CommandHold`; nil: at once). The box's second opinion is asked as the wait begins.
        public var spottedCommandHold: CommandHold.Rule? = .measured
        /// How much audio before the end of that utterance is sent for it.
        public var secondOpinionWindowSeconds = secondOpinionWindow
        /// `secondOpinionWindowSeconds` unless set otherwise (the bench asks its box over the same span).
        public static let secondOpinionWindow = 4.0
        /// A private folder for the short files sent for a second opinion (nil: no second opinion).
        public var workDirectory: String?
        /// How much audio a microphone may run ahead of the recording's own thread (a slow disk).
        public var captureQueueSeconds: Double = 30
        /// How far the live recognizer may fall behind the recording (a busy machine) before it skips ahead to what is
        /// being said now; what it skips is recorded all the same, and said (`Event.notHeardLive`).
        public var hearingLagSeconds: Double = 8
        /// Segments go to HQ once the recognizer has heard this far past their end: a command's utterance end lies
        /// at most this far behind what it has heard (longer waits, a held or checked command, hold them anyway).
        public var segmentHoldbackSeconds: Double = 2
        /// When the live recognizer hears the audio through the speexdsp front end (`UserSettings.frontEnd`; by
        /// default only in a noisy room); segments and uploads stay the raw recording.
        public var frontEnd = FrontEndUse.auto
        /// Where the live recognizer keeps its trimmed dictionary between runs (`LiveTranscriber.Options`).
        public var dictionaryCache: String?
        /// The utterance-end road (Whisper, Silero VAD); nil hears with pocketsphinx alone.
        public var whisper: LiveTranscriber.WhisperHearing?
        /// Open the box's event stream to learn which session a `"new"` first message opened. Off where someone
        /// else feeds the store those events (the daemon's own stream).
        public var followsSessionEvents = true
        /// What segments are uploaded as (needs `workDirectory` for Opus copies); nil: WAV.
        public var uploadCodec: UploadCodecPolicy?
        /// How long the end of a dictation waits for the box to name a new conversation its later messages wait for.
        public var sessionAssignmentWaitSeconds: Double = 10

        /// What the run asks for: nil for the box's default, `"new"`, or a session id.
        var requestedSession: String? { sessionFromDefault ? nil : session ?? "new" }

        public init(box: BoxReference, client: BoxClient, session: String?, spotterPhrases: String?) {
            self.box = box
            self.client = client
            self.session = session
            self.spotterPhrases = spotterPhrases
        }
    }

    public enum DictationError: Error, CustomStringConvertible {
        /// The microphone went away; what was said is the draft (nil: nothing had been said).
        case captureFailed(Error, draft: MessageID?)
        /// The recording or the store could not be written (a full disk, most often).
        case storageFailed(Error, draft: MessageID?, diskFull: Bool)

        public var description: String {
            switch self {
            case .captureFailed(let error, let draft):
                "the audio input failed: \(error). " + Self.kept(draft)
            case .storageFailed(let error, let draft, let diskFull):
                (diskFull ? "the disk is full, so recording stopped (\(error)). " : "recording stopped: \(error). ")
                    + Self.kept(draft)
                    + (diskFull ? " Free some space first." : "")
            }
        }

        private static func kept(_ draft: MessageID?) -> String {
            guard let draft else {
                return "Every message heard before it is kept (`boxvoice outbox`); nothing after it was recorded."
            }
            return
                "What was said so far (text and audio) is kept as draft \(draft): send it with `boxvoice outbox send "
                + "\(draft)`."
        }
    }
}
