import BoxVoiceLive
import Testing

/// The room's judgement: the front end cleans in a noisy room, never in a quiet one, and a steady room never flips.
@Suite struct RoomNoiseTests {
    /// A second of frames: talk at `speech` (RMS) in every other 100 ms, the room's floor at `floor` between.
    private func second(speech: Double, floor: Double) -> [Double] {
        (0..<50).map { frame in (frame / 5) % 2 == 0 ? speech : floor }
    }

    private func judged(_ seconds: Int, speech: Double, floor: Double, from start: RoomNoise = RoomNoise()) -> RoomNoise
    {
        var room = start
        for _ in 0..<seconds { second(speech: speech, floor: floor).forEach { room.add(frameLevel: $0) } }
        return room
    }

    @Test func aQuietRoomIsHeardAsItIs() {
        let room = judged(3, speech: 3_000, floor: 10)  // 50 dB
        #expect(room.cleans == false)
        #expect(abs((room.signalToNoise ?? 0) - 49.5) < 0.1)
    }

    @Test func aNoisyRoomIsCleanedOnceASecondHasBeenHeard() {
        var room = RoomNoise()
        for level in second(speech: 3_000, floor: 300).dropLast() { room.add(frameLevel: level) }
        #expect(room.cleans == false && room.signalToNoise == nil, "no judgement before a second")
        room.add(frameLevel: 300)
        #expect(room.cleans)
        #expect(abs((room.signalToNoise ?? 0) - 20) < 0.1)
    }

    @Test func betweenTheTwoLinesTheLastJudgementStands() {
        // 38 dB: not noisy enough to start cleaning, not quiet enough to stop.
        let quietBefore = judged(12, speech: 3_000, floor: 3_000 / 79.4, from: judged(3, speech: 3_000, floor: 10))
        #expect(quietBefore.cleans == false)
        let noisyBefore = judged(12, speech: 3_000, floor: 3_000 / 79.4, from: judged(3, speech: 3_000, floor: 300))
        #expect(noisyBefore.cleans == true)
        // Past the upper line (45 dB over the last 10 s) it stops.
        #expect(judged(12, speech: 3_000, floor: 3_000 / 178, from: noisyBefore).cleans == false)
    }

    @Test func digitalSilenceBetweenWordsIsAQuietRoom() {
        #expect(judged(2, speech: 3_000, floor: 0).cleans == false)
    }

    @Test func theLevelIsTheFramesRMS() {
        #expect(RoomNoise.level([3, -4, 3, -4][...]) == (12.5).squareRoot())
        #expect(RoomNoise.level([][...]) == 0)
    }
}
