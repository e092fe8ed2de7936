import BoxVoiceBox
import BoxVoiceStore
import Foundation

/// Delivers one box's messages off the dictation thread: a POST to a box that is down can take the whole request
/// timeout, and the dictation must keep listening meanwhile. While it runs it looks once a second for messages
/// whose backoff (10 s / 30 s / 60 s / 120 s) has come due, so a postponed message goes out as soon as the box is
/// back without anyone asking.
public final class DeliveryWorker: Sendable {
    private let delivery: OutboxDelivery
    private let onReport: @Sendable (OutboxDelivery.Report) -> Void
    private let queue = DispatchQueue(label: "boxvoice.delivery")
    // Set once in init; cancelled on `queue` or in deinit. A DispatchSource is thread-safe.
    nonisolated(unsafe) private let timer: DispatchSourceTimer

    public init(
        delivery: OutboxDelivery, checkEvery interval: TimeInterval = 1,
        onReport: @escaping @Sendable (OutboxDelivery.Report) -> Void
    ) {
        self.delivery = delivery
        self.onReport = onReport
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [delivery, onReport] in
            guard (try? delivery.store.due(box: delivery.box).isEmpty) == false else { return }
            delivery.deliverDue().forEach(onReport)
        }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// Delivers what is due now, in the background.
    public func deliverNow(everything: Bool = false) {
        queue.async { [delivery, onReport] in delivery.deliverDue(everything: everything).forEach(onReport) }
    }

    /// Waits for the delivery in progress and any asked for before this call.
    public func waitUntilIdle() { queue.sync {} }

    /// Waits for the delivery in progress (and any asked for before this call), then stops the periodic check.
    public func finish() {
        queue.sync { timer.cancel() }
    }
}
