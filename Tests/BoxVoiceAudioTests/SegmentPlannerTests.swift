import Foundation
import BoxVoiceAudio
import BoxVoiceTestSupport
import Testing

@Suite struct SegmentPlannerTests {
    // Small numbers keep the arithmetic checkable: 100-frame segments, 30-frame search, 10-frame windows.
    let policy = SegmentPolicy(maxFrames: 100, searchFrames: 30, windowFrames: 10)

    private func planner(with samples: [Float]) -> SegmentPlanner {
        var planner = SegmentPlanner(policy: policy)
        planner.account(samples)
        return planner
    }

    @Test func cutsAtStartOfQuietestWindowInsideSearchRegion() {
        var samples = [Float](repeating: 0.5, count: 100)
        for i in 80..<90 { samples[i] = 0.01 }
        #expect(planner(with: samples).cutPoint() == 80)
    }

    @Test func ignoresQuieterWindowsBeforeTheSearchRegion() {
        var samples = [Float](repeating: 0.5, count: 100)
        for i in 10..<60 { samples[i] = 0 }  // silence, but earlier than the last 30 frames
        for i in 70..<80 { samples[i] = 0.2 }
        #expect(planner(with: samples).cutPoint() == 70)
    }

    @Test func prefersTheLatestOfEquallyQuietWindows() {
        #expect(planner(with: [Float](repeating: 0, count: 100)).cutPoint() == 90)
    }

    @Test func neverCutsAtFrameZero() {
        let tiny = SegmentPolicy(maxFrames: 20, searchFrames: 20, windowFrames: 10)
        var planner = SegmentPlanner(policy: tiny)
        planner.account([0, 0, 0, 0, 0, 0, 0, 0, 0, 0] + [Float](repeating: 1, count: 10))
        #expect(planner.cutPoint() == 10)
    }

    @Test func levelsBeforeCutCoverOnlyThoseFrames() {
        var samples = [Float](repeating: 0.25, count: 100)
        samples[95] = 1.0  // after the cut: must not count
        samples[3] = -0.75
        var planner = planner(with: samples)
        planner.account([])
        let levels = planner.levels(before: 90)
        #expect(levels.frames == 90)
        #expect(levels.peak == 0.75)
        #expect(abs(levels.sumOfSquares - (89 * 0.0625 + 0.5625)) < 1e-9)
        #expect(planner.levels(before: 100).peak == 1.0)
    }

    @Test func roomShrinksAndResetStartsOver() {
        var planner = SegmentPlanner(policy: policy)
        planner.account([Float](repeating: 0.1, count: 37))
        #expect(planner.room == 63)
        planner.reset()
        #expect(planner.room == 100)
        #expect(planner.frames == 0)
    }

    @Test func defaultPolicyIsSixtySecondsFiveSecondSearchTwentyMillisecondWindows() {
        let policy = SegmentPolicy()
        #expect(policy.maxFrames == 2_880_000)
        #expect(policy.searchFrames == 240_000)
        #expect(policy.windowFrames == 960)
    }

    @Test func searchIsClampedToTheSegmentLength() {
        let policy = SegmentPolicy(sampleRate: 48_000, maxSeconds: 2, searchSeconds: 5)
        #expect(policy.searchFrames == policy.maxFrames)
    }

    @Test func levelsOfSilenceAreMinusInfinity() {
        var levels = AudioLevels()
        levels.add([0, 0, 0])
        #expect(levels.peakDBFS == -.infinity)
        #expect(levels.rmsDBFS == -.infinity)
        levels.add([1])
        #expect(levels.peakDBFS == 0)
        #expect(abs(levels.rmsDBFS - 10 * log10(0.25)) < 1e-12)
    }
}
