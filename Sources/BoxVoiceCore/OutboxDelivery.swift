import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceStore
import Foundation

/// Delivers what the outbox holds for one box: each due message is posted with its own `messageId`, so a retry
/// after an unknown outcome (or after a killed process) is deduplicated by the box and delivered exactly once.
public struct OutboxDelivery: Sendable {
    public enum Report: Sendable, Equatable {
        case delivered(messageId: String, acceptance: Wire.SendAcceptance)
        /// Unknown outcome; tried again at `retryAt` with the same id.
        case postponed(messageId: String, reason: String, retryAt: Date?)
        /// Refused for good (or the device must re-pair); the text stays in the outbox for the user.
        case failed(messageId: String, reason: String)
    }

    public let outbox: Outbox
    public let box: String
    public let client: BoxClient

    public init(outbox: Outbox, box: String, client: BoxClient) {
        self.outbox = outbox
        self.box = box
        self.client = client
    }

    /// Posts every due message of this box, oldest first. After an uncertain failure the rest wait too: the box is
    /// probably unreachable, and order is kept.
    /// - Parameter everything: also the messages still waiting out their backoff — a new command run starts them
    ///   afresh (the user is here now; the box may be back).
    public func deliverDue(now: Date = Date(), everything: Bool = false) throws -> [Report] {
        var reports: [Report] = []
        for message in try outbox.due(box: box, now: everything ? .distantFuture : now) {
            let sent = Result { () throws(BoxFailure) in
                try client.send(message: message.body, messageId: message.messageId, session: message.session)
            }
            switch sent {
            case .success(let acceptance):
                try outbox.markDelivered(message.messageId, outcome: Self.describe(acceptance))
                reports.append(.delivered(messageId: message.messageId, acceptance: acceptance))
            case .failure(.uncertain(let operation, let reason)):
                let failure = BoxFailure.uncertain(operation: operation, reason: reason)
                try outbox.markUncertain(message.messageId, error: failure.description, now: now)
                reports.append(.postponed(messageId: message.messageId, reason: failure.description,
                                          retryAt: try outbox.message(message.messageId)?.nextAttemptAt))
                return reports
            case .failure(let failure):
                try outbox.markFailed(message.messageId, error: failure.description)
                reports.append(.failed(messageId: message.messageId, reason: failure.description))
            }
        }
        return reports
    }

    static func describe(_ acceptance: Wire.SendAcceptance) -> String {
        switch acceptance {
        case .started(let turnId): "started:\(turnId)"
        case .queued: "queued"
        case .deduplicated: "deduplicated"
        }
    }
}
