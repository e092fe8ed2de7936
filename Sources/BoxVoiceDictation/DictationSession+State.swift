import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceStore
import BoxVoiceSync
import Foundation
import Synchronization

/// What a dictation holds while it runs: the message being dictated, and what only the hearing loop touches.
extension DictationSession {
    struct Message {
        let recording: MessageStore.Recording
        let uploader: HQUploader
        /// Where this message's audio starts in the stream (48 kHz frames).
        let startFrame: Int64
        /// Segments the recording closed that are not handed to HQ yet: only audio the recognizer has heard past is
        /// uploaded, since until then a command may still end the message inside it.
        var unsubmitted: [ClosedSegment] = []
        /// How many of the message's segments went to HQ, and the stream frame where the last of them ends: the
        /// message's audio is never cut before that.
        var submittedCount = 0
        var submittedThrough: Int64 = 0
        /// The live pass's utterances, joined by spaces.
        var liveText = ""
        var keyword: KeywordMatch?
        /// Where the utterance that ended this message ended, in stream frames (nil: at the last sample).
        var endFrame: Int64?
        /// Segments not uploaded yet (only when uploads wait for the send).
        var held: [ClosedSegment] = []

        var id: MessageID { recording.id }

        /// Adds an utterance's words to the message's live transcript.
        mutating func hear(_ words: String) {
            liveText += liveText.isEmpty ? words : " " + words
        }
    }

    /// What the hearing loop alone touches; the loop runs on one thread at a time.
    struct Hearing {
        var machine: DictationStateMachine
        /// The recording's own road: it writes every captured frame, and this loop hears behind it.
        var road: RecordingRoad?
        /// The stream frame the recognizer has heard up to.
        var framesHeard: Int64 = 0
        /// Frames the recognizer skipped (it fell behind): its clock runs this much behind the stream's.
        var framesSkipped: Int64 = 0
        /// Keys pressed, each with where it came in the audio: it acts once the recognizer has heard up to there.
        var keys: [(trigger: DictationTrigger, frame: Int64)] = []
        /// The last seconds of the stream, for second opinions (`DictationSession.recentSeconds`).
        var recent: RecentAudio
        /// A command waiting for the box's second opinion, and what was heard after it meanwhile; `talkWentOn`: the
        /// speaker went on talking right after it, so only the box's confirmation makes it act.
        var pending: (check: SecondOpinion, queued: [LiveUpdate], talkWentOn: Bool)?
        /// The command the live path holds until the speaker's pause (`LiveUpdate.holding`), and the second opinion
        /// asked on it meanwhile, so the two waits overlap; the check is used when that utterance comes with its
        /// command standing.
        var awaiting: (action: KeywordAction, check: SecondOpinion?)?
        /// The run every message of this dictation belongs to: one conversation (contract §5).
        var run: SessionRun.ID?
    }
}
