import BoxVoiceBox
import BoxVoiceStore
import Foundation

/// Delivers one box's outbox off the dictation thread: a POST to a box that is down can take the whole request
/// timeout, and the dictation must keep listening meanwhile. While it runs it looks once a second for messages
/// whose backoff (10 s / 30 s / 60 s / 120 s) has come due, so a postponed message goes out as soon as the box is
/// back without anyone asking.
public final class DeliveryWorker: @unchecked Sendable {
    private let delivery: OutboxDelivery
    private let onReport: @Sendable (OutboxDelivery.Report) -> Void
    private let queue = DispatchQueue(label: "boxvoice.delivery")
    private let timer: DispatchSourceTimer

    public init(delivery: OutboxDelivery, checkEvery interval: TimeInterval = 1,
                onReport: @escaping @Sendable (OutboxDelivery.Report) -> Void) {
        self.delivery = delivery
        self.onReport = onReport
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [delivery, onReport] in
            guard (try? delivery.outbox.due(box: delivery.box).isEmpty) == false else { return }
            Self.deliver(delivery, onReport)
        }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// Delivers what is due now, in the background.
    public func deliverNow() {
        queue.async { [delivery, onReport] in Self.deliver(delivery, onReport) }
    }

    /// Waits for the delivery in progress (and any asked for before this call), then stops the periodic check.
    public func finish() {
        queue.sync { timer.cancel() }
    }

    private static func deliver(_ delivery: OutboxDelivery, _ onReport: @Sendable (OutboxDelivery.Report) -> Void) {
        do {
            for report in try delivery.deliverDue() { onReport(report) }
        } catch {
            // The outbox itself failed (disk, database): the message stays committed; say why.
            onReport(.postponed(messageId: "", reason: "outbox: \(error)", retryAt: nil))
        }
    }
}
