import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceStore
import Foundation

/// One dictation: microphone (or a file played as one) → segmented recording with each segment uploaded for HQ as
/// it closes → live transcript and spoken commands → the dictation table → resolver and `<speech>` framing →
/// durable outbox → delivery → retention. Runs on the caller's thread; capture has its own.
///
/// Not yet: the audio of a message is cut where the command is handled, not exactly where its utterance ended.
public final class DictationSession {
    public struct Configuration: Sendable {
        public var box: String
        public var client: BoxClient
        /// The session dictated into; nil means "new".
        public var session: String?
        /// `recordings/<box>/`: each message's segments go to a folder named by its id.
        public var recordingsDirectory: String
        public var spotterPhrases: String?
        public var once = false
        public var endOfInput: DictationStateMachine.EndOfInputPolicy = .send
        public var typedPrefix = ""
        public var segmentPolicy = SegmentPolicy()

        public init(box: String, client: BoxClient, session: String?, recordingsDirectory: String, spotterPhrases: String?) {
            self.box = box
            self.client = client
            self.session = session
            self.recordingsDirectory = recordingsDirectory
            self.spotterPhrases = spotterPhrases
        }
    }

    public enum Event: Sendable, Equatable {
        case partial(String)
        case final(String)
        case keyword(action: KeywordAction, phrase: String, at: Double)
        case segment(index: Int, seconds: Double)
        /// HQ failed for this message: it goes out with its live text.
        case fallback(reason: String)
        /// Committed to the outbox (before any POST).
        case queued(messageId: String, message: String)
        case delivered(messageId: String)
        case postponed(messageId: String, reason: String)
        case failed(messageId: String, reason: String)
        case draft(messageId: String)
        case discarded
    }

    private struct Message {
        let id: String
        let folder: String
        let writer: SegmentWriter
        let uploader: HQUploader
        let startedAt: Date
        var live: [String] = []
        var keyword: KeywordMatch?
        var segments = 0
        var liveText: String { live.joined(separator: " ") }
    }

    private let configuration: Configuration
    private let detector: KeywordDetector
    private let outbox: Outbox
    private let retention: Retention
    private let onEvent: (Event) -> Void
    private var machine: DictationStateMachine
    /// A permanent HQ failure is reported once per run; later messages skip HQ.
    private var hqUnavailable: BoxFailure?

    public init(configuration: Configuration, detector: KeywordDetector, outbox: Outbox, retention: Retention,
                onEvent: @escaping (Event) -> Void = { _ in }) {
        self.configuration = configuration
        self.detector = detector
        self.outbox = outbox
        self.retention = retention
        self.onEvent = onEvent
        machine = DictationStateMachine(once: configuration.once, endOfInput: configuration.endOfInput)
    }

    /// Dictates until the state machine stops (or `stop` is requested, which ends the input).
    public func run(pcm: CapturePCM, stop: StopSignal) throws {
        var options = LiveTranscriber.Options(spotterPhrases: configuration.spotterPhrases)
        let detector = self.detector
        options.sameCommand = { recognized, phrase in
            guard let spotted = detector.detect(phrase)?.action else { return true }
            return detector.detect(recognized)?.action == spotted
        }
        let transcriber = try LiveTranscriber(options: options)
        let capture = AudioCapture(pcm: pcm)
        var message = try begin()
        capture.start()
        defer { capture.stop() }
        reading: while !machine.isStopped {
            let chunks = capture.queue.takeAll(minFrames: 4_800, timeout: 0.1)
            if chunks.isEmpty, capture.queue.isClosedAndEmpty || stop.isRequested { break }
            for chunk in chunks {
                for segment in try message.writer.append(chunk.samples) { submit(segment, to: &message) }
                for update in try transcriber.feed(chunk.samples) {
                    try handle(update, transcriber: transcriber, message: &message)
                    if machine.isStopped { break reading }
                }
            }
        }
        if !machine.isStopped {
            for update in try transcriber.finish() {
                try handle(update, transcriber: transcriber, message: &message)
                if machine.isStopped { return }
            }
            try apply(machine.handle(.endOfInput, hasContent: hasContent(message)), to: &message)
        }
    }

    /// Speech was heard: audio alone (silence, noise) is nothing to send.
    private func hasContent(_ message: Message) -> Bool {
        !message.liveText.trimmingCharacters(in: .whitespaces).isEmpty
    }

    private func handle(_ update: LiveUpdate, transcriber: LiveTranscriber, message: inout Message) throws {
        switch update {
        case .partial(let text):
            onEvent(.partial(text))
        case .utterance(let utterance):
            guard !utterance.text.isEmpty else { return }
            message.live.append(utterance.text)
            onEvent(.final(utterance.text))
            guard let found = detector.detect(message.liveText) else { return }
            onEvent(.keyword(action: found.action, phrase: found.matchedPhrase, at: utterance.end))
            if found.action.isSend { message.keyword = found }
            try apply(machine.handle(.keyword(found.action), hasContent: hasContent(message)), to: &message)
        }
    }

    private func apply(_ effects: [DictationEffect], to message: inout Message) throws {
        for effect in effects {
            switch effect {
            case .deliver(let spoken):
                try deliver(message, spoken: spoken)
            case .discard:
                let hadContent = hasContent(message)
                _ = try? message.writer.finish()
                _ = message.uploader.finish()
                try? FileManager.default.removeItem(atPath: message.folder)
                if hadContent { onEvent(.discarded) }
            case .keepDraft:
                if let last = try message.writer.finish() { submit(last, to: &message) }
                _ = message.uploader.finish()
                let body = frame(message.keyword?.processedTranscript ?? message.liveText, origin: .live, id: message.id)
                try outbox.add(messageId: message.id, box: configuration.box, session: configuration.session, body: body, state: .draft)
                onEvent(.draft(messageId: message.id))
            case .beginNextMessage:
                message = try begin()
            case .stop:
                break
            }
        }
    }

    private func begin() throws -> Message {
        let id = SpeechFraming.newMessageId()
        let folder = (configuration.recordingsDirectory as NSString).appendingPathComponent(id)
        let uploader = HQUploader(client: configuration.client, session: configuration.session)
        return Message(id: id, folder: folder, writer: SegmentWriter(directory: folder, policy: configuration.segmentPolicy),
                       uploader: uploader, startedAt: Date())
    }

    private func submit(_ segment: ClosedSegment, to message: inout Message) {
        message.segments += 1
        onEvent(.segment(index: segment.index, seconds: segment.duration))
        if hqUnavailable == nil { message.uploader.submit(segment) }
    }

    private func deliver(_ message: Message, spoken: KeywordAction?) throws {
        var message = message
        if let last = try message.writer.finish() { submit(last, to: &message) }
        let (results, stoppedBy) = message.uploader.finish()
        var hq: (text: String, service: String?, diarized: Bool)?
        if hqUnavailable == nil, stoppedBy == nil, !results.isEmpty, results.allSatisfy({ $0.transcription != nil }) {
            let texts = results.compactMap { $0.transcription?.text.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
            hq = (texts.joined(separator: " "), results.first?.transcription?.service, results.contains { $0.transcription?.diarized == true })
        } else {
            let reason = (stoppedBy ?? hqUnavailable).map(String.init(describing:)) ?? "no HQ text"
            if case .permanentHQ? = stoppedBy, hqUnavailable == nil { hqUnavailable = stoppedBy }
            onEvent(.fallback(reason: reason))
        }
        let send = VoiceSend(typedPrefix: configuration.typedPrefix, liveTranscript: message.liveText,
                             keyword: spoken == nil ? nil : message.keyword)
        let resolved = VoiceTextResolver(detector: detector).resolve(send, hqText: hq?.text)
        let origin: SpeechFraming.Origin = resolved.source == .hq ? .hq(service: hq?.service, diarized: hq?.diarized ?? false) : .live
        let body = frame(resolved.text, origin: origin, id: message.id)
        try outbox.add(messageId: message.id, box: configuration.box, session: configuration.session, body: body)
        onEvent(.queued(messageId: message.id, message: body))
        for report in try OutboxDelivery(outbox: outbox, box: configuration.box, client: configuration.client).deliverDue() {
            switch report {
            case .delivered(let id, _): onEvent(.delivered(messageId: id))
            case .postponed(let id, let reason, _): onEvent(.postponed(messageId: id, reason: reason))
            case .failed(let id, let reason): onEvent(.failed(messageId: id, reason: reason))
            }
        }
        // A retention failure never fails a send.
        _ = try? retention.retain(RetainedRecording(box: configuration.box, messageId: message.id, recordedAt: message.startedAt,
                                                    text: resolved.text, session: configuration.session, directory: message.folder))
    }

    private func frame(_ text: String, origin: SpeechFraming.Origin, id: String) -> String {
        SpeechFraming.frame(text, origin: origin, messageId: id, localTime: SpeechFraming.localTime(of: Date()))
    }
}
