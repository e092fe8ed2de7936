import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceKeywords
import BoxVoiceStore
import Foundation

/// Delivers what the store holds for one box: each due message is posted with its own id, so a retry after an
/// unknown outcome (or after a killed process) is deduplicated by the box and delivered exactly once.
public struct OutboxDelivery: Sendable {
    public enum Report: Sendable, Equatable {
        case delivered(MessageID, acceptance: Wire.SendAcceptance)
        /// Unknown outcome; tried again at `retryAt` with the same id.
        case postponed(MessageID, failure: BoxFailure, retryAt: Date?)
        /// Refused for good (or the device must re-pair): `failed`, or `possiblyDelivered` when an earlier attempt's
        /// answer was lost. The text stays for the user.
        case refused(MessageID, failure: BoxFailure, now: MessageState)
        /// The store could not be read or written (disk, database): nothing was lost, nothing was sent.
        case storeFailed(StoreError)
        /// Waiting, committed, until the box names the conversation its run's first message opened (contract §5).
        case held(MessageID)

        /// Words for the user.
        public var summary: String {
            switch self {
            case .delivered(let id, _): "delivered \(id)"
            case .postponed(let id, let failure, _): "\(id) is still pending: \(failure)"
            case .refused(let id, let failure, let state):
                state == .possiblyDelivered
                    ? "\(id) may already have reached the box (an earlier attempt's answer was lost; a retry was told: "
                        + "\(failure)); its text is kept — check the conversation, and if it is not there, `boxvoice "
                        + "outbox resend \(id)` sends it again as a new message"
                    : "\(id) was not delivered and is kept with its text: \(failure)"
            case .storeFailed(let error):
                "the outbox could not be read or written (\(error)); pending messages stay there"
            case .held(let id):
                "\(id) waits for the box to name the new conversation its run opened, to go into the same one"
            }
        }
    }

    public let store: MessageStore
    public let box: BoxReference
    public let client: BoxClient
    /// How long a run waits for the box's `chat-session-assigned` before it asks the box's default instead (the event
    /// can be missed: no event connection, or a process killed between the send and the event).
    public let assignmentPatience: TimeInterval
    /// Redoes the HQ a message is owed before it is sent (nil: messages go out as framed).
    public let finisher: MessageFinisher?

    public init(
        store: MessageStore, box: BoxReference, client: BoxClient, assignmentPatience: TimeInterval = 20,
        finisher: MessageFinisher? = nil
    ) {
        self.store = store
        self.box = box
        self.client = client
        self.assignmentPatience = assignmentPatience
        self.finisher = finisher
    }

    /// Posts every due message of this box, oldest command first. After an uncertain failure the rest wait too: the
    /// box is probably unreachable, and order is kept. A run waiting for its session holds its own messages only.
    /// - Parameter everything: also the messages still waiting out their backoff (the user asked now, or a new
    ///   command started: the box may be back).
    public func deliverDue(now: Date = Date(), everything: Bool = false) -> [Report] {
        var reports: [Report] = []
        var held: Set<SessionRun.ID> = []
        do {
            for due in try store.due(box: box, now: now, ignoringBackoff: everything) {
                guard due.body != nil else { continue }
                if let run = due.run, held.contains(run) {
                    reports.append(.held(due.id))
                    continue
                }
                var message = due
                var lease: RecordingLease?
                if message.hqOwed, finisher != nil {
                    // Held elsewhere (the run that recorded it is still finishing it, or another process redoes it):
                    // read without it. A recording owed HQ is neither compressed nor evicted, and two redos of one
                    // message cost an upload, never a duplicate (the box deduplicates by id).
                    if case .taken(let mine) = store.leaseRecording(of: message) { lease = mine }
                }
                let sent = Result { () throws(BoxFailure) -> Wire.SendAcceptance? in
                    if let finisher, message.hqOwed {
                        if let failure = finisher.redoOwedHQ(message.id, holding: lease) { throw failure }
                        message = (try? store.message(message.id)) ?? message
                    }
                    guard case .session(let session) = try destination(of: message, now: now), let body = message.body
                    else { return nil }
                    message.session = session
                    return try client.send(message: body, messageId: message.id, session: session)
                }
                lease = nil
                do {
                    switch sent {
                    case .success(nil):
                        if let run = message.run { held.insert(run) }
                        reports.append(.held(message.id))
                    case .success(let acceptance?):
                        try store.recordAccepted(message.id, as: Self.stored(acceptance))
                        if let run = message.run {
                            try store.recordRunAccepted(run, message: message.id, sentTo: message.session ?? "new")
                        }
                        reports.append(.delivered(message.id, acceptance: acceptance))
                    case .failure(let failure) where failure.isRetryable:
                        try store.recordUncertain(
                            message.id, reason: failure.description, reachedBox: failure.mayHaveReachedBox, now: now)
                        reports.append(
                            .postponed(
                                message.id, failure: failure, retryAt: try store.message(message.id)?.nextAttemptAt))
                        return reports
                    case .failure(let failure):
                        let kind: DeliveryFailureKind =
                            if case .unauthorized = failure { .unauthorized } else { .refused }
                        let state = try store.recordRefused(
                            message.id, kind: kind, reason: failure.description,
                            afterUncertainAttempt: message.failure == .uncertain)
                        reports.append(.refused(message.id, failure: failure, now: state))
                    }
                } catch StoreError.notAllowed(let id, let state, _) where id == message.id {
                    // Another process (the daemon, another command) delivered this message at the same moment: the
                    // box deduplicates by id, and the store already says what became of it.
                    if state == .delivered {
                        let acceptance: Wire.SendAcceptance =
                            if case .success(let accepted?) = sent { accepted } else { .deduplicated }
                        reports.append(.delivered(id, acceptance: acceptance))
                    }
                }
            }
        } catch let error as StoreError {
            reports.append(.storeFailed(error))
        } catch {
            reports.append(.storeFailed(.io(path: store.databasePath, errno: EIO, doing: "read the outbox (\(error))")))
        }
        return reports
    }

    private enum Destination {
        /// Send it into this session (nil: `"new"`, for messages stored before runs).
        case session(String?)
        /// Not yet: its run waits for the box to name the session its first message opened.
        case hold
    }

    /// Where a message goes now (contract §5). A message of a run: the run's session once known; for the run's first
    /// message the session asked for, else the box's default, else `"new"`; nothing while the box has not yet named
    /// the session a `"new"` first message opened. A message stored before runs: its own session, or the default
    /// asked now when it was left to be resolved — a failure to ask is never a reason to use `"new"`.
    private func destination(of message: DictatedMessage, now: Date) throws(BoxFailure) -> Destination {
        let run: SessionRun?
        do { run = try message.run.flatMap(store.run) } catch {
            throw BoxFailure.uncertain(operation: "read the run's session", reason: "\(error)")
        }
        guard let run else {
            guard message.sessionUnresolved else { return .session(message.session) }
            let session = try Self.defaultSession(client)
            do { try store.resolveSession(message.id, to: session) } catch {
                throw BoxFailure.uncertain(operation: "record the box's session", reason: "\(error)")
            }
            return .session(session)
        }
        switch run.state {
        case .known:
            return run.session.map { .session($0) } ?? .hold
        case .open:
            if let requested = run.requested { return .session(requested) }
            return .session(try Self.defaultSession(client) ?? "new")
        case .assigning:
            guard now.timeIntervalSince(run.updatedAt) >= assignmentPatience else { return .hold }
            // The assignment event never came: the box made the new session its default when it assigned it, so the
            // default names it unless another client has moved it since — the best the box can still say.
            guard let session = try Self.defaultSession(client) else { return .hold }
            do { try store.assignRunSession(run.id, session: session) } catch {
                throw BoxFailure.uncertain(operation: "record the run's session", reason: "\(error)")
            }
            return .session(session)
        }
    }

    /// The box's default session; a refusal of that question is not a refusal of the message: asked again later.
    static func defaultSession(_ client: BoxClient) throws(BoxFailure) -> String? {
        do {
            return try client.defaultSession()
        } catch .definitive(let operation, let status, let text, _) {
            throw .uncertain(operation: operation, reason: "HTTP \(status): \(text)")
        }
    }

    static func stored(_ acceptance: Wire.SendAcceptance) -> BoxAcceptance {
        switch acceptance {
        case .started(let turnId): .started(turn: turnId)
        case .queued: .queued
        case .deduplicated: .deduplicated
        }
    }
}

/// Everything owed to one box, in order: messages a killed run left awaiting HQ get their HQ text (or go out with
/// their live text), then every due message is posted. Every command that talks to a box runs this first, and the
/// daemon runs it continuously.
public struct BoxCourier: Sendable {
    public let finisher: MessageFinisher
    public let delivery: OutboxDelivery

    public init(
        store: MessageStore, box: BoxReference, client: BoxClient, detector: KeywordDetector,
        onEvent: @escaping @Sendable (DictationEvent) -> Void = { _ in }
    ) {
        finisher = MessageFinisher(store: store, box: box, client: client, detector: detector, onEvent: onEvent)
        delivery = OutboxDelivery(store: store, box: box, client: client, finisher: finisher)
    }

    /// - Parameter everything: ignore the backoff of postponed messages.
    public func run(everything: Bool = true) -> [OutboxDelivery.Report] {
        finisher.resumeAbandoned()
        return delivery.deliverDue(everything: everything)
    }

    /// What a catch-up found and did, for its caller to say in its own way.
    public struct CatchUp: Sendable {
        /// What killed runs left and was put right (drafts adopted, headers repaired), or why it was not checked.
        public var recovery = RecoveryCheck.done(RecoveryReport())
        public var deliveries: [OutboxDelivery.Report] = []
    }

    /// The one catch-up on what earlier runs left, before anything new is done with the box: recordings a killed run
    /// left are put right (for every box: a draft belongs to whoever adopts it first), then `run`. Every command
    /// that talks to a box and the daemon call this; a dictation does the same steps with its own finisher in the
    /// background (`DictationSession`).
    public func catchUp(everything: Bool = true) -> CatchUp {
        let recovery = finisher.store.checkForInterruptedRuns()
        return CatchUp(recovery: recovery, deliveries: run(everything: everything))
    }
}
