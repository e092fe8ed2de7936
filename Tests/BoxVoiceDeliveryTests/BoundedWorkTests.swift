import BoxVoiceDelivery
import Foundation
import Synchronization
import Testing

/// A box can ask for retranscriptions without limit: 1000 at once once cost 1004 threads and 20 GB of answer files.
@Suite struct BoundedWorkTests {
    private static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    @Test func aBurstCostsAtMostItsWorkersAndWhatIsBeyondTheQueueIsRefused() throws {
        let pool = BoundedWork("test.bounded", workers: 2, queueLimit: 16)
        let release = DispatchSemaphore(value: 0)
        let ran = Atomic<Int>(0)
        let before = Self.threadCount()
        var accepted = 0
        for _ in 0..<1_000 {
            if pool.submit({
                release.wait(); ran.add(1, ordering: .relaxed)
            }) {
                accepted += 1
            }
        }
        #expect(accepted == 2 + 16)
        // Other tests run beside this one: the margin is theirs, far below the thousand a thread per request made.
        #expect(Self.threadCount() - before <= 2 + 20, "threads grew by \(Self.threadCount() - before)")
        for _ in 0..<accepted { release.signal() }
        let deadline = Date().addingTimeInterval(10)
        while ran.load(ordering: .relaxed) < accepted, Date() < deadline { usleep(1_000) }
        #expect(ran.load(ordering: .relaxed) == accepted)
        // Workers end when nothing is left, and the pool takes work again.
        let again = DispatchSemaphore(value: 0)
        #expect(pool.submit { again.signal() })
        #expect(again.wait(timeout: .now() + 5) == .success)
    }
}
