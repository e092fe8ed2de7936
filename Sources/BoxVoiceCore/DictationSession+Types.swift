import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
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
        public var secondOpinionWindowSeconds: Double = 4
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
        /// The utterance-end road (Whisper, Silero VAD, DeepFilterNet3); nil hears with pocketsphinx alone.
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

    public enum HQState: Sendable, Equatable {
        case uploading
        case done
        case retrying(attempt: Int)
        /// The box's failure when it gave one (nil: it answered without text).
        case failed(BoxFailure?)
    }

    public enum Event: Sendable, Equatable {
        /// About ten times a second of audio: where the recording is and how loud it is, for a level meter.
        case level(elapsed: Double, dBFS: Double)
        /// The microphone is closed: what was committed is still being finished (HQ, delivery) before the run ends.
        case listeningEnded
        case partial(String)
        case final(String)
        case keyword(action: KeywordAction, phrase: String, at: Double)
        case segment(index: Int, seconds: Double)
        /// HQ progress of one segment of the message being dictated (or finished).
        case hq(messageId: MessageID, index: Int, state: HQState)
        /// HQ failed for this message: it goes out with its live text — unless `redoneLater`: the box could not be
        /// reached (or refused the device) and HQ is redone from the kept recording before the message is sent.
        case fallback(reason: String, failure: BoxFailure?, redoneLater: Bool = false)
        /// A command ended the message and it is durable (before HQ and before any POST): it will reach the box.
        case committed(messageId: MessageID)
        /// Its final text is framed and waiting for the POST: `message` as the box receives it (speech framing and
        /// keyword tag), `text` as the user said it.
        case queued(messageId: MessageID, message: String, text: String)
        /// A message that went out of its dictation with its live text because the box could not be reached (or
        /// refused the device) got its HQ text from its kept recording once the box was back, just before its send.
        case hqRedone(messageId: MessageID, message: String, text: String)
        case delivered(messageId: MessageID)
        case postponed(messageId: MessageID, failure: BoxFailure)
        /// Committed, waiting for the box to name the conversation the run's first message opened (contract §5).
        case heldForSession(messageId: MessageID)
        /// What segments go to the box's HQ as from now on (`wav` or `opus`), and why.
        case uploadCodec(format: UploadChoice.Format, reason: String)
        /// `messageId` nil: a failure of the run itself (its store could not be read), no one message's.
        case failed(messageId: MessageID?, reason: String)
        /// The box refused the message (a 4xx); it stays in the outbox. `needsRePair`: the box no longer accepts this
        /// device (401).
        case refused(messageId: MessageID, reason: String, needsRePair: Bool)
        case draft(messageId: MessageID)
        case discarded
        /// What a killed earlier run left was put right at start (drafts adopted, headers repaired).
        case recovered(RecoveryReport)
        /// The box's second opinion on a command only the spotter heard, and how long it took.
        case commandChecked(action: KeywordAction, outcome: CheckOutcome, seconds: Double)
        /// A command only the spotter heard waits for the speaker's pause after it (`CommandHold`).
        case awaitingPause(action: KeywordAction, phrase: String)
        /// The speaker went on talking right after a command only the spotter heard: its words stay text.
        case speechWentOn(action: KeywordAction)
        /// Whisper wrote a command but was unsure of its words, and the box did not confirm it: its words are taken
        /// as not heard.
        case commandUnsure(action: KeywordAction)
        /// The live recognizer is this far behind the recording (said about once a second while it is a second or more
        /// behind, and once more when it has caught up: 0).
        case hearingBehind(seconds: Double)
        /// The live recognizer fell behind (a busy machine) and skipped `seconds` of audio from `at`: recorded and sent
        /// to HQ all the same, but no command in it is heard live.
        case notHeardLive(seconds: Double, at: Double)
        /// Whisper missed the utterance ending here (late on a busy machine, or failed): pocketsphinx's text of it is
        /// what the next `final` carries.
        case whisperMissed(reason: HearingError.Code, at: Double)
        /// The microphone's audio was lost before it reached the recording (the device overran, or the queue to the
        /// recording filled): the totals so far. Never expected; said when it happens.
        case captureLost(frames: Int64, overruns: Int)
    }

    /// What a second opinion decided.
    public enum CheckOutcome: String, Sendable, Equatable {
        /// The box's HQ text holds the command too: it acts.
        case confirmed
        /// The box heard ordinary words: they stay text, and nothing acts.
        case rejected
        /// No answer in time: the live path decided (the command acts).
        case undecided
    }
}
