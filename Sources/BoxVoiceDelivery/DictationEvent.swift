import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceStore
import Foundation

// What a dictation reports, from hearing to delivery: one type, so the dictation, the outbox's delivery and the daemon
// report alike, and Presentation turns it into text and JSON in one place (`EventRecord`).

public enum HQState: Sendable, Equatable {
    case uploading
    case done
    case retrying(attempt: Int)
    /// The box's failure when it gave one (nil: it answered without text).
    case failed(BoxFailure?)
}

public enum DictationEvent: Sendable, Equatable {
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
    /// The utterance ended with a command that could not act by itself (`doubt` says why, with its figures), and
    /// the box did not confirm it: its words are not taken as a command.
    case commandNotTaken(action: KeywordAction, phrase: String, doubt: CommandDoubt)
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
