import BoxVoiceSync
import Foundation
import Synchronization
import Testing

@Suite struct WakeUpTests {
    @Test func aWaiterWakesWhenTheNewsIsRungNotAtItsDeadline() {
        let bell = WakeUp()
        let news = Mutex(false)
        let started = Date()
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.05)
            news.withLock { $0 = true }
            bell.ring()
        }
        let held = bell.wait(until: Date().addingTimeInterval(30)) { news.withLock { $0 } }
        #expect(held)
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test func aWaitGivesUpAtItsDeadlineAndSaysTheNewsDidNotCome() {
        let bell = WakeUp()
        let started = Date()
        let held = bell.wait(until: started.addingTimeInterval(0.1)) { false }
        #expect(!held)
        #expect(Date().timeIntervalSince(started) >= 0.1)
    }

    @Test func ringsThatDoNotBringTheNewsKeepTheWaiterWaiting() {
        let bell = WakeUp()
        let count = Mutex(0)
        Thread.detachNewThread {
            for _ in 0..<5 {
                count.withLock { $0 += 1 }
                bell.ring()
            }
        }
        #expect(bell.wait(until: Date().addingTimeInterval(30)) { count.withLock { $0 } == 5 })
        #expect(count.withLock { $0 } == 5)
    }

    @Test func aRingBetweenTheTicketAndTheSleepIsNotLost() {
        let bell = WakeUp()
        let ticket = bell.ticket
        bell.ring()
        let started = Date()
        #expect(bell.wait(until: Date().addingTimeInterval(30), after: ticket))
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(!bell.wait(until: Date().addingTimeInterval(0.05), after: bell.ticket))
    }

    @Test func theOwnerMayRingWhileHoldingTheLockThePredicateTakes() {
        let bell = WakeUp()
        let news = Mutex(0)
        Thread.detachNewThread {
            for _ in 0..<200 {
                news.withLock {
                    $0 += 1
                    bell.ring()
                }
            }
        }
        #expect(bell.wait(until: Date().addingTimeInterval(30)) { news.withLock { $0 } == 200 })
    }
}

@Suite struct WakeUpWithoutDeadlineTests {
    @Test func aWaitWithNoDeadlineEndsAtTheRing() {
        let bell = WakeUp()
        let news = Mutex(false)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.05)
            news.withLock { $0 = true }
            bell.ring()
        }
        #expect(bell.wait { news.withLock { $0 } })
    }
}
