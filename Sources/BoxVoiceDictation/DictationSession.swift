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

/// Hearing a dictation: microphone (or a file played as one) → segmented recording, each segment uploaded for HQ as
/// it closes → live transcript and spoken commands (or keys) → the dictation table. Each message is a row of the
/// store from its first sample; the command that ends it commits it at once, before any network call, and
/// `MessageFinisher` finishes it (HQ text, framing) and `DeliveryWorker` posts it, off this loop.
///
/// Three threads share the work so that none waits on another's slow part: capture has its own (it never touches
/// disk or network), this loop writes segments, runs the recognizer and commits, and finishing and delivery run on
/// queues of their own, so the next message is already being heard while the box answers. Events arrive from any.
public final class DictationSession: Sendable {
    let configuration: Configuration
    let detector: KeywordDetector
    let store: MessageStore
    let finisher: MessageFinisher
    let onEvent: @Sendable (DictationEvent) -> Void
    private let hearing: Mutex<Hearing>

    public init(
        configuration: Configuration, detector: KeywordDetector, store: MessageStore,
        onEvent: @escaping @Sendable (DictationEvent) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.detector = detector
        self.store = store
        self.onEvent = onEvent
        finisher = MessageFinisher(
            store: store, box: configuration.box, client: configuration.client, detector: detector,
            hqRetryDelays: configuration.hqRetryDelays, uploadCodec: configuration.uploadCodec,
            workDirectory: configuration.workDirectory, onEvent: onEvent)
        hearing = Mutex(
            Hearing(
                machine: DictationStateMachine(once: configuration.once, endOfInput: configuration.endOfInput),
                recent: RecentAudio(seconds: Self.recentSeconds(configuration))))
    }

    /// Dictates until the state machine stops (or `stop` is requested, which ends the input). What killed earlier runs
    /// left is put right first (drafts adopted, messages awaiting HQ finished, pending ones delivered), and messages
    /// that come due while it runs go out too. Returns once every message it committed has been framed and tried.
    public func run(pcm: CapturePCM, stop: StopSignal, control: DictationControl = DictationControl()) throws {
        control.onLiveTextNow { [finisher] in finisher.sendLiveTextNow() }
        try hearing.withLock { state in try hear(pcm: pcm, stop: stop, control: control, state: &state) }
    }

    /// A run's story: the recording starts, the hearing loads, what earlier runs left is put right, the run begins and
    /// follows its session, then the voice is heard until the input ends or a command stops it, and the end of the
    /// input is acted on. Each step is one method below.
    private func hear(pcm: CapturePCM, stop: StopSignal, control: DictationControl, state: inout Hearing) throws {
        let (capture, road) = startRecording(pcm)
        state.road = road
        defer { road.stop() }
        let transcriber = try LiveTranscriber(options: hearingOptions())
        let worker = DeliveryWorker(
            delivery: OutboxDelivery(
                store: store, box: configuration.box, client: configuration.client, finisher: finisher)
        ) { [onEvent] in
            if let event = Self.event(for: $0) { onEvent(event) }
        }
        catchUp(worker: worker)
        state.run = try storing {
            try store.beginRun(box: configuration.box, requested: configuration.requestedSession)
        }
        let sessionNamed = WakeUp()
        let events = followSession(worker: worker, named: sessionNamed)
        defer {
            // The microphone closes once hearing is over, not after HQ and delivery: what it would take meanwhile
            // belongs to no message.
            road.stop()
            onEvent(.listeningEnded)
            finisher.waitUntilIdle()
            if let run = state.run { awaitSession(of: run, worker: worker, named: sessionNamed) }
            worker.finish()
            events?.stop()
        }
        let loop = Loop(session: self, transcriber: transcriber, worker: worker)
        var message = try storing { try begin(&state) }
        do {
            try listen(
                road: road, capture: capture, stop: stop, control: control, loop: loop, message: &message,
                state: &state)
            try endInput(capture: capture, control: control, loop: loop, message: &message, state: &state)
        } catch let error as DictationError {
            throw error
        } catch let error where error is SoundFileError || error is StoreError {
            throw keepAfterFault(error, message: &message, road: road, transcriber: transcriber)
        }
    }

    /// Capture starts before the recognizer loads (about a second): what is said meanwhile is recorded and waits to
    /// be heard. The recording has a road of its own (`RecordingRoad`): the loop only hears behind it.
    private func startRecording(_ pcm: CapturePCM) -> (AudioCapture, RecordingRoad) {
        let capture = AudioCapture(pcm: pcm, queueSeconds: pcm.hasDeviceClock ? configuration.captureQueueSeconds : 1)
        let onEvent = self.onEvent
        let road = RecordingRoad(
            capture: capture, hasDeviceClock: pcm.hasDeviceClock,
            hearingSeconds: pcm.hasDeviceClock ? configuration.hearingLagSeconds : 1,
            onLevel: { onEvent(.level(elapsed: $0, dBFS: $1)) },
            onCaptureLoss: { onEvent(.captureLost(frames: $0.framesDropped, overruns: $0.overruns)) })
        capture.start()
        road.start()
        return (capture, road)
    }

    private func hearingOptions() -> LiveTranscriber.Options {
        var options = LiveTranscriber.Options.hearing(
            detector, spotterPhrases: configuration.spotterPhrases,
            dictionaryCache: configuration.dictionaryCache, frontEnd: configuration.frontEnd,
            adaptation: configuration.voiceAdaptation, whisper: configuration.whisper)
        options.spottedCommandHold = configuration.spottedCommandHold
        return options
    }

    /// What killed earlier runs left is put right (drafts adopted, headers repaired), then messages left awaiting HQ
    /// are finished and everything due is delivered, in the background.
    private func catchUp(worker: DeliveryWorker) {
        // Dictation goes on either way; what an earlier run left stays where it is for the next check.
        let recovery = store.checkForInterruptedRuns()
        switch recovery {
        case .done(let report): if !report.isEmpty { onEvent(.recovered(report)) }
        case .failed: onEvent(.failed(messageId: nil, reason: recovery.summary ?? ""))
        }
        finisher.resumeAbandoned { worker.deliverNow(everything: true) }
    }

    /// A run that does not name its session learns it from the box's events (the stream connects in the background;
    /// listening never waits for it). Returns the stream to stop at the end, if one was opened.
    private func followSession(worker: DeliveryWorker, named: WakeUp) -> EventStream? {
        let assignments = SessionAssignments(store: store) { _, _ in
            worker.deliverNow()
            named.ring()
        }
        let learns = configuration.followsSessionEvents && (configuration.requestedSession.map { $0 == "new" } ?? true)
        let events = learns ? configuration.client.eventStream { assignments.handle($0) } : nil
        events?.start()
        return events
    }

    /// A store failure at the start of a run or a message: nothing was said yet, so there is no draft to keep.
    private func storing<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch {
            throw DictationError.storageFailed(error, draft: nil, diskFull: (error as? StoreError)?.isDiskFull ?? false)
        }
    }

    /// Hears what the recording road passes on until the input ends, a command stops the machine, or `stop` is
    /// requested (then capture stops, and what was captured up to then is still heard: the last words are often in
    /// it). Keys act where they came in the audio.
    private func listen(
        road: RecordingRoad, capture: AudioCapture, stop: StopSignal, control: DictationControl, loop: Loop,
        message: inout Message, state: inout Hearing
    ) throws {
        var captureStopped = false
        var toldLag = (at: Date.distantPast, seconds: 0.0)
        guard !state.machine.isStopped else { return }
        try road.hearing.drain { chunks in
            if stop.isRequested, !captureStopped {
                capture.stop()
                captureStopped = true
            }
            if let failure = road.failure { throw failure }
            loop.take(control, state: &state)
            // Nothing is left to be heard: every key pressed so far lies in what was heard.
            let allHeard = chunks.isEmpty && road.hearing.framesQueued == 0
            try loop.pressKeys(upTo: allHeard ? .max : state.framesHeard, message: &message, state: &state)
            if state.machine.isStopped { return .enough }
            for chunk in chunks {
                // A key acts before the audio that came after it is heard.
                loop.take(control, state: &state)
                try loop.pressKeys(upTo: chunk.startFrame, message: &message, state: &state)
                if state.machine.isStopped { return .enough }
                if chunk.startFrame > state.framesHeard {
                    try loop.skipAhead(to: chunk.startFrame, message: &message, state: &state)
                    if state.machine.isStopped { return .enough }
                }
                state.framesHeard = chunk.startFrame + Int64(chunk.samples.count)
                state.recent.append(chunk.samples, endingAt: state.framesHeard)
                for update in try loop.heard(loop.transcriber.feed(chunk.samples), state: state) {
                    try loop.handle(update, message: &message, state: &state)
                    if state.machine.isStopped { return .enough }
                }
                try loop.settle(message: &message, state: &state, waiting: false)
                if state.machine.isStopped { return .enough }
            }
            try loop.settle(message: &message, state: &state, waiting: false)
            if state.machine.isStopped { return .enough }
            submitHeard(&message, state: state, undecided: loop.transcriber.firstUndecidedStart)
            tellLag(road: road, state: state, told: &toldLag)
            return .more
        }
        if let failure = road.failure, !state.machine.isStopped { throw failure }
    }

    /// The input ended (or was stopped): keys pressed as it ended act first, then whatever is still being checked is
    /// decided, the recognizer's last words are heard, and only then is the end of the input acted on. A microphone
    /// that went away mid-message keeps what was said as a draft.
    private func endInput(
        capture: AudioCapture, control: DictationControl, loop: Loop, message: inout Message, state: inout Hearing
    ) throws {
        loop.take(control, state: &state)
        if !state.machine.isStopped { try loop.pressKeys(upTo: .max, message: &message, state: &state) }
        if !state.machine.isStopped { try loop.settle(message: &message, state: &state, waiting: true) }
        if let error = capture.error, !(error is CaptureEnded), !state.machine.isStopped {
            let had = hasContent(message)
            try apply(
                state.machine.handle(.keyword(.micOff), hasContent: had), to: &message, state: &state,
                worker: loop.worker)
            throw DictationError.captureFailed(error, draft: had ? message.id : nil)
        }
        guard !state.machine.isStopped else { return }
        for update in try loop.heard(loop.transcriber.finish(), state: state) {
            try loop.handle(update, message: &message, state: &state)
            if state.machine.isStopped { return }
        }
        try loop.settle(message: &message, state: &state, waiting: true)
        if state.machine.isStopped { return }
        try apply(
            state.machine.handle(.endOfInput, hasContent: hasContent(message)), to: &message, state: &state,
            worker: loop.worker)
    }

    /// Says how far hearing is behind the recording, about once a second while it is a second or more, and once when
    /// it has caught up.
    private func tellLag(road: RecordingRoad, state: Hearing, told: inout (at: Date, seconds: Double)) {
        let behind = Double(max(0, road.framesReceived - state.framesHeard)) / AudioRate.perSecond
        let now = Date()
        if behind >= 1, now.timeIntervalSince(told.at) >= 1 || told.seconds < 1 {
            onEvent(.hearingBehind(seconds: behind))
            told = (now, behind)
        } else if behind < 1, told.seconds >= 1 {
            onEvent(.hearingBehind(seconds: 0))
            told = (now, 0)
        }
    }

    /// Hands HQ the segments the recognizer has heard past, so no command can end the message inside them any more
    /// (none is being held or checked, the last utterance end it could report lies within `segmentHoldback`, and
    /// none reaches into an utterance still waiting for Whisper's words: `undecided`, in the recognizer's seconds).
    private func submitHeard(_ message: inout Message, state: Hearing, undecided: Double?) {
        guard let road = state.road else { return }
        message.unsubmitted += road.takeClosed()
        guard state.pending == nil, state.awaiting == nil else { return }
        var settled = state.framesHeard - Int64(configuration.segmentHoldbackSeconds * AudioRate.perSecond)
        if let undecided {
            settled = min(settled, Int64((undecided * AudioRate.perSecond).rounded()) + state.framesSkipped)
        }
        while let next = message.unsubmitted.first, message.startFrame + next.startFrame + next.frames <= settled {
            message.unsubmitted.removeFirst()
            submit(next, to: &message)
            message.submittedCount += 1
            message.submittedThrough = message.startFrame + next.startFrame + next.frames
        }
    }

    /// Writing failed (a full disk, a read-only or vanished folder): stop, and keep what was said so far — its text
    /// and the audio that reached the disk — as a draft, using the space held back for this.
    private func keepAfterFault(
        _ error: Error, message: inout Message, road: RecordingRoad, transcriber: LiveTranscriber
    ) -> DictationError {
        let diskFull = (error as? StoreError)?.isDiskFull == true || (error as? SoundFileError)?.isDiskFull == true
        store.releaseReserve()
        // The fault came while starting the next message: the one in hand is already committed and safe.
        guard case .recording? = (try? store.message(message.id))?.state else {
            return .storageFailed(error, draft: nil, diskFull: diskFull)
        }
        road.closeAfterFault()
        // Utterances still waiting for Whisper were said before the fault: their words join the draft. Nothing in
        // them acts now (the message is a draft); a command's words are kept as words.
        for words in Self.wordsStillBeingHeard(transcriber) { message.hear(words) }
        let ending = MessageStore.Ending(
            heardText: message.liveText, typedPrefix: configuration.typedPrefix, command: nil,
            liveText: VoiceTextResolver(detector: detector).liveText(
                heard: message.liveText, command: nil,
                typedPrefix: configuration.typedPrefix))
        do {
            try store.keepDraft(message.id, ending)
            onEvent(.draft(messageId: message.id))
            return .storageFailed(error, draft: message.id, diskFull: diskFull)
        } catch let draftError {
            // Not even the draft could be written: the row stays `recording`, and the next run adopts it with its
            // audio (and the words noted so far).
            onEvent(
                .failed(
                    messageId: message.id,
                    reason: "could not keep it as a draft either (\(draftError)); the next run adopts its recording"))
            return .storageFailed(error, draft: hasContent(message) ? message.id : nil, diskFull: diskFull)
        }
    }

    /// The words of the utterances the recognizer has not handed over yet, decided now (each waits for its decode,
    /// as at the end of the input). A recognizer failing here costs only these words: the audio is on disk, and HQ
    /// hears it when the draft is sent.
    private static func wordsStillBeingHeard(_ transcriber: LiveTranscriber) -> [String] {
        let updates: [LiveUpdate]
        do {
            updates = try transcriber.finish()
        } catch {
            return []
        }
        return updates.compactMap {
            if case .utterance(let utterance) = $0, !utterance.recognized.isEmpty { utterance.recognized } else { nil }
        }
    }

    /// Speech was heard: audio alone (silence, noise) is nothing to send.
    func hasContent(_ message: Message) -> Bool {
        message.liveText.contains { !$0.isWhitespace }
    }

    /// How much of the stream is kept for second opinions: an utterance is decided up to Whisper's deadline after it
    /// ended, and the box then hears the window before its end.
    var recentSeconds: Double { Self.recentSeconds(configuration) }

    private static func recentSeconds(_ configuration: Configuration) -> Double {
        configuration.secondOpinionWindowSeconds + (configuration.whisper?.deadline ?? 0)
    }

    /// Before returning, messages held for the run's new conversation get a while for the box to name it; after
    /// that they stay committed in the outbox (the next command or the daemon sends them).
    /// `named` rings when this run's event stream learns a session; the hold can also end in another process (the
    /// daemon delivering the same outbox), which nothing here hears, so the store is asked again each second too.
    private func awaitSession(of run: SessionRun.ID, worker: DeliveryWorker, named: WakeUp) {
        let deadline = Date().addingTimeInterval(configuration.sessionAssignmentWaitSeconds)
        worker.waitUntilIdle()
        func held() -> Bool { (try? store.runIsHolding(run)) ?? false }
        guard held() else { return }
        while Date() < deadline, !named.wait(until: min(deadline, Date().addingTimeInterval(1)), for: { !held() }) {}
        worker.deliverNow()
        worker.waitUntilIdle()
    }

    /// Starts the next message: its row and folder first, so its very first sample belongs to a message (the audio
    /// after the last one's end, held meanwhile, opens it).
    func begin(_ state: inout Hearing) throws -> Message {
        let recording = try store.beginRecording(
            box: configuration.box, session: configuration.session,
            sessionFromDefault: configuration.sessionFromDefault, run: state.run)
        let uploader = finisher.uploader(for: recording.id, session: configuration.session)
        let start = try state.road?.attach(directory: recording.folder, policy: configuration.segmentPolicy) ?? 0
        return Message(recording: recording, uploader: uploader, startFrame: start, submittedThrough: start)
    }

    func submit(_ segment: ClosedSegment, to message: inout Message) {
        onEvent(.segment(index: segment.index, seconds: segment.duration))
        guard !finisher.hqIsUnavailable else { return }
        if configuration.uploadWhileRecording { message.uploader.submit(segment) } else { message.held.append(segment) }
    }

    private static func event(for report: OutboxDelivery.Report) -> DictationEvent? {
        switch report {
        case .delivered(let id, _): .delivered(messageId: id)
        case .postponed(let id, let failure, _): .postponed(messageId: id, failure: failure)
        case .refused(let id, let failure, _):
            .refused(
                messageId: id, reason: report.summary,
                needsRePair: { if case .unauthorized = failure { true } else { false } }())
        case .storeFailed: .failed(messageId: nil, reason: report.summary)
        case .held(let id): .heldForSession(messageId: id)
        }
    }
}
