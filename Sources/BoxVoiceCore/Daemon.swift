import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceKeywords
import BoxVoiceStore
import Foundation
import Synchronization

/// `boxvoice daemon`: stays connected to every paired box — answers its retranscription requests from the store,
/// finishes and delivers what killed runs left, and runs dictation turns for the control socket's hotkeys.
public final class Daemon: Sendable {
    /// A paired box the daemon serves.
    public struct Box: Sendable {
        public var name: String
        public var client: BoxClient
        public var baseURL: String
        public var token: String
        public var verifyTLS: Bool

        public init(name: String, client: BoxClient, baseURL: String, token: String, verifyTLS: Bool) {
            self.name = name
            self.client = client
            self.baseURL = baseURL
            self.token = token
            self.verifyTLS = verifyTLS
        }
    }

    public struct Configuration: Sendable {
        public var boxes: [Box]
        /// The box hotkey turns dictate to.
        public var dictationBox: Box
        public var store: MessageStore
        public var detector: KeywordDetector
        public var spotterPhrases: String?
        public var dictionaryCache: String?
        public var controlSocket: String
        /// A private folder for answers being joined.
        public var workDirectory: String
        /// Opens the microphone for a turn.
        public var openDevice: @Sendable () throws -> CapturePCM
        public var deviceName: String
        /// Logs the normal 404 of a request another client answered first.
        public var debug = false
        /// How often what killed runs left is looked for, and pending messages are tried.
        public var deliveryInterval: TimeInterval = 10

        public init(boxes: [Box], dictationBox: Box, store: MessageStore, detector: KeywordDetector, spotterPhrases: String?,
                    dictionaryCache: String?, controlSocket: String, workDirectory: String, deviceName: String,
                    openDevice: @escaping @Sendable () throws -> CapturePCM) {
            self.boxes = boxes
            self.dictationBox = dictationBox
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

    private let configuration: Configuration
    private let log: @Sendable (String) -> Void
    private let control = Mutex<ControlServer?>(nil)

    public init(configuration: Configuration, log: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.log = log
    }

    /// Serves until `stop` is requested. Throws only when it cannot start (another daemon holds the socket).
    public func run(until stop: StopSignal) throws {
        let configuration = self.configuration
        let log = self.log
        let target = configuration.dictationBox
        let turns = DictationTurns(begin: { [self] in
            let pcm = try configuration.openDevice()
            // Each message goes to the box's default session, asked when it is sent: the turn records at once, and a
            // box that is down holds the turn's messages rather than opening a new conversation (contract §5).
            var dictation = DictationSession.Configuration(box: target.name, client: target.client, session: nil,
                                                           spotterPhrases: configuration.spotterPhrases)
            dictation.sessionFromDefault = true
            dictation.endOfInput = .send
            dictation.dictionaryCache = configuration.dictionaryCache
            dictation.workDirectory = configuration.workDirectory
            let turn = DictationSession(configuration: dictation, detector: configuration.detector, store: configuration.store) { event in
                guard let object = DictationEvents.jsonObject(event) else { return }
                self.broadcast(object)
                if case .partial = event {} else { log("\(target.name): dictation: \(jsonLine(object))") }
            }
            log("\(target.name): dictation turn started on '\(configuration.deviceName)'")
            return (turn, pcm)
        }, onEnd: { [self] error in
            log("\(target.name): dictation turn ended" + (error.map { ": \($0)" } ?? ""))
            broadcast(["event": "idle"])
        })
        // The control socket first: a second daemon must stop here, before it subscribes to any box.
        let server = try ControlServer(path: configuration.controlSocket) { request in
            guard request.command == .status else { return turns.handle(request.command) }
            var reply = turns.status()
            reply.message += "; serving \(configuration.boxes.count) box(es), dictating to '\(target.name)'"
            return reply
        }
        control.withLock { $0 = server }
        let streams = configuration.boxes.map(stream(for:))
        streams.forEach { $0.start() }
        log("serving \(streams.count) box(es); control socket \(configuration.controlSocket); Ctrl-C to stop")
        var nextDelivery = Date()
        while !stop.isRequested {
            if Date() >= nextDelivery {
                deliverOwed()
                nextDelivery = Date().addingTimeInterval(configuration.deliveryInterval)
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        turns.finish()
        server.stop()
        control.withLock { $0 = nil }
        streams.forEach { $0.stop() }
        log("stopped")
    }

    private func broadcast(_ object: [String: Any]) {
        control.withLock { $0 }?.broadcast(object)
    }

    /// What killed runs left (a message awaiting HQ, a recording cut off) is put right, and due messages are sent.
    private func deliverOwed() {
        do {
            let report = try configuration.store.recover()
            if !report.isEmpty { log("recovered: \(report.summary)") }
        } catch {
            log("could not check for interrupted recordings: \(error)")
        }
        for box in configuration.boxes {
            let log = self.log
            let courier = BoxCourier(store: configuration.store, box: box.name, client: box.client, detector: configuration.detector) { event in
                if case .queued(let id, _) = event { log("\(box.name): finished \(id), left awaiting HQ by an interrupted run") }
            }
            for report in courier.run(everything: false) { log("\(box.name): outbox: \(report.summary)") }
        }
    }

    private func stream(for box: Box) -> EventStream {
        let responder = LastAudioResponder(box: box.name, client: box.client, store: configuration.store, workDirectory: configuration.workDirectory)
        let log = self.log
        let debug = configuration.debug
        let name = box.name
        return EventStream(baseURL: box.baseURL, token: box.token, verifyTLS: box.verifyTLS) { update in
            switch update {
            case .subscribed:
                log("\(name): connected")
            case .disconnected(let reason, let retryIn):
                log("\(name): disconnected (\(reason)); retrying in \(Int(retryIn)) s")
            case .unauthorized:
                log("\(name): needs re-pair — the box refused this device (401); no more attempts")
            case .lastAudioRequest(let request):
                // Answer off the event thread: a large upload must not hold back keep-alive replies.
                BlockingWork.start("boxvoice.last-audio") { Self.answer(request, with: responder, box: name, debug: debug, log: log) }
            case .event, .answeredPing:
                break
            }
        }
    }

    private static func answer(_ request: LastAudioRequest, with responder: LastAudioResponder, box name: String, debug: Bool,
                               log: @Sendable (String) -> Void) {
        do {
            switch try responder.answer(request) {
            case .audio(.ignored, _, _), .none(.ignored):
                log("\(name): ERROR the box ignored our answer to \(request.requestId): echoed messageId \(request.messageId) did not match")
            case .audio(.unknownRequest, _, _), .none(.unknownRequest):
                // Normal: another client answered first, or the box stopped waiting.
                if debug { log("\(name): debug: the box no longer waited for \(request.requestId) (404)") }
            case .audio(let outcome, let format, let bytes):
                var cut = ""
                if case .pcm16kTail = format { cut = "WARNING: the recording is longer than 45 MB even at 16 kHz; sent its end: " }
                log("\(name): \(cut)answered \(request.requestId) with the recording of \(request.messageId) (\(format), \(bytes) bytes): \(outcome)")
            case .none(let outcome):
                log("\(name): answered \(request.requestId) with none (\(request.messageId) is not kept): \(outcome)")
            }
        } catch {
            log("\(name): could not answer \(request.requestId): \(error)")
        }
    }
}
