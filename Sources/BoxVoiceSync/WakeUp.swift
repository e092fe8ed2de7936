import Foundation

/// Lets a thread sleep until another has news for it, instead of polling on a short timer: a poll either wastes
/// wake-ups or adds its period to every wait (a stop, a verdict, a turn's end), and tests paid that latency too.
///
/// The news itself lives wherever its owner keeps it (usually behind a `Mutex`); the owner calls `ring()` after
/// changing it. A ring between a waiter's look and its sleep is never lost: rings are counted, a waiter takes a
/// `ticket` (the count) before it looks, and sleeps only while the count is still that ticket.
public final class WakeUp: @unchecked Sendable {
    // @unchecked: `rings` is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var rings: UInt64 = 0

    public init() {}

    /// Wakes every waiter so it looks again.
    public func ring() {
        condition.lock()
        rings &+= 1
        condition.broadcast()
        condition.unlock()
    }

    /// The rings so far: take it before looking at the news, then wait `after` it.
    public var ticket: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return rings
    }

    /// Sleeps until a ring after `ticket` or until `deadline`, and says whether it was rung.
    @discardableResult
    public func wait(until deadline: Date, after ticket: UInt64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        // Foundation on Linux traps turning a far deadline (`.distantFuture`) into a timespec: those wait untimed.
        let untimed = deadline.timeIntervalSinceNow > 1e6
        while rings == ticket {
            if untimed {
                condition.wait()
            } else if !condition.wait(until: deadline) {
                return rings != ticket
            }
        }
        return true
    }

    /// Waits until `isDone()` holds or `deadline` passes, and says whether it held. `isDone` runs without this
    /// type's lock held, so it may take its owner's lock, and the owner may ring while holding that lock.
    @discardableResult
    public func wait(until deadline: Date = .distantFuture, for isDone: () -> Bool) -> Bool {
        while true {
            let seen = ticket
            if isDone() { return true }
            if !wait(until: deadline, after: seen) { return isDone() }
        }
    }
}
