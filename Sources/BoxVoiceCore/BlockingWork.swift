import Foundation

/// Runs work that blocks (an HTTP upload, a client connection) on a thread of its own.
///
/// Dispatch's shared global queue has about one thread per core; when those are all waiting on the network, on a
/// lock or on another test, work queued behind them starts late — an upload made "while recording" would then start
/// after the recording ended. A thread per piece of blocking work costs far less than that delay.
enum BlockingWork {
    static func start(_ name: String, _ work: @escaping @Sendable () -> Void) {
        let thread = Thread(block: work)
        thread.name = name
        thread.start()
    }
}
