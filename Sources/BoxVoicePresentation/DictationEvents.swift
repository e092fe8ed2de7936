import BoxVoiceCore
import Foundation

/// The one JSON spelling of dictation events: `dictate --json` prints it, the daemon's `status --follow` streams it.
public enum DictationEvents {
    /// The `--json` (and `status --follow`) form of an event; nil for the level ticks, which only the status area shows.
    public static func jsonObject(_ event: DictationSession.Event) -> [String: Any]? {
        switch event {
        case .level: return nil
        case .partial(let text): return ["event": "partial", "text": text]
        case .final(let text): return ["event": "final", "text": text]
        case .keyword(let action, let phrase, let at): return ["event": "keyword", "action": action.rawValue, "phrase": phrase, "at": at]
        case .segment(let index, let seconds): return ["event": "segment", "index": index, "seconds": seconds]
        case .hq(let id, let index, let state):
            var object: [String: Any] = ["event": "hq", "messageId": id, "segment": index]
            switch state {
            case .uploading: object["state"] = "uploading"
            case .done: object["state"] = "done"
            case .retrying(let attempt): object["state"] = "retrying"; object["attempt"] = attempt
            case .failed(let failure): object["state"] = "failed"; object["reason"] = failure.map(String.init(describing:)) ?? "no text"
            }
            return object
        case .fallback(let reason, _): return ["event": "fallback", "reason": reason]
        case .committed(let id): return ["event": "committed", "messageId": id]
        case .commandChecked(let action, let outcome, let seconds):
            return ["event": "checked", "action": action.rawValue, "outcome": outcome.rawValue, "seconds": seconds]
        case .awaitingPause(let action, let phrase): return ["event": "awaiting", "action": action.rawValue, "phrase": phrase]
        case .speechWentOn(let action): return ["event": "not-taken", "action": action.rawValue, "reason": "speech went on after it"]
        case .queued(let id, let message, let text): return ["event": "queued", "messageId": id, "message": message, "text": text]
        case .recovered(let report):
            return ["event": "recovered", "adoptedDrafts": report.adoptedDrafts.map(\.rawValue), "repairedFiles": report.repairedFiles,
                    "removedFolders": report.removedFolders, "message": report.summary]
        case .delivered(let id): return ["event": "delivered", "messageId": id]
        case .postponed(let id, let failure): return ["event": "queued", "messageId": id, "reason": failure.description]
        case .failed(let id, let reason): return ["event": "failed", "messageId": id, "reason": reason]
        case .refused(let id, let reason, let needsRePair):
            return ["event": "failed", "messageId": id, "reason": reason, "refused": true, "needsRePair": needsRePair]
        case .uploadCodec(let format, let reason): return ["event": "codec", "codec": format, "reason": reason]
        case .heldForSession(let id):
            return ["event": "held", "messageId": id, "reason": "waiting for the box to name the conversation this run opened"]
        case .draft(let id): return ["event": "draft", "messageId": id]
        case .discarded: return ["event": "discarded"]
        case .notHeardLive(let seconds, let at): return ["event": "not-heard-live", "seconds": seconds, "at": at]
        case .whisperMissed(let reason, let at):
            return ["event": "whisper-missed", "reason": reason == .abandoned ? "late" : "failed", "heardBy": "pocketsphinx", "at": at]
        case .hearingBehind(let seconds): return ["event": "behind", "seconds": seconds]
        case .captureLost(let frames, let overruns): return ["event": "capture-lost", "frames": frames, "overruns": overruns]
        }
    }
}
