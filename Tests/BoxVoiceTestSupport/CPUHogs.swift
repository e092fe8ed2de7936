import Foundation
import Synchronization

/// Threads that keep every core busy, for load tests: a machine where the recognizer gets a fraction of a core.
public final class CPUHogs: Sendable {
    private let running = Atomic<Bool>(true)
    private let done = DispatchGroup()

    /// Starts `count` spinning threads (by default twice the cores).
    public init(count: Int = 2 * ProcessInfo.processInfo.activeProcessorCount) {
        for _ in 0..<count {
            done.enter()
            let thread = Thread { [self] in
                var x: UInt64 = 1
                while running.load(ordering: .relaxed) {
                    for _ in 0..<100_000 { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                }
                if x == 0 { print("") }  // keeps the work from being optimized away
                done.leave()
            }
            thread.start()
        }
    }

    public func stop() {
        running.store(false, ordering: .relaxed)
        done.wait()
    }
}
