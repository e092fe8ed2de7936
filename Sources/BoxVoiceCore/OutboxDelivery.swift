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

        /// Words for the user.
        public var summary: String {
            switch self {
            case .delivered(let id, _): "delivered \(id)"
            case .postponed(let id, let failure, _): "\(id) is still pending: \(failure)"
            case .refused(let id, let failure, let state):
                state == .possiblyDelivered
                    ? "\(id) may already have reached the box (an earlier attempt's answer was lost), and a retry was refused: \(failure)"
                    : "\(id) was not delivered and is kept with its text: \(failure)"
            case .storeFailed(let error): "the outbox could not be read (\(error)); pending messages stay there"
            }
        }
    }

    public let store: MessageStore
    public let box: String
    public let client: BoxClient

    public init(store: MessageStore, box: String, client: BoxClient) {
        self.store = store
        self.box = box
        self.client = client
    }

    /// Posts every due message of this box, oldest command first. After an uncertain failure the rest wait too: the
    /// box is probably unreachable, and order is kept.
    /// - Parameter everything: also the messages still waiting out their backoff (the user asked now, or a new
    ///   command started: the box may be back).
    public func deliverDue(now: Date = Date(), everything: Bool = false) -> [Report] {
        var reports: [Report] = []
        do {
            for due in try store.due(box: box, now: now, ignoringBackoff: everything) {
                guard let body = due.body else { continue }
                var message = due
                let sent = Result { () throws(BoxFailure) in
                    if message.sessionUnresolved {
                        // Asked now, in order: the default moves to where the run's first message went (contract §5),
                        // so later messages of the run follow it. A failure here is never a reason to use "new".
                        message.session = try Self.defaultSession(client)
                        do { try store.resolveSession(message.id, to: message.session) } catch { throw BoxFailure.uncertain(operation: "record the box's session", reason: "\(error)") }
                    }
                    return try client.send(message: body, messageId: message.id.rawValue, session: message.session)
                }
                switch sent {
                case .success(let acceptance):
                    try store.recordAccepted(message.id, outcome: Self.describe(acceptance))
                    reports.append(.delivered(message.id, acceptance: acceptance))
                case .failure(let failure) where failure.isRetryable:
                    try store.recordUncertain(message.id, reason: failure.description, now: now)
                    reports.append(.postponed(message.id, failure: failure, retryAt: try store.message(message.id)?.nextAttemptAt))
                    return reports
                case .failure(let failure):
                    let kind: DeliveryFailureKind = if case .unauthorized = failure { .unauthorized } else { .refused }
                    let state = try store.recordRefused(message.id, kind: kind, reason: failure.description,
                                                        afterUncertainAttempt: message.failure == .uncertain)
                    reports.append(.refused(message.id, failure: failure, now: state))
                }
            }
        } catch let error as StoreError {
            reports.append(.storeFailed(error))
        } catch {
            reports.append(.storeFailed(.io(path: store.databasePath, errno: EIO, doing: "read the outbox (\(error))")))
        }
        return reports
    }

    /// The box's default session; a refusal of that question is not a refusal of the message: asked again later.
    static func defaultSession(_ client: BoxClient) throws(BoxFailure) -> String? {
        do {
            return try client.defaultSession()
        } catch .definitive(let operation, let status, let text, _) {
            throw .uncertain(operation: operation, reason: "HTTP \(status): \(text)")
        }
    }

    static func describe(_ acceptance: Wire.SendAcceptance) -> String {
        switch acceptance {
        case .started(let turnId): "started:\(turnId)"
        case .queued: "queued"
        case .deduplicated: "deduplicated"
        }
    }
}

/// Everything owed to one box, in order: messages a killed run left awaiting HQ get their HQ text (or go out with
/// their live text), then every due message is posted. Every command that talks to a box runs this first, and the
/// daemon runs it continuously.
public struct BoxCourier: Sendable {
    public let finisher: MessageFinisher
    public let delivery: OutboxDelivery

    public init(store: MessageStore, box: String, client: BoxClient, detector: KeywordDetector,
                onEvent: @escaping @Sendable (DictationSession.Event) -> Void = { _ in }) {
        finisher = MessageFinisher(store: store, box: box, client: client, detector: detector, onEvent: onEvent)
        delivery = OutboxDelivery(store: store, box: box, client: client)
    }

    /// - Parameter everything: ignore the backoff of postponed messages.
    public func run(everything: Bool = true) -> [OutboxDelivery.Report] {
        finisher.resumeAbandoned()
        return delivery.deliverDue(everything: everything)
    }
}
