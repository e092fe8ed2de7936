import Foundation

/// Where recordings are cut into upload-sized segments.
///
/// The box's HQ services take at most ~2 minutes of 48 kHz Float32 per upload (contract §1), so a segment
/// is at most `maxFrames` long; it closes at the quietest `windowFrames` window among its last `searchFrames`,
/// so a cut falls in a pause rather than through a word.
public struct SegmentPolicy: Sendable, Equatable {
    public let maxFrames: Int
    public let searchFrames: Int
    public let windowFrames: Int

    public init(maxFrames: Int, searchFrames: Int, windowFrames: Int) {
        precondition(maxFrames > 0 && windowFrames > 0, "segment and window lengths must be positive")
        self.maxFrames = maxFrames
        self.windowFrames = min(windowFrames, maxFrames)
        self.searchFrames = min(max(searchFrames, self.windowFrames), maxFrames)
    }

    /// The default: at most 60 s, cut at the quietest 20 ms within the last 5 s.
    public init(
        sampleRate: Int = AudioRate.hertz, maxSeconds: Double = 60, searchSeconds: Double = 5,
        windowMilliseconds: Double = 20
    ) {
        self.init(
            maxFrames: Int((maxSeconds * Double(sampleRate)).rounded()),
            searchFrames: Int((searchSeconds * Double(sampleRate)).rounded()),
            windowFrames: Int((windowMilliseconds * Double(sampleRate) / 1000).rounded()))
    }
}

/// Peak and RMS of a run of samples, in dB relative to full scale.
public struct AudioLevels: Sendable, Equatable {
    public var peak: Float = 0
    public var sumOfSquares: Double = 0
    public var frames: Int = 0

    public init() {}

    /// Runs over every captured sample, so it works eight lanes at a time.
    public mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        guard let base = samples.baseAddress else { return }
        let lanes = samples.count / 8 * 8
        var highs = SIMD8<Float>(repeating: 0)
        var lows = SIMD8<Float>(repeating: 0)
        var sums = SIMD8<Float>(repeating: 0)  // a 20 ms window's sum fits Float precision; totals accumulate in Double
        var i = 0
        while i < lanes {
            let v = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD8<Float>.self)
            highs.replace(with: v, where: v .> highs)
            lows.replace(with: v, where: v .< lows)
            sums += v * v
            i += 8
        }
        var peak = max(self.peak, highs.max(), -lows.min())
        var sum = sums.sum()
        for sample in samples[lanes...] {
            peak = max(peak, abs(sample))
            sum += sample * sample
        }
        self.peak = peak
        sumOfSquares += Double(sum)
        frames += samples.count
    }

    public mutating func add(_ samples: [Float]) {
        samples.withUnsafeBufferPointer { add($0) }
    }

    public mutating func merge(_ other: AudioLevels) {
        peak = max(peak, other.peak)
        sumOfSquares += other.sumOfSquares
        frames += other.frames
    }

    /// -inf for digital silence.
    public var peakDBFS: Double { 20 * log10(Double(peak)) }
    public var rmsDBFS: Double { frames == 0 ? -.infinity : 10 * log10(sumOfSquares / Double(frames)) }
}

/// The pure bookkeeping behind segmentation: per-window energy of the open segment and the choice of cut.
public struct SegmentPlanner: Sendable {
    public let policy: SegmentPolicy
    /// Frames accounted to the open segment.
    public private(set) var frames = 0
    private var windows: [AudioLevels] = []
    private var partial = AudioLevels()

    public init(policy: SegmentPolicy) {
        self.policy = policy
        windows.reserveCapacity(policy.maxFrames / policy.windowFrames + 1)
    }

    /// Frames the open segment can still take before it must be cut.
    public var room: Int { policy.maxFrames - frames }

    /// Accounts samples appended to the open segment; never more than `room`.
    public mutating func account(_ samples: UnsafeBufferPointer<Float>) {
        precondition(samples.count <= room, "segment overfilled")
        var offset = 0
        while offset < samples.count {
            let take = min(policy.windowFrames - partial.frames, samples.count - offset)
            partial.add(UnsafeBufferPointer(rebasing: samples[offset..<offset + take]))
            offset += take
            if partial.frames == policy.windowFrames {
                windows.append(partial)
                partial = AudioLevels()
            }
        }
        frames += samples.count
    }

    public mutating func account(_ samples: [Float]) {
        samples.withUnsafeBufferPointer { account($0) }
    }

    /// Where to close a full segment: the start of the quietest whole window lying inside the last
    /// `searchFrames` (the latest one on a tie, keeping segments long). Always > 0 and ≤ `frames`.
    public func cutPoint() -> Int {
        let w = policy.windowFrames
        let firstStart = max(frames - policy.searchFrames, w)  // a cut at 0 would leave an empty segment
        var firstWindow = (firstStart + w - 1) / w
        let endWindow = windows.count  // windows[i] covers [i*w, (i+1)*w)
        if firstWindow >= endWindow { firstWindow = max(endWindow - 1, 1) }
        guard firstWindow < endWindow else { return frames }
        var best = firstWindow
        for index in firstWindow..<endWindow where windows[index].sumOfSquares <= windows[best].sumOfSquares {
            best = index
        }
        return best * w
    }

    /// Levels of the first `cut` frames; `cut` must be a window boundary (as `cutPoint` gives) or `frames`.
    public func levels(before cut: Int) -> AudioLevels {
        var total = AudioLevels()
        let whole = min(cut / policy.windowFrames, windows.count)
        for window in windows[..<whole] { total.merge(window) }
        if cut == frames, whole == windows.count { total.merge(partial) }
        return total
    }

    /// Starts a new segment.
    public mutating func reset() {
        frames = 0
        windows.removeAll(keepingCapacity: true)
        partial = AudioLevels()
    }
}
