import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Synchronization
import Testing

/// The recording's own road, on real parts: a WAV played as a microphone at real-time pace through the capture path.
@Suite struct RecordingRoadTests {
    /// A listener that does not read for a while (the recognizer on a busy machine) costs the recording nothing:
    /// every frame reaches the files, and the listener skips ahead to what is recent, counting what it skipped.
    @Test func aListenerThatFallsBehindSkipsAheadAndTheRecordingKeepsEveryFrame() throws {
        let dir = TemporaryDirectory("road")
        let input = try WAV.samples(Checkout.sample("send-buy-milk.wav"))
        let pcm = PacedCapturePCM(try WAVCapturePCM(path: Checkout.sample("send-buy-milk.wav")))
        // A capture queue of half a second, a third of the listener's stall: only a road that drains it without
        // waiting for the listener keeps every frame (a shorter queue would also test the scheduler on a busy CI).
        let capture = AudioCapture(pcm: pcm, queueSeconds: 0.5)
        let road = RecordingRoad(capture: capture, hasDeviceClock: true, hearingSeconds: 0.5)
        capture.start()
        road.start()
        _ = try road.attach(directory: dir.path, policy: SegmentPolicy())
        // The listener stalls for a second and a half, then reads whatever is there until the end.
        Thread.sleep(forTimeInterval: 1.5)
        var heard: [AudioChunk] = []
        while true {
            let chunks = road.hearing.takeAll(timeout: 0.2)
            if chunks.isEmpty, road.hearing.isClosedAndEmpty { break }
            heard += chunks
        }
        let cut = try road.cut(at: nil, notBefore: 0)
        road.stop()
        var recorded: [Float] = []
        for segment in cut.segments { recorded += try WAV.samples(segment.path) }
        #expect(recorded.count == input.count)
        #expect(firstDifference(recorded, input) == nil)
        #expect(capture.statistics.framesDropped == 0)
        let skipped = road.statistics.framesNotHeard
        #expect(skipped > 48_000 / 2, "the stalled listener skipped ahead (\(skipped) frames)")
        // What the listener heard is the stream with one gap, each chunk where it belongs.
        let heardFrames = heard.reduce(0) { $0 + $1.samples.count }
        #expect(Int64(heardFrames) + skipped == Int64(input.count))
        for chunk in heard {
            let start = Int(chunk.startFrame)
            #expect(chunk.samples == Array(input[start..<start + chunk.samples.count]))
        }
    }

    /// A message's end is decided behind the recording: what came after it waits in memory and opens the next one.
    @Test func aCutHoldsTheAudioAfterItForTheNextMessageSampleForSample() throws {
        let dir = TemporaryDirectory("road-cut")
        let input = try WAV.samples(Checkout.sample("send-buy-milk.wav"))
        let capture = AudioCapture(pcm: try WAVCapturePCM(path: Checkout.sample("send-buy-milk.wav")), queueSeconds: 1)
        let road = RecordingRoad(capture: capture, hasDeviceClock: false, hearingSeconds: 1)
        capture.start()
        road.start()
        #expect(try road.attach(directory: dir.file("first"), policy: SegmentPolicy()) == 0)
        var heard = 0
        while heard < 96_000, case let chunks = road.hearing.takeAll(timeout: 1), !chunks.isEmpty {
            heard += chunks.reduce(0) { $0 + $1.samples.count }
        }
        let first = try road.cut(at: 48_000, notBefore: 0)
        #expect(first.endFrame == 48_000)
        #expect(try road.attach(directory: dir.file("second"), policy: SegmentPolicy()) == 48_000)
        while case let chunks = road.hearing.takeAll(timeout: 1), !chunks.isEmpty {}
        let second = try road.cut(at: nil, notBefore: 48_000)
        road.stop()
        let a = try first.segments.flatMap { try WAV.samples($0.path) }
        let b = try second.segments.flatMap { try WAV.samples($0.path) }
        #expect(firstDifference(a + b, input) == nil)
        #expect(a.count == 48_000)
    }
}
