import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceStore
import Foundation

/// One line of a dictation's event stream: what `dictate --json` prints, what the daemon streams to `status --follow`
/// and what `status --follow` reads back. One `Codable` type, so the writer and the readers cannot disagree about a
/// field's name or type; a field an event does not carry is absent, never an empty sentinel.
public struct EventRecord: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case listening
        /// The microphone closed; the run finishes what was committed (HQ, delivery), then `idle`.
        case listeningEnded = "listening-ended"
        case idle, partial, final, keyword, segment, hq, fallback, committed, checked, awaiting
        case notTaken = "not-taken"
        case queued
        /// A message held while the box was away got its HQ text before its send (`message`, `text` as for `queued`).
        case hqRedone = "hq-redone"
        /// The box could not be reached: the message waits in the outbox (`reason` says why).
        case postponed
        case recovered, delivered, failed, codec, held, draft, discarded
        case notHeardLive = "not-heard-live"
        case whisperMissed = "whisper-missed"
        case behind
        case captureLost = "capture-lost"
        /// `dictate` found no paired box and uses the embedded one.
        case localBox = "local-box"
    }

    /// An HQ upload's progress, as `hq` events spell it.
    public enum UploadState: String, Codable, Sendable {
        case uploading, done, retrying, failed
    }

    public var event: Kind
    public var box: String?
    public var text: String?
    public var action: KeywordAction?
    public var phrase: String?
    public var at: Double?
    public var index: Int?
    public var segment: Int?
    public var seconds: Double?
    public var messageId: MessageID?
    public var state: UploadState?
    public var attempt: Int?
    public var reason: String?
    /// The message as the box receives it (`queued`), or words for the user (`recovered`, `local-box`).
    public var message: String?
    public var outcome: CheckOutcome?
    public var codec: UploadChoice.Format?
    public var refused: Bool?
    /// `fallback`: HQ is redone from the kept recording before the message is sent, once the box is back.
    public var redoneLater: Bool?
    public var needsRePair: Bool?
    public var heardBy: String?
    /// `not-taken`: why the command did not act (`CommandDoubt.code`).
    public var doubt: String?
    /// The figure and the line that decided a command: for `not-taken` the one it missed, for `listen`'s `keyword`
    /// the evidence it acted on (`CommandWeighing`).
    public var score: Double?
    public var threshold: Double?
    public var adoptedDrafts: [MessageID]?
    public var repairedFiles: Int?
    public var removedFolders: Int?
    public var frames: Int64?
    public var overruns: Int?

    public init(_ event: Kind) { self.event = event }

    /// The start of listening, naming the box dictated to.
    public static func listening(box: String) -> EventRecord {
        var record = EventRecord(.listening)
        record.box = box
        return record
    }

    /// A notice for the user that is not a dictation event (`local-box`).
    public static func notice(_ kind: Kind, message: String) -> EventRecord {
        var record = EventRecord(kind)
        record.message = message
        return record
    }

    /// The line a dictation event is written as; nil for the level ticks, which only the status area shows.
    public init?(_ event: DictationEvent) {
        switch event {
        case .level: return nil
        case .listeningEnded: self.init(Kind.listeningEnded)
        case .partial(let text): self.init(.partial); self.text = text
        case .final(let text): self.init(.final); self.text = text
        case .keyword(let action, let phrase, let at):
            self.init(.keyword); self.action = action; self.phrase = phrase; self.at = at
        case .segment(let index, let seconds): self.init(.segment); self.index = index; self.seconds = seconds
        case .hq(let id, let index, let state):
            self.init(.hq); messageId = id; segment = index
            switch state {
            case .uploading: self.state = .uploading
            case .done: self.state = .done
            case .retrying(let attempt): self.state = .retrying; self.attempt = attempt
            case .failed(let failure): self.state = .failed; reason = failure.map(String.init(describing:)) ?? "no text"
            }
        case .fallback(let reason, _, let redoneLater):
            self.init(.fallback); self.reason = reason; self.redoneLater = redoneLater ? true : nil
        case .committed(let id): self.init(.committed); messageId = id
        case .commandChecked(let action, let outcome, let seconds):
            self.init(.checked); self.action = action; self.outcome = outcome; self.seconds = seconds
        case .awaitingPause(let action, let phrase): self.init(.awaiting); self.action = action; self.phrase = phrase
        case .speechWentOn(let action): self.init(.notTaken); self.action = action; reason = "speech went on after it"
        case .commandNotTaken(let action, let phrase, let doubt):
            self.init(.notTaken); self.action = action; self.phrase = phrase; reason = doubt.explanation
            self.doubt = doubt.code; score = doubt.score?.value; threshold = doubt.score?.threshold
        case .queued(let id, let message, let text):
            self.init(.queued); messageId = id; self.message = message; self.text = text
        case .hqRedone(let id, let message, let text):
            self.init(.hqRedone); messageId = id; self.message = message; self.text = text
        case .recovered(let report):
            self.init(.recovered); adoptedDrafts = report.adoptedDrafts; repairedFiles = report.repairedFiles
            removedFolders = report.removedFolders; message = report.summary
        case .delivered(let id): self.init(.delivered); messageId = id
        case .postponed(let id, let failure): self.init(.postponed); messageId = id; reason = failure.description
        case .failed(let id, let reason): self.init(.failed); messageId = id; self.reason = reason
        case .refused(let id, let reason, let needsRePair):
            self.init(.failed); messageId = id; self.reason = reason; refused = true; self.needsRePair = needsRePair
        case .uploadCodec(let format, let reason): self.init(.codec); codec = format; self.reason = reason
        case .heldForSession(let id):
            self.init(.held); messageId = id; reason = "waiting for the box to name the conversation this run opened"
        case .draft(let id): self.init(.draft); messageId = id
        case .discarded: self.init(Kind.discarded)
        case .notHeardLive(let seconds, let at): self.init(.notHeardLive); self.seconds = seconds; self.at = at
        case .whisperMissed(let reason, let at):
            self.init(.whisperMissed); self.reason = reason == .abandoned ? "late" : "failed"; heardBy = "pocketsphinx";
            self.at = at
        case .hearingBehind(let seconds): self.init(.behind); self.seconds = seconds
        case .captureLost(let frames, let overruns):
            self.init(.captureLost); self.frames = frames; self.overruns = overruns
        }
    }

    /// The same event without what the user said (its words and the framed message), for a log.
    public var withoutWords: EventRecord {
        var record = self
        record.text = nil
        if event == .queued || event == .hqRedone { record.message = nil }
        return record
    }

    /// One JSON line (keys sorted, no newline).
    public var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every field is a string, number, boolean or array of them: encoding cannot fail.
        let data = try! encoder.encode(self)
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads one line back; nil for a line that is not an event this version knows.
    public init?(line: String) {
        guard let record = try? JSONDecoder().decode(EventRecord.self, from: Data(line.utf8)) else { return nil }
        self = record
    }
}

extension CheckOutcome: Codable {}
