import Foundation
import Synchronization

/// Runs work that blocks (an HTTP upload, a client connection) on a thread of its own.
///
/// Dispatch's shared global queue has about one thread per core; when those are all waiting on the network, on a
/// lock or on another test, work queued behind them starts late — an upload made "while recording" would then start
/// after the recording ended. A thread per piece of blocking work costs far less than that delay.
public enum BlockingWork {
    public static func start(_ name: String, _ work: @escaping @Sendable () -> Void) {
        let thread = Thread(block: work)
        thread.name = name
        thread.start()
    }
}

/// Runs work in the order given, one piece at a time, on a thread of its own started when work arrives (and ended when
/// none is left): for feedback the caller must not wait for (a speaker, a notification daemon that hangs).
public final class SerialWork: Sendable {
    private struct Queue {
        var pending: [@Sendable () -> Void] = []
        var running = false
    }

    private let name: String
    private let queue = Mutex(Queue())

    public init(_ name: String) { self.name = name }

    public func run(_ work: @escaping @Sendable () -> Void) {
        let start = queue.withLock { queue in
            queue.pending.append(work)
            defer { queue.running = true }
            return !queue.running
        }
        guard start else { return }
        BlockingWork.start(name) { [self] in
            while let next = queue.withLock({ (queue: inout Queue) -> (@Sendable () -> Void)? in
                if queue.pending.isEmpty { queue.running = false }
                return queue.pending.isEmpty ? nil : queue.pending.removeFirst()
            }) {
                next()
            }
        }
    }
}

/// At most `workers` threads and `queueLimit` pieces waiting: for work a peer can ask for without limit (a box's
/// retranscription requests), so a burst costs a bounded number of threads, descriptors and temporary files. Work
/// beyond the limit is refused at once, and the caller says so.
public final class BoundedWork: Sendable {
    private struct Queue {
        var pending: [@Sendable () -> Void] = []
        var running = 0
    }

    public let workers: Int
    public let queueLimit: Int
    private let name: String
    private let queue = Mutex(Queue())

    public init(_ name: String, workers: Int, queueLimit: Int) {
        self.name = name
        self.workers = max(1, workers)
        self.queueLimit = max(0, queueLimit)
    }

    /// Runs `work` when a worker is free; false (and nothing runs) when `queueLimit` pieces are already waiting.
    @discardableResult
    public func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        let (accepted, startWorker) = queue.withLock { queue -> (Bool, Bool) in
            if queue.running < workers {
                queue.running += 1
                return (true, true)
            }
            guard queue.pending.count < queueLimit else { return (false, false) }
            queue.pending.append(work)
            return (true, false)
        }
        if startWorker {
            // A new worker starts with this piece itself: only what waits for a worker counts against the queue.
            BlockingWork.start(name) { [self] in
                work()
                while let next = queue.withLock({ (queue: inout Queue) -> (@Sendable () -> Void)? in
                    if queue.pending.isEmpty {
                        queue.running -= 1
                        return nil
                    }
                    return queue.pending.removeFirst()
                }) {
                    next()
                }
            }
        }
        return accepted
    }
}
