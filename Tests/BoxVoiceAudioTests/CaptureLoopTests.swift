import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

/// A PCM double at the read seam: no file-backed PCM can overrun or suspend on demand.
final class ScriptedPCM: CapturePCM, @unchecked Sendable {
    enum Step { case frames(Float), overrun, suspend, fail, exhausted }
    let name = "scripted"
    let format = SampleFormat.float32LE
    let sampleRate = 48_000
    let periodFrames = 480
    let hasDeviceClock: Bool
    private let lock = NSLock()
    private var script: [Step]
    private(set) var recoveries: [PCMReadOutcome] = []
    private let delay: useconds_t

    init(_ script: [Step], hasDeviceClock: Bool = true, microsecondsPerRead: useconds_t = 0) {
        self.script = script
        self.hasDeviceClock = hasDeviceClock
        delay = microsecondsPerRead
    }

    func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws -> PCMReadOutcome {
        if delay > 0 { usleep(delay) }
        let step = lock.withLock { script.isEmpty ? Step.exhausted : script.removeFirst() }
        switch step {
        case .exhausted:
            usleep(1_000)  // like a device with nothing new yet
            return .frames(0)
        case .frames(let value):
            let samples = buffer.bindMemory(to: Float.self, capacity: frames)
            for i in 0..<frames { samples[i] = value }
            return .frames(frames)
        case .overrun: return .overrun
        case .suspend: return .suspended
        case .fail:
            throw ALSAError(
                kind: .io, device: name, operation: "snd_pcm_readi", code: -19, libraryMessage: "No such device")
        }
    }

    func recover(from outcome: PCMReadOutcome) throws { lock.withLock { recoveries.append(outcome) } }
    func close() {}
}

@Suite struct CaptureLoopTests {
    @Test func overrunAndSuspendAreCountedRecoveredAndSurvived() throws {
        let pcm = ScriptedPCM([.frames(0.1), .overrun, .frames(0.2), .suspend, .frames(0.3), .overrun, .frames(0.4)])
        let dir = TemporaryDirectory("loop")
        let summary = try Recorder(
            capture: AudioCapture(pcm: pcm), writer: SegmentWriter(directory: dir.path),
            maxFrames: 4 * 480
        ).run(stop: StopSignal())
        #expect(summary.capture.overruns == 2)
        #expect(summary.capture.suspends == 1)
        #expect(pcm.recoveries == [.overrun, .suspended, .overrun])
        let samples = try WAV.samples(summary.segments[0].path)
        let expected: [Float] = [0.1, 0.2, 0.3, 0.4].flatMap { [Float](repeating: $0, count: 480) }
        #expect(samples == expected)
    }

    @Test func slowConsumerMakesTheCaptureThreadDropAndCountNotWait() throws {
        // 200 reads of 10 ms each; a queue of 50 ms; nobody takes for the first 0.5 s.
        let pcm = ScriptedPCM(Array(repeating: .frames(0.5), count: 200), hasDeviceClock: true)
        let capture = AudioCapture(pcm: pcm, queueSeconds: 0.05, overflow: .automatic)
        capture.start()
        Thread.sleep(forTimeInterval: 0.5)
        var taken: Int64 = 0
        while let chunk = capture.queue.take(timeout: 0.2) {
            taken += Int64(chunk.samples.count)
            if capture.statistics.framesCaptured >= 200 * 480 && capture.queue.take(timeout: 0) == nil { break }
        }
        capture.stop()
        let stats = capture.statistics
        #expect(stats.framesCaptured >= 200 * 480)
        #expect(stats.framesDropped > 0)
        #expect(taken <= 200 * 480 - stats.framesDropped)
    }

    @Test func clocklessSourceWaitsForTheConsumerAndLosesNothing() throws {
        let pcm = ScriptedPCM(Array(repeating: .frames(0.25), count: 300), hasDeviceClock: false)
        let capture = AudioCapture(pcm: pcm, queueSeconds: 0.05)
        capture.start()
        Thread.sleep(forTimeInterval: 0.2)
        var taken = 0
        while taken < 300 * 480, let chunk = capture.queue.take(timeout: 1) { taken += chunk.samples.count }
        capture.stop()
        #expect(taken == 300 * 480)
        #expect(capture.statistics.framesDropped == 0)
    }

    @Test func deviceFailureEndsTheRecordingAndKeepsWhatWasCaptured() throws {
        let pcm = ScriptedPCM([.frames(0.1), .frames(0.2), .fail])
        let dir = TemporaryDirectory("loop")
        let summary = try Recorder(capture: AudioCapture(pcm: pcm), writer: SegmentWriter(directory: dir.path)).run(
            stop: StopSignal())
        guard case .deviceFailed(let reason) = summary.end else {
            Issue.record("expected deviceFailed, got \(summary.end)")
            return
        }
        #expect(reason.contains("No such device"))
        #expect(try WAV.samples(summary.segments[0].path).count == 960)
    }

    @Test func stopRequestFinalizesWithEverythingAlreadyCaptured() throws {
        let pcm = ScriptedPCM(Array(repeating: .frames(0.3), count: 100_000), microsecondsPerRead: 200)
        let dir = TemporaryDirectory("loop")
        let stop = StopSignal()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { stop.request() }
        let capture = AudioCapture(pcm: pcm)
        let summary = try Recorder(capture: capture, writer: SegmentWriter(directory: dir.path)).run(stop: stop)
        #expect(summary.end == .stopRequested)
        #expect(summary.frames > 0)
        #expect(summary.frames == summary.capture.framesCaptured - summary.capture.framesDropped)
        #expect(Int64(try WAV.samples(summary.segments[0].path).count) == summary.frames)
    }
}

@Suite struct FrameQueueTests {
    @Test func offerRefusesWhenFullWithoutWaiting() {
        let queue = FrameQueue(capacityFrames: 4)
        #expect(queue.offer(AudioChunk(startFrame: 0, samples: [1, 2, 3])))
        #expect(!queue.offer(AudioChunk(startFrame: 3, samples: [4, 5])))
        #expect(queue.take(timeout: 0)?.samples == [1, 2, 3])
        #expect(queue.offer(AudioChunk(startFrame: 3, samples: [4, 5])))
    }

    @Test func closeDrainsThenReturnsNil() {
        let queue = FrameQueue(capacityFrames: 10)
        _ = queue.offer(AudioChunk(startFrame: 0, samples: [1]))
        queue.close()
        #expect(queue.take(timeout: 0)?.samples == [1])
        #expect(queue.take(timeout: 0) == nil)
        #expect(queue.isClosedAndEmpty)
        #expect(!queue.offer(AudioChunk(startFrame: 1, samples: [2])))
    }

    @Test func drainTakesWhatAClosedQueueHeldThenEnds() {
        let queue = FrameQueue(capacityFrames: 100)
        for start in stride(from: 0, to: 30, by: 10) {
            _ = queue.offer(AudioChunk(startFrame: Int64(start), samples: Array(repeating: 0, count: 10)))
        }
        queue.close()
        var batches: [[Int64]] = []
        queue.drain(DrainPace(wakeFrames: 50, limitFrames: 20, poll: 5)) { chunks in
            batches.append(chunks.map(\.startFrame))
            return .more
        }
        // Closed, so nothing waits for the 50 frames the pace wakes at; each batch stays within its 20 frames.
        #expect(batches == [[0, 10], [20]])
    }

    @Test func drainTicksWithNothingWhenNoAudioComesAndStopsWhenTheConsumerHasEnough() {
        let queue = FrameQueue(capacityFrames: 100)
        var wakeUps = 0
        queue.drain(DrainPace(wakeFrames: 10, limitFrames: 10, poll: 0.01)) { chunks in
            #expect(chunks.isEmpty)
            wakeUps += 1
            return wakeUps == 3 ? .enough : .more
        }
        #expect(wakeUps == 3)
        #expect(!queue.isClosedAndEmpty)
    }

    @Test func putWaitsForRoom() {
        let queue = FrameQueue(capacityFrames: 2)
        #expect(queue.put(AudioChunk(startFrame: 0, samples: [1, 2])))
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { _ = queue.take(timeout: 1) }
        let started = Date()
        #expect(queue.put(AudioChunk(startFrame: 2, samples: [3])))
        #expect(Date().timeIntervalSince(started) >= 0.05)
    }
}
