import BoxVoicePresentation
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceStore
import Foundation
import Synchronization

/// `boxvoice daemon`: stays connected to every paired box — answers its retranscription requests from the store,
/// finishes and delivers what killed runs left, and runs dictation turns for the control socket's hotkeys.
public final class Daemon: Sendable {
    private struct Served {
        var pairing = Pairing(boxes: [], dictating: nil)
        var streams: [String: (box: Box, stream: EventStream)] = [:]
    }

    private let configuration: Configuration
    private let log: @Sendable (String) -> Void
    private let control = Mutex<ControlServer?>(nil)
    private let served = Mutex(Served())
    /// What each message of the turn said, for its notification.
    private let turnTexts = Mutex<[MessageID: String]>([:])
    /// The box of the turn whose end is not told yet.
    private let turnBox = Mutex<String?>(nil)
    /// The microphone held open between turns when pre-roll is on.
    private let held = Mutex<PreRollMicrophone?>(nil)
    /// Said once until it works again: a microphone that cannot stay open is not logged every second.
    private let holdFailureSaid = Atomic<Bool>(false)
    /// Retranscription answers for every box: a burst of requests costs two threads and at most two answer files at
    /// once; the box waits at most 30 s, so a deeper queue would only answer requests nobody waits for any more.
    private let answers = BoundedWork("boxvoice.last-audio", workers: 2, queueLimit: 16)

    public init(configuration: Configuration, log: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.log = log
    }

    /// The box hotkey turns dictate to now.
    private var dictationTarget: Box? {
        served.withLock { served in
            served.pairing.dictating.flatMap { name in served.pairing.boxes.first { $0.name == name } }
        }
    }

    /// Serves until `stop` is requested. Throws only when it cannot start (another daemon holds the socket).
    public func run(until stop: StopSignal) throws {
        let configuration = self.configuration
        let log = self.log
        let turns = DictationTurns(
            begin: { [self] in try beginTurn() },
            onEnd: { [self] error in
                log("dictation turn ended" + (error.map { ": \($0)" } ?? ""))
                let untold = turnBox.withLock { box in
                    defer { box = nil }
                    return box
                }
                if let box = untold { configuration.feedback(.ended(box: box)) }
                broadcast(EventRecord(.idle))
            })
        // The control socket first: a second daemon must stop here, before it subscribes to any box.
        let server = try ControlServer(path: configuration.controlSocket) { [self] request in
            request.command == .status ? statusReply(turns) : turns.handle(request.command)
        }
        control.withLock { $0 = server }
        refreshPairing(initial: true)
        log("control socket \(configuration.controlSocket); Ctrl-C to stop")
        configuration.ready()
        var nextDelivery = Date()
        var nextPairingCheck = Date().addingTimeInterval(configuration.pairingCheckInterval)
        while !stop.isRequested {
            if Date() >= nextPairingCheck {
                refreshPairing(initial: false)
                holdMicrophone(configuration.preRoll() && !stop.isRequested, dictating: turns.isDictating)
                nextPairingCheck = Date().addingTimeInterval(configuration.pairingCheckInterval)
            }
            if Date() >= nextDelivery {
                deliverOwed()
                nextDelivery = Date().addingTimeInterval(configuration.deliveryInterval)
            }
            stop.wait(until: min(nextPairingCheck, nextDelivery))
        }
        turns.finish()
        holdMicrophone(false, dictating: false)
        server.stop()
        control.withLock { $0 = nil }
        served.withLock { $0.streams.values.forEach { $0.stream.stop() } }
        log("stopped")
    }

    /// Starts a hotkey turn: a dictation run to the box turns dictate to, on the held or a newly opened microphone.
    private func beginTurn() throws -> (DictationSession, CapturePCM) {
        let configuration = self.configuration
        let log = self.log
        // What was said stays out of the journal unless `--debug` asks for it.
        let debugText = configuration.debug
        guard let target = dictationTarget else {
            configuration.feedback(.couldNotStart(reason: NoBoxPaired().description))
            throw NoBoxPaired()
        }
        let pcm: CapturePCM
        let phrases: String?
        do {
            phrases = try configuration.spotterPhrases()
            pcm = try held.withLock { $0?.beginTurn() } ?? configuration.openDevice()
        } catch {
            configuration.feedback(.couldNotStart(reason: "\(error)"))
            throw error
        }
        // Each turn is a run: its first message goes to the box's default session, asked when it is sent (the
        // turn records at once; a box that is down holds the messages rather than opening a new conversation),
        // the rest follow it (contract §5).
        var dictation = DictationSession.Configuration(
            box: target.reference, client: target.client, session: nil,
            spotterPhrases: phrases)
        dictation.sessionFromDefault = true
        // The daemon's own event stream tells the store which session a turn's new conversation got.
        dictation.followsSessionEvents = false
        dictation.endOfInput = .send
        dictation.once = configuration.closeAfterSend()
        dictation.voiceAdaptation = configuration.voiceAdaptation()
        dictation.dictionaryCache = configuration.dictionaryCache
        dictation.frontEnd = configuration.frontEnd()
        dictation.whisper = configuration.whisper()
        dictation.workDirectory = configuration.workDirectory
        dictation.uploadCodec = UploadCodecPolicy(
            codec: target.uploadCodec, box: target.reference, store: configuration.store)
        let turn = DictationSession(
            configuration: dictation, detector: configuration.detector, store: configuration.store
        ) { event in
            if let told = TurnFeedbackEvent.from(event, box: target.name, texts: self.turnTexts) {
                // The turn's end is told once: when its microphone closes, or (a turn that failed before
                // it listened) when it is over.
                if case .ended = told { self.turnBox.withLock { $0 = nil } }
                configuration.feedback(told)
            }
            guard let record = EventRecord(event) else { return }
            self.broadcast(record)
            if case .partial = event {
            } else {
                log("\(target.name): dictation: \((debugText ? record : record.withoutWords).line)")
            }
        }
        log(
            "\(target.name): dictation turn started on '\(configuration.deviceName)' (commands: "
                + "\(phrases ?? "language model only"))"
        )
        turnBox.withLock { $0 = target.name }
        configuration.feedback(.started(box: target.name))
        return (turn, pcm)
    }

    /// `boxvoice status`: the turn, the boxes served and each one's health.
    private func statusReply(_ turns: DictationTurns) -> ControlReply {
        var reply = turns.status()
        let (boxes, target) = served.withLock { ($0.pairing.boxes, $0.pairing.dictating) }
        reply.message +=
            target.map { "; serving \(boxes.count) box(es), dictating to '\($0)'" }
            ?? "; no box is paired (waiting for `boxvoice pair`)"
        for box in boxes {
            let health: String
            switch (try? configuration.store.health(box: box.reference, pairedAt: box.pairedAt)) ?? .ok {
            case .ok: health = "ok"
            case .needsRePair: health = "needs re-pair (pair it again with a new link)"
            case .unreachable(let since):
                health =
                    "unreachable since \(ISO8601DateFormatter().string(from: since)) (messages wait in the outbox)"
            }
            reply.message += "\n  \(box.name): \(health)"
        }
        return reply
    }

    /// Opens or closes the held microphone as the pre-roll setting says (never in the middle of a turn).
    private func holdMicrophone(_ wanted: Bool, dictating: Bool) {
        guard !dictating else { return }
        let current = held.withLock { $0 }
        if wanted, current == nil {
            do {
                let microphone = PreRollMicrophone(
                    try configuration.openDevice(), preRollSeconds: configuration.preRollSeconds)
                held.withLock { $0 = microphone }
                holdFailureSaid.store(false, ordering: .relaxed)
                log(
                    "the microphone stays open between turns, holding the last \(configuration.preRollSeconds) s in "
                        + "memory (pre-roll)"
                )
            } catch {
                if !holdFailureSaid.exchange(true, ordering: .relaxed) {
                    log("pre-roll is on but the microphone cannot stay open: \(error)")
                }
            }
        } else if !wanted, let current {
            held.withLock { $0 = nil }
            current.stop()
            log("the microphone is closed between turns (pre-roll off)")
        }
    }

    /// Reads the pairing and makes the event streams match it: a new box gets one, a re-paired box (new token or
    /// address) a fresh one, an unpaired box loses its.
    private func refreshPairing(initial: Bool) {
        let pairing: Pairing
        do {
            pairing = try configuration.pairing()
        } catch {
            if initial { log("could not read the paired boxes (\(error)); serving none until they can be read") }
            return
        }
        var started: [EventStream] = []
        var stopped: [EventStream] = []
        var notes: [String] = []
        served.withLock { served in
            for box in pairing.boxes {
                if let current = served.streams[box.name], current.box.connectsLike(box) { continue }
                if let old = served.streams[box.name] {
                    stopped.append(old.stream)
                    notes.append("\(box.name): pairing changed; reconnecting with the new token")
                } else if !initial {
                    notes.append("\(box.name): newly paired; connecting")
                }
                let stream = stream(for: box)
                served.streams[box.name] = (box, stream)
                started.append(stream)
            }
            for name in served.streams.keys where !pairing.boxes.contains(where: { $0.name == name }) {
                if let old = served.streams.removeValue(forKey: name) { stopped.append(old.stream) }
                notes.append("\(name): unpaired; disconnected")
            }
            served.pairing = pairing
        }
        stopped.forEach { $0.stop() }
        notes.forEach(log)
        started.forEach { $0.start() }
        if initial {
            log(
                pairing.boxes.isEmpty
                    ? "no box is paired; waiting for one (`boxvoice pair LINK`)"
                    : "serving \(pairing.boxes.count) box(es)")
        }
    }

    private func broadcast(_ event: EventRecord) {
        control.withLock { $0 }?.broadcast(event)
    }

    /// What killed runs left (a message awaiting HQ, a recording cut off) is put right, and due messages are sent.
    private func deliverOwed() {
        for box in served.withLock({ $0.pairing.boxes }) {
            let log = self.log
            let courier = BoxCourier(
                store: configuration.store, box: box.reference, client: box.client, detector: configuration.detector
            ) { event in
                if case .queued(let id, _, _) = event {
                    log("\(box.name): finished \(id), left awaiting HQ by an interrupted run")
                }
                if case .hqRedone(let id, _, _) = event { log("\(box.name): HQ redone for \(id) before its send") }
            }
            let done = courier.catchUp(everything: false)
            if let said = done.recovery.summary { log(said) }
            for report in done.deliveries { log("\(box.name): outbox: \(report.summary)") }
            do {
                let sweep = try configuration.store.compressRetained(box: box.reference)
                for done in sweep.compressed {
                    log(
                        "\(box.name): compressed the recording of \(done.id) (\(done.bytesBefore) → "
                            + "\(done.bytesAfter) bytes)")
                }
                for (id, error) in sweep.failed {
                    log(
                        "\(box.name): could not compress the recording of \(id) (\(error)); it is kept as recorded "
                            + "and tried again at the next start")
                }
            } catch {
                log("\(box.name): could not look for recordings to compress (\(error)); they are kept as recorded")
            }
        }
    }

    private func stream(for box: Box) -> EventStream {
        let responder = LastAudioResponder(
            box: box.reference, client: box.client, store: configuration.store,
            workDirectory: configuration.workDirectory)
        let log = self.log
        let debug = configuration.debug
        let name = box.name
        let reference = box.reference
        let answers = self.answers
        let store = configuration.store
        let assignments = SessionAssignments(store: configuration.store) { _, session in
            log("\(name): a turn's new conversation is \(session)")
        }
        return EventStream(baseURL: box.baseURL, token: box.token, verifyTLS: box.verifyTLS) { update in
            assignments.handle(update)
            switch update {
            case .subscribed:
                log("\(name): connected")
                try? store.recordContact(box: reference, .reached)
            case .disconnected(let reason, let retryIn):
                log("\(name): disconnected (\(reason)); retrying in \(Int(retryIn)) s")
                try? store.recordContact(box: reference, .unreachable)
            case .unauthorized:
                log("\(name): needs re-pair — the box refused this device (401); no more attempts")
                try? store.recordContact(box: reference, .refused)
            case .lastAudioRequest(let request):
                // Answer off the event thread: a large upload must not hold back keep-alive replies.
                let queued = answers.submit { Self.answer(request, with: responder, box: name, debug: debug, log: log) }
                if !queued {
                    log(
                        "\(name): too many retranscription requests at once (\(answers.queueLimit) waiting); "
                            + "\(request.requestId) is not answered"
                    )
                }
            case .event, .answeredPing:
                break
            }
        }
    }

    private static func answer(
        _ request: LastAudioRequest, with responder: LastAudioResponder, box name: String, debug: Bool,
        log: @Sendable (String) -> Void
    ) {
        do {
            switch try responder.answer(request) {
            case .audio(.ignored, _, _), .none(.ignored):
                log(
                    "\(name): ERROR the box ignored our answer to \(request.requestId): echoed messageId "
                        + "\(request.messageId) did not match"
                )
            case .audio(.unknownRequest, _, _), .none(.unknownRequest):
                // Normal: another client answered first, or the box stopped waiting.
                if debug { log("\(name): debug: the box no longer waited for \(request.requestId) (404)") }
            case .audio(let outcome, let format, let bytes):
                var cut = ""
                if case .wav(.pcm16kTail) = format {
                    cut = "WARNING: the recording is longer than 45 MB even at 16 kHz; sent its end: "
                }
                log(
                    "\(name): \(cut)answered \(request.requestId) with the recording of \(request.messageId) "
                        + "(\(format), \(bytes) bytes): \(outcome)"
                )
            case .none(let outcome):
                log("\(name): answered \(request.requestId) with none (\(request.messageId) is not kept): \(outcome)")
            }
        } catch {
            log("\(name): could not answer \(request.requestId): \(error)")
        }
    }
}
