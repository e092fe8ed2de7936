import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceKeywords
import BoxVoiceStore
import Foundation
import Synchronization

/// Finishes messages that a command has already committed (`awaitingHQ`): waits for (or runs) their HQ uploads,
/// resolves the HQ text against the command the live pass heard, frames it, and makes it pending in the same row —
/// or frames the live text when HQ fails. One serial queue, so the dictation that committed a message is already
/// hearing the next one; the same code finishes a message a killed run left, from its retained segments.
public final class MessageFinisher: Sendable {
    public let store: MessageStore
    public let box: BoxReference
    public let client: BoxClient
    public let detector: KeywordDetector
    public let hqRetryDelays: [Double]
    /// What segments go to HQ as, and the private folder Opus copies are made in (either nil: WAV).
    public let uploadCodec: UploadCodecPolicy?
    public let workDirectory: String?
    private let onEvent: @Sendable (DictationEvent) -> Void
    private let queue = DispatchQueue(label: "boxvoice.finish")
    /// A permanent HQ failure is reported once; later messages skip HQ.
    private let unavailable = Mutex<BoxFailure?>(nil)
    /// The uploads being waited for now, so the user can stop waiting (`sendLiveTextNow`).
    private let awaited = Mutex<HQUploader?>(nil)

    public init(
        store: MessageStore, box: BoxReference, client: BoxClient, detector: KeywordDetector,
        hqRetryDelays: [Double] = [1, 2],
        uploadCodec: UploadCodecPolicy? = nil, workDirectory: String? = nil,
        onEvent: @escaping @Sendable (DictationEvent) -> Void = { _ in }
    ) {
        self.uploadCodec = uploadCodec
        self.workDirectory = workDirectory
        self.store = store
        self.box = box
        self.client = client
        self.detector = detector
        self.hqRetryDelays = hqRetryDelays
        self.onEvent = onEvent
    }

    /// HQ was found permanently unavailable: new messages skip it.
    public var hqIsUnavailable: Bool { unavailable.withLock { $0 != nil } }

    /// A new uploader for one message's segments, reporting its progress as that message's `hq` events.
    public func uploader(for id: MessageID, session: String?) -> HQUploader {
        let onEvent = self.onEvent
        let key = id
        return HQUploader(
            client: client, session: session, retryDelays: hqRetryDelays, codec: uploadCodec,
            workDirectory: workDirectory
        ) { event in
            switch event {
            case .codec(let choice): onEvent(.uploadCodec(format: choice.format, reason: choice.reason))
            case .started(let index, _): onEvent(.hq(messageId: key, index: index + 1, state: .uploading))
            case .uploaded(let result):
                onEvent(
                    .hq(
                        messageId: key, index: result.index + 1,
                        state: result.transcription != nil ? .done : .failed(result.failure)))
            case .retrying(let index, let attempt, _):
                onEvent(.hq(messageId: key, index: index + 1, state: .retrying(attempt: attempt)))
            case .stopped: break
            }
        }
    }

    /// Finishes a committed message in the background. `uploads` holds the uploads already made while it was
    /// recorded (nil: upload its retained segments now). The lease is held until it is framed.
    public func finish(
        _ id: MessageID, uploads: HQUploader?, lease: RecordingLease?, then: @escaping @Sendable () -> Void = {}
    ) {
        queue.async { [self] in
            finishNow(id, uploads: uploads, lease: lease)
            then()
            // Its audio no longer changes: kept compressed from now on (after the POST was started, never before),
            // under the lease still held, so no other process compresses it at the same time.
            compress(id, holding: lease)
        }
    }

    private func compress(_ id: MessageID, holding lease: RecordingLease?) {
        do {
            try store.compressRecording(id, holding: lease)
        } catch {
            onEvent(
                .failed(
                    messageId: id, reason: "its recording could not be compressed (\(error)); it is kept as recorded"))
        }
    }

    /// Finishes, in order, every message of this box a killed run left awaiting HQ. Returns once they are framed.
    public func resumeAbandoned() {
        queue.sync { resumeNow() }
    }

    /// The same in the background, then `then`.
    public func resumeAbandoned(then: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            resumeNow()
            then()
        }
    }

    private func resumeNow() {
        do {
            for (message, lease) in try store.claimAwaitingHQ(box: box) {
                finishNow(message.id, uploads: nil, lease: lease)
                compress(message.id, holding: lease)
            }
        } catch {
            onEvent(
                .failed(
                    messageId: nil, reason: "could not read the messages awaiting HQ (\(error)); they stay committed"))
        }
    }

    /// Waits for every message handed over so far.
    public func waitUntilIdle() { queue.sync {} }

    /// The message whose HQ text is being waited for goes out with its live text now (the user's key). Returns
    /// whether one was waiting.
    @discardableResult
    public func sendLiveTextNow() -> Bool {
        guard let uploader = awaited.withLock({ $0 }) else { return false }
        uploader.abandon()
        return true
    }

    /// Why a message went out with its live text when the user stopped waiting for HQ.
    public static let notWaitedFor = "you sent the live text without waiting for HQ"

    private func finishNow(_ id: MessageID, uploads: HQUploader?, lease: RecordingLease?) {
        let found: DictatedMessage?
        do {
            found = try store.message(id)
        } catch {
            onEvent(
                .failed(
                    messageId: id,
                    reason: "could not read it back (\(error)); it stays committed and is finished by the next run"))
            return
        }
        guard let message = found, message.state == .awaitingHQ else { return }
        var hq: HQText?
        var owed = false
        var uploader = uploads
        if uploader == nil, !hqIsUnavailable { uploader = uploaderOfKeptRecording(message) }
        if let uploader {
            switch outcome(of: uploader) {
            case .text(let text): hq = text
            case .reported: break
            case .failed(let reason, let failure):
                // Only the box's absence (or its refusal of this device) kept HQ from it, and the recording is kept:
                // HQ is redone before the message is sent, once the box is back.
                owed = message.hasAudio && failure.map(Self.keepsHQOwed) == true
                onEvent(.fallback(reason: reason, failure: failure, redoneLater: owed))
            }
        }
        let resolved = VoiceTextResolver(detector: detector).resolve(
            heard: message.heardText, command: message.command,
            typedPrefix: message.typedPrefix, hqText: hq?.text)
        if resolved.text.allSatisfy(\.isWhitespace) {
            // An empty message is never sent: the box would show a blank turn. Only a draft gets here (a dictation
            // commits nothing without words).
            do {
                try store.returnUnheardToDraft(id)
                onEvent(
                    .failed(
                        messageId: id,
                        reason: "not a word was heard in it (live or by HQ), so nothing was sent; it is "
                            + "kept as a draft: `boxvoice outbox discard \(id)` drops it"))
            } catch {
                onEvent(.failed(messageId: id, reason: "not a word was heard in it, so nothing was sent (\(error))"))
            }
            withExtendedLifetime(lease) {}
            return
        }
        let origin: SpeechFraming.Origin =
            resolved.source == .hq ? .hq(service: hq?.service, diarized: hq?.diarized ?? false) : .live
        let body = Self.frame(resolved.text, origin: origin, id: id, at: message.commandAt ?? Date())
        do {
            try store.frame(id, body: body, text: resolved.text, hqOwed: owed)
            onEvent(.queued(messageId: id, message: body, text: resolved.text))
        } catch {
            // The row stays `awaitingHQ` with its live text: the next run (or the daemon) finishes it.
            onEvent(
                .failed(
                    messageId: id,
                    reason:
                        "could not store its final text (\(error)); it stays committed and is finished by the next run")
            )
        }
        withExtendedLifetime(lease) {}
    }

    /// HQ's text of a whole message, with who made it.
    struct HQText {
        var text: String
        var service: String?
        var diarized: Bool
    }

    /// What a message's uploads came to.
    enum HQOutcome {
        /// Every segment has its HQ text.
        case text(HQText)
        /// HQ is permanently unavailable and an earlier message already said so: the live text, without a word.
        case reported
        /// No HQ text: why, and the box's failure when it gave one.
        case failed(reason: String, failure: BoxFailure?)
    }

    /// A failure that leaves a message's HQ owed: the box could not be reached, or it refused the device (a new
    /// pairing's token is let in). Anything else (HQ broken on the box, a recording it cannot read) would fail again.
    static func keepsHQOwed(_ failure: BoxFailure) -> Bool {
        switch failure {
        case .unreachable, .unauthorized: true
        default: false
        }
    }

    /// An uploader already given every segment of the message's kept recording, waited for from before its first
    /// upload starts: a user who stops waiting as soon as the upload is shown (`sendLiveTextNow`) is heard.
    private func uploaderOfKeptRecording(_ message: DictatedMessage) -> HQUploader {
        let uploader = self.uploader(for: message.id, session: message.session)
        awaited.withLock { $0 = uploader }
        for (index, path) in store.segmentFiles(of: message).enumerated() {
            guard let frames = try? SoundFile.open(path: path).frames else { continue }
            uploader.submit(
                ClosedSegment(
                    index: index + 1, path: path, startFrame: 0, frames: frames, sampleRate: AudioRate.hertz,
                    levels: AudioLevels()))
        }
        return uploader
    }

    /// Waits for the uploads and says what they came to; a permanent HQ failure is remembered (later messages skip
    /// HQ) and reported by the first message that meets it.
    private func outcome(of uploader: HQUploader) -> HQOutcome {
        awaited.withLock { $0 = uploader }
        let (results, stoppedBy) = uploader.finish()
        awaited.withLock { $0 = nil }
        if uploader.wasAbandoned { return .failed(reason: Self.notWaitedFor, failure: nil) }
        let reported: BoxFailure? = unavailable.withLock { current in
            if case .permanentHQ? = stoppedBy, current == nil {
                current = stoppedBy
                return nil  // this message reports it; later ones skip HQ silently
            }
            return current
        }
        if reported != nil { return .reported }
        if stoppedBy == nil, !results.isEmpty, results.allSatisfy({ $0.transcription != nil }) {
            let texts = results.compactMap {
                $0.transcription?.text.trimmingCharacters(in: .whitespacesAndNewlines)
            }.filter { !$0.isEmpty }
            return .text(
                HQText(
                    text: texts.joined(separator: " "), service: results.first?.transcription?.service,
                    diarized: results.contains { $0.transcription?.diarized == true }))
        }
        let failure = stoppedBy ?? results.lazy.compactMap(\.failure).first
        return .failed(
            reason: failure.map(String.init(describing:))
                ?? (results.isEmpty ? "no audio to transcribe" : "no HQ text"),
            failure: failure)
    }

    /// Redoes the HQ a pending message is owed (`DictatedMessage.hqOwed`), from its kept recording, just before it
    /// is sent: its HQ text is framed in place of the live text. HQ that fails for another reason is given up and
    /// the message goes out as framed. Returns the failure that keeps HQ owed (the box is unreachable, or refuses
    /// the device), which its send would meet as well.
    /// - Parameter lease: the message's recording lease, held by the caller while the recording is read (nil: it has
    ///   no folder left).
    public func redoOwedHQ(_ id: MessageID, holding lease: RecordingLease?) -> BoxFailure? {
        guard let message = try? store.message(id), message.state == .pending, message.hqOwed else { return nil }
        var hq: HQText?
        if message.hasAudio, !hqIsUnavailable {
            switch outcome(of: uploaderOfKeptRecording(message)) {
            case .text(let text): hq = text
            case .reported: break
            case .failed(let reason, let failure):
                if let failure, Self.keepsHQOwed(failure) { return failure }
                onEvent(.fallback(reason: reason, failure: failure))
            }
        }
        let resolved = VoiceTextResolver(detector: detector).resolve(
            heard: message.heardText, command: message.command, typedPrefix: message.typedPrefix, hqText: hq?.text)
        do {
            guard let hq, resolved.source == .hq, !resolved.text.allSatisfy(\.isWhitespace) else {
                try store.settleOwedHQ(id, body: nil, text: nil)
                compress(id, holding: lease)
                return nil
            }
            let body = Self.frame(
                resolved.text, origin: .hq(service: hq.service, diarized: hq.diarized), id: id,
                at: message.commandAt ?? Date())
            try store.settleOwedHQ(id, body: body, text: resolved.text)
            onEvent(.hqRedone(messageId: id, message: body, text: resolved.text))
            compress(id, holding: lease)
        } catch {
            // Still owed: tried again at its next send, which meets the same store.
            onEvent(.failed(messageId: id, reason: "could not store its HQ text (\(error)); it is sent as it was"))
        }
        withExtendedLifetime(lease) {}
        return nil
    }

    /// The `<speech>` frame, stamped with the time of the command (not of the POST).
    public static func frame(_ text: String, origin: SpeechFraming.Origin, id: MessageID, at date: Date) -> String {
        SpeechFraming.frame(text, origin: origin, messageId: id, localTime: SpeechFraming.localTime(of: date))
    }
}
