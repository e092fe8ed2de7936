import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceStore
import Foundation

/// One dictation: microphone (or a file played as one) → segmented recording with each segment uploaded for HQ as
/// it closes → live transcript and spoken commands (or keys) → the dictation table → resolver and `<speech>`
/// framing → durable outbox → delivery → retention.
///
/// Three threads share the work so that none waits on another's slow part: capture has its own (it never touches
/// disk or network), this loop writes segments and runs the recognizer, and a message that is sent is finished —
/// waiting for its last HQ text, committing, posting — on a serial queue, so the next message is already being
/// heard while the box answers. Events arrive from any of them.
public final class DictationSession: @unchecked Sendable {
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
        /// Upload each segment the moment it closes (the default). Off, every segment waits for the send — only
        /// there to measure what pipelining gains.
        public var uploadWhileRecording = true
        /// Retry waits for one segment's HQ upload after an uncertain failure.
        public var hqRetryDelays: [Double] = [1, 2]
        /// How much audio a microphone may run ahead of this loop (the recognizer catching up, a slow disk).
        public var captureQueueSeconds: Double = 30
        /// Where the live recognizer keeps its trimmed dictionary between runs (`LiveTranscriber.Options`).
        public var dictionaryCache: String?

        public init(box: String, client: BoxClient, session: String?, recordingsDirectory: String, spotterPhrases: String?) {
            self.box = box
            self.client = client
            self.session = session
            self.recordingsDirectory = recordingsDirectory
            self.spotterPhrases = spotterPhrases
        }
    }

    public enum DictationError: Error, CustomStringConvertible {
        case captureFailed(Error)

        public var description: String {
            switch self {
            case .captureFailed(let error):
                "the audio input failed: \(error). What was said so far is kept as a draft (`boxvoice outbox`)."
            }
        }
    }

    public enum HQState: Sendable, Equatable {
        case uploading
        case done
        case retrying(attempt: Int)
        case failed(String)
    }

    public enum Event: Sendable, Equatable {
        /// About ten times a second of audio: where the recording is and how loud it is, for a level meter.
        case level(elapsed: Double, dBFS: Double)
        case partial(String)
        case final(String)
        case keyword(action: KeywordAction, phrase: String, at: Double)
        case segment(index: Int, seconds: Double)
        /// HQ progress of one segment of the message being dictated (or finished).
        case hq(messageId: String, index: Int, state: HQState)
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
        /// Where this message's audio starts in the stream (48 kHz frames).
        let startFrame: Int64
        /// The live pass's utterances, joined by spaces.
        var liveText = ""
        var keyword: KeywordMatch?
        /// Where the utterance that ended this message ended, in stream frames (nil: at the last sample).
        var endFrame: Int64?
        /// Segments not uploaded yet (only when uploads wait for the send).
        var held: [ClosedSegment] = []
    }

    private let configuration: Configuration
    private let detector: KeywordDetector
    private let outbox: Outbox
    private let retention: Retention
    private let onEvent: @Sendable (Event) -> Void
    private var machine: DictationStateMachine
    private let finishing = DispatchQueue(label: "boxvoice.dictation.finish")
    private let lock = NSLock()
    /// A permanent HQ failure is reported once per run; later messages skip HQ.
    private var hqUnavailable: BoxFailure?
    private var delivery: DeliveryWorker?
    /// Stream frames handed to message writers so far.
    private var framesFed: Int64 = 0
    /// Audio after the end of the last message, for the next one.
    private var carried: [Float] = []

    public init(configuration: Configuration, detector: KeywordDetector, outbox: Outbox, retention: Retention,
                onEvent: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.configuration = configuration
        self.detector = detector
        self.outbox = outbox
        self.retention = retention
        self.onEvent = onEvent
        machine = DictationStateMachine(once: configuration.once, endOfInput: configuration.endOfInput)
    }

    /// Dictates until the state machine stops (or `stop` is requested, which ends the input). Messages left pending by
    /// earlier runs are delivered first, and any that come due while it runs go out too. Returns once every message
    /// it sent has been committed and tried.
    public func run(pcm: CapturePCM, stop: StopSignal, control: DictationControl = DictationControl()) throws {
        // Capture starts before the recognizer loads (about a second): what is said meanwhile waits in the queue.
        // A source without a clock (a file) waits for this loop when the queue is full: a deep queue would only hold
        // memory (30 s of audio is 5.8 MB).
        let capture = AudioCapture(pcm: pcm, queueSeconds: pcm.hasDeviceClock ? configuration.captureQueueSeconds : 1)
        capture.start()
        defer { capture.stop() }
        var options = LiveTranscriber.Options(spotterPhrases: configuration.spotterPhrases)
        options.dictionaryCache = configuration.dictionaryCache
        let detector = self.detector
        options.sameCommand = { recognized, phrase in
            guard let spotted = detector.detect(phrase)?.action else { return true }
            return detector.detect(recognized)?.action == spotted
        }
        let transcriber = try LiveTranscriber(options: options)
        let onEvent = self.onEvent
        let worker = DeliveryWorker(delivery: OutboxDelivery(outbox: outbox, box: configuration.box, client: configuration.client)) {
            onEvent(Self.event(for: $0))
        }
        delivery = worker
        worker.deliverNow()
        defer {
            finishing.sync {}
            worker.finish()
        }
        var message = try begin()
        var sinceLevel = 0
        var captureStopped = false
        reading: while !machine.isStopped {
            if stop.isRequested, !captureStopped {
                // Stop taking audio, but hear out what was captured up to now: the last words are often in it.
                capture.stop()
                captureStopped = true
            }
            for trigger in control.take() {
                try press(trigger, transcriber: transcriber, message: &message)
                if machine.isStopped { break reading }
            }
            let chunks = capture.queue.takeAll(minFrames: 4_800, limitFrames: 9_600, timeout: 0.1)
            if chunks.isEmpty, capture.queue.isClosedAndEmpty { break }
            for chunk in chunks {
                // A key acts before the audio that came after it is heard.
                for trigger in control.take() {
                    try press(trigger, transcriber: transcriber, message: &message)
                    if machine.isStopped { break reading }
                }
                framesFed += Int64(chunk.samples.count)
                for segment in try message.writer.append(chunk.samples) { submit(segment, to: &message) }
                sinceLevel += chunk.samples.count
                if sinceLevel >= 4_800 {
                    sinceLevel = 0
                    onEvent(.level(elapsed: Double(framesFed) / 48_000, dBFS: Self.loudness(chunk.samples)))
                }
                for update in try transcriber.feed(chunk.samples) {
                    try handle(update, message: &message)
                    if machine.isStopped { break reading }
                }
            }
        }
        if let error = capture.error, !(error is CaptureEnded), !machine.isStopped {
            // The microphone went away mid-message: keep what was said as a draft, then say why.
            try apply(machine.handle(.keyword(.micOff), hasContent: hasContent(message)), to: &message)
            throw DictationError.captureFailed(error)
        }
        if !machine.isStopped {
            for update in try transcriber.finish() {
                try handle(update, message: &message)
                if machine.isStopped { return }
            }
            try apply(machine.handle(.endOfInput, hasContent: hasContent(message)), to: &message)
        }
    }

    /// Speech was heard: audio alone (silence, noise) is nothing to send.
    private func hasContent(_ message: Message) -> Bool {
        message.liveText.contains { !$0.isWhitespace }
    }

    private func press(_ trigger: DictationTrigger, transcriber: LiveTranscriber, message: inout Message) throws {
        if trigger == .enter {
            // What was said just before the key counts: close the utterance without waiting for silence.
            let number = machine.messageNumber
            for update in try transcriber.endUtterance() {
                try handle(update, message: &message)
                if machine.isStopped { return }
            }
            // The flushed words already held a spoken send: Enter has nothing left to send.
            if machine.messageNumber != number { return }
        }
        try apply(machine.handle(trigger, hasContent: hasContent(message)), to: &message)
    }

    private func handle(_ update: LiveUpdate, message: inout Message) throws {
        switch update {
        case .partial(let text):
            onEvent(.partial(text))
        case .utterance(let utterance):
            guard !utterance.text.isEmpty else { return }
            // Only the new words can complete a command (the message ends at each one), so this costs the utterance,
            // not the hour of dictation before it.
            let found = detector.detect(appending: utterance.text, to: message.liveText)
            message.liveText += message.liveText.isEmpty ? utterance.text : " " + utterance.text
            onEvent(.final(utterance.text))
            guard let found else { return }
            onEvent(.keyword(action: found.action, phrase: found.matchedPhrase, at: utterance.end))
            if found.action.isSend { message.keyword = found }
            message.endFrame = Int64((utterance.end * 48_000).rounded())
            try apply(machine.handle(.keyword(found.action), hasContent: hasContent(message)), to: &message)
        }
    }

    private func apply(_ effects: [DictationEffect], to message: inout Message) throws {
        for effect in effects {
            switch effect {
            case .deliver(let spoken):
                try endAudio(of: &message)
                send(message, spoken: spoken)
            case .discard:
                let hadContent = hasContent(message)
                _ = try? endAudio(of: &message, upload: false)
                try? FileManager.default.removeItem(atPath: message.folder)
                if hadContent { onEvent(.discarded) }
            case .keepDraft:
                try endAudio(of: &message)
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

    /// Closes the message's recording where its last utterance ended; what came after is kept for the next message.
    /// - Parameter upload: false for audio about to be dropped: nothing of it goes to HQ.
    private func endAudio(of message: inout Message, upload: Bool = true) throws {
        let end = message.endFrame.map { $0 - message.startFrame } ?? .max
        let (last, tail) = try message.writer.finish(atFrame: end)
        if let last, upload { submit(last, to: &message) }
        carried = tail
    }

    private func begin() throws -> Message {
        let id = SpeechFraming.newMessageId()
        let folder = (configuration.recordingsDirectory as NSString).appendingPathComponent(id)
        let onEvent = self.onEvent
        let uploader = HQUploader(client: configuration.client, session: configuration.session, retryDelays: configuration.hqRetryDelays) { event in
            switch event {
            case .started(let index, _): onEvent(.hq(messageId: id, index: index + 1, state: .uploading))
            case .uploaded(let result):
                onEvent(.hq(messageId: id, index: result.index + 1, state: result.transcription != nil ? .done : .failed(result.failure.map(String.init(describing:)) ?? "no text")))
            case .retrying(let index, let attempt, _): onEvent(.hq(messageId: id, index: index + 1, state: .retrying(attempt: attempt)))
            case .stopped: break
            }
        }
        let tail = carried
        carried = []
        var message = Message(id: id, folder: folder, writer: SegmentWriter(directory: folder, policy: configuration.segmentPolicy),
                              uploader: uploader, startedAt: Date(), startFrame: framesFed - Int64(tail.count))
        if !tail.isEmpty {
            for segment in try message.writer.append(tail) { submit(segment, to: &message) }
        }
        return message
    }

    private func submit(_ segment: ClosedSegment, to message: inout Message) {
        onEvent(.segment(index: segment.index, seconds: segment.duration))
        guard lock.withLock({ hqUnavailable == nil }) else { return }
        if configuration.uploadWhileRecording { message.uploader.submit(segment) } else { message.held.append(segment) }
    }

    /// Finishes a sent message off this thread: its last HQ text, resolution, framing, the outbox commit, the POST.
    private func send(_ message: Message, spoken: KeywordAction?) {
        message.held.forEach(message.uploader.submit)
        let keyword = spoken == nil ? nil : message.keyword
        let message = (id: message.id, folder: message.folder, uploader: message.uploader, startedAt: message.startedAt,
                       liveText: message.liveText)
        finishing.async { [self] in
            let (results, stoppedBy) = message.uploader.finish()
            let unavailable: BoxFailure? = lock.withLock {
                if case .permanentHQ? = stoppedBy, hqUnavailable == nil {
                    hqUnavailable = stoppedBy
                    return nil  // this message reports it; later ones skip HQ silently
                }
                return hqUnavailable
            }
            var hq: (text: String, service: String?, diarized: Bool)?
            if unavailable == nil, stoppedBy == nil, !results.isEmpty, results.allSatisfy({ $0.transcription != nil }) {
                let texts = results.compactMap { $0.transcription?.text.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
                hq = (texts.joined(separator: " "), results.first?.transcription?.service, results.contains { $0.transcription?.diarized == true })
            } else if unavailable == nil {
                onEvent(.fallback(reason: stoppedBy.map(String.init(describing:)) ?? "no HQ text"))
            }
            let send = VoiceSend(typedPrefix: configuration.typedPrefix, liveTranscript: message.liveText, keyword: keyword)
            let resolved = VoiceTextResolver(detector: detector).resolve(send, hqText: hq?.text)
            let origin: SpeechFraming.Origin = resolved.source == .hq ? .hq(service: hq?.service, diarized: hq?.diarized ?? false) : .live
            let body = frame(resolved.text, origin: origin, id: message.id)
            do {
                try outbox.add(messageId: message.id, box: configuration.box, session: configuration.session, body: body)
            } catch {
                onEvent(.failed(messageId: message.id, reason: "could not commit it to the outbox (\(error)); its audio is kept in \(message.folder)"))
                return
            }
            onEvent(.queued(messageId: message.id, message: body))
            delivery?.deliverNow()
            // A retention failure never fails a send.
            _ = try? retention.retain(RetainedRecording(box: configuration.box, messageId: message.id, recordedAt: message.startedAt,
                                                        text: resolved.text, session: configuration.session, directory: message.folder))
        }
    }

    private func frame(_ text: String, origin: SpeechFraming.Origin, id: String) -> String {
        SpeechFraming.frame(text, origin: origin, messageId: id, localTime: SpeechFraming.localTime(of: Date()))
    }

    private static func event(for report: OutboxDelivery.Report) -> Event {
        switch report {
        case .delivered(let id, _): .delivered(messageId: id)
        case .postponed(let id, let reason, _): .postponed(messageId: id, reason: reason)
        case .failed(let id, let reason): .failed(messageId: id, reason: reason)
        }
    }

    /// RMS level in dB relative to full scale (-120 for digital silence).
    static func loudness(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return -120 }
        var sum: Double = 0
        for sample in samples { sum += Double(sample) * Double(sample) }
        let mean = sum / Double(samples.count)
        return mean > 1e-12 ? max(-120, 10 * log10(mean)) : -120
    }
}
