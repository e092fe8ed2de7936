import Foundation

/// A segment file that has been closed and may be uploaded.
public struct ClosedSegment: Sendable, Equatable {
    public let index: Int
    public let path: String
    /// Position of its first frame in the whole recording.
    public let startFrame: Int64
    public let frames: Int64
    public let sampleRate: Int
    public let levels: AudioLevels

    public var duration: Double { Double(frames) / Double(sampleRate) }

    public init(index: Int, path: String, startFrame: Int64, frames: Int64, sampleRate: Int, levels: AudioLevels) {
        self.index = index
        self.path = path
        self.startFrame = startFrame
        self.frames = frames
        self.sampleRate = sampleRate
        self.levels = levels
    }
}

/// Writes a mono Float32 stream as `seg-0001.wav`, `seg-0002.wav`, … cut by a `SegmentPolicy`.
///
/// Samples reach the kernel in batches of `writeBatchFrames` (100 ms: one write per five 20 ms periods),
/// and the header is refreshed every `headerRefreshFrames` (about a second), so the file on disk is playable
/// at any time and a killed process loses at most ~1 s before repair, ~0.1 s after.
/// When a segment is full it is truncated back to the planner's cut point, closed, and the cut-off tail
/// opens the next segment — the tail is at most `searchFrames` long and is kept in memory for that.
public final class SegmentWriter {
    public let directory: String
    public let policy: SegmentPolicy
    public let sampleRate: Int
    public let headerRefreshFrames: Int
    public let writeBatchFrames: Int
    public private(set) var nextIndex: Int
    /// Frames of the recording handed to closed segments so far.
    public private(set) var closedFrames: Int64 = 0
    /// Every segment closed so far, in order.
    public private(set) var closedSegments: [ClosedSegment] = []

    private var planner: SegmentPlanner
    private var file: SoundFile?
    private var openIndex = 0
    private var framesSinceHeader = 0
    /// How many of the last samples in `recent` are accounted to the segment but not yet handed to the file.
    private var unwritten = 0
    /// The most recent samples of the open segment (at least `searchFrames` of them once that many exist).
    private var recent: [Float] = []

    public init(
        directory: String, policy: SegmentPolicy = SegmentPolicy(), sampleRate: Int = AudioRate.hertz,
        firstIndex: Int = 1, headerRefreshFrames: Int? = nil, writeBatchFrames: Int? = nil
    ) {
        self.directory = directory
        self.policy = policy
        self.sampleRate = sampleRate
        self.headerRefreshFrames = headerRefreshFrames ?? sampleRate
        self.writeBatchFrames = max(1, writeBatchFrames ?? sampleRate / 10)
        nextIndex = firstIndex
        planner = SegmentPlanner(policy: policy)
        // Sized once: regrowing a buffer of megabytes would fault in fresh pages on the hot path.
        recent.reserveCapacity(2 * max(policy.searchFrames, self.writeBatchFrames) + sampleRate)
    }

    public static func fileName(index: Int) -> String { String(format: "seg-%04d.wav", index) }

    /// Path of the segment being written, if one is open.
    public var openSegmentPath: String? { file?.path }

    /// Appends samples; returns the segments this closed, in order.
    public func append(_ samples: [Float]) throws -> [ClosedSegment] {
        var closed: [ClosedSegment] = []
        var rest = samples[...]
        while !rest.isEmpty {
            if planner.room == 0 { closed.append(try cut()) }
            let take = min(planner.room, rest.count)
            try write(rest.prefix(take))
            rest = rest.dropFirst(take)
        }
        if planner.room == 0 { closed.append(try cut()) }
        return closed
    }

    /// Closes the open segment (nothing is left behind for an empty one).
    public func finish() throws -> ClosedSegment? {
        guard let file else { return nil }
        if planner.frames == 0 {
            try file.close()
            try? FileManager.default.removeItem(atPath: file.path)
            self.file = nil
            return nil
        }
        return try close(file, keeping: planner.frames)
    }

    /// Frames appended so far (closed segments plus the open one).
    public var totalFrames: Int64 { closedFrames + Int64(planner.frames) }

    /// Ends the recording at `frame` (counted from its start) instead of at its last sample: the open segment is cut
    /// back there and the samples after it are returned, so they can open the next recording. Used when a spoken
    /// command is recognized a moment after the utterance holding it ended: what was said after belongs to the next
    /// message. A `frame` inside an already closed segment ends the recording at the start of the open one.
    public func finish(atFrame frame: Int64) throws -> (segment: ClosedSegment?, tail: [Float]) {
        guard let file, planner.frames > 0 else { return (try finish(), []) }
        let keep = Int(min(max(frame - closedFrames, 0), Int64(planner.frames)))
        guard keep < planner.frames else { return (try finish(), []) }
        try flush(file)
        try file.updateHeader()
        let reader = try SoundFile.open(path: file.path)
        try reader.seek(toFrame: Int64(keep))
        let tail = try reader.read(maxFrames: planner.frames - keep)
        try reader.close()
        guard keep > 0 else {
            // Nothing of the open segment belongs to this recording.
            try file.close()
            try? FileManager.default.removeItem(atPath: file.path)
            self.file = nil
            nextIndex = openIndex
            planner.reset()
            recent.removeAll(keepingCapacity: true)
            return (nil, tail)
        }
        return (try close(file, keeping: keep), tail)
    }

    /// Ends the recording at `frame` like `finish(atFrame:)`, reaching back into closed segments too: those after
    /// `frame` are read back and removed, the one holding it is cut there, and everything after `frame` is returned
    /// as the tail. The recognizer decides where a message ends while the recording runs ahead of it, so the end can
    /// lie seconds back, behind a segment that closed meanwhile.
    /// - Parameter earliest: no cut before this frame (the end of what was already handed on, e.g. uploaded).
    /// - Returns: every segment of the recording as it now stands, and the tail.
    public func finish(atFrame frame: Int64, notBefore earliest: Int64) throws -> (
        segments: [ClosedSegment], tail: [Float]
    ) {
        let frame = max(frame, earliest, 0)
        guard frame < closedFrames,
            let holding = closedSegments.firstIndex(where: { $0.startFrame + $0.frames > frame })
        else {
            let (_, tail) = try finish(atFrame: frame)
            return (closedSegments, tail)
        }
        // The open segment goes whole into the tail (keeping none of it), then the closed ones after the cut.
        var (_, tail) = try finish(atFrame: closedFrames)
        for later in closedSegments[(holding + 1)...].reversed() {
            tail = try Self.readAll(later.path) + tail
            try? FileManager.default.removeItem(atPath: later.path)
        }
        let cutSegment = closedSegments[holding]
        let samples = try Self.readAll(cutSegment.path)
        let keep = Int(frame - cutSegment.startFrame)
        tail = Array(samples[keep...]) + tail
        try? FileManager.default.removeItem(atPath: cutSegment.path)
        closedSegments.removeSubrange(holding...)
        closedFrames = cutSegment.startFrame
        nextIndex = cutSegment.index
        if keep > 0 {
            // Written anew rather than truncated in place: the file is short (a segment) and this path is rare.
            let kept = Array(samples[..<keep])
            let file = try SoundFile.createFloatWAV(path: cutSegment.path, sampleRate: sampleRate)
            try file.write(kept)
            try file.close()
            var levels = AudioLevels()
            kept.withUnsafeBufferPointer { levels.add($0) }
            let segment = ClosedSegment(
                index: cutSegment.index, path: cutSegment.path, startFrame: cutSegment.startFrame,
                frames: Int64(keep), sampleRate: sampleRate, levels: levels)
            closedSegments.append(segment)
            closedFrames += Int64(keep)
            nextIndex = cutSegment.index + 1
        }
        return (closedSegments, tail)
    }

    private static func readAll(_ path: String) throws -> [Float] {
        let reader = try SoundFile.open(path: path)
        defer { try? reader.close() }
        return try reader.readAll()
    }

    private func write(_ samples: ArraySlice<Float>) throws {
        let file = try openIfNeeded()
        samples.withUnsafeBufferPointer { planner.account($0) }
        recent.append(contentsOf: samples)
        unwritten += samples.count
        if unwritten >= writeBatchFrames { try flush(file) }
        let keep = max(policy.searchFrames, writeBatchFrames)
        if recent.count > 2 * keep { recent.removeFirst(recent.count - keep) }
    }

    private func flush(_ file: SoundFile) throws {
        guard unwritten > 0 else { return }
        try recent.withUnsafeBufferPointer {
            try file.write(UnsafeBufferPointer(rebasing: $0[($0.count - unwritten)...]))
        }
        framesSinceHeader += unwritten
        unwritten = 0
        if framesSinceHeader >= headerRefreshFrames {
            try file.updateHeader()
            framesSinceHeader = 0
        }
    }

    private func openIfNeeded() throws -> SoundFile {
        if let file { return file }
        if !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw SoundFileError(
                    path: directory, operation: "create folder", libraryMessage: error.localizedDescription)
            }
        }
        let path = (directory as NSString).appendingPathComponent(Self.fileName(index: nextIndex))
        let created = try SoundFile.createFloatWAV(path: path, sampleRate: sampleRate)
        try created.updateHeader()
        openIndex = nextIndex
        nextIndex += 1
        file = created
        framesSinceHeader = 0
        return created
    }

    private func cut() throws -> ClosedSegment {
        guard let file else { preconditionFailure("cut without an open segment") }
        let cut = planner.cutPoint()
        let tail = Array(recent.suffix(planner.frames - cut))
        let segment = try close(file, keeping: cut)
        if !tail.isEmpty { try write(tail[...]) }
        return segment
    }

    private func close(_ file: SoundFile, keeping frames: Int) throws -> ClosedSegment {
        try flush(file)
        if frames < planner.frames { try file.truncate(toFrames: Int64(frames)) }
        try file.close()
        let segment = ClosedSegment(
            index: openIndex, path: file.path, startFrame: closedFrames, frames: Int64(frames),
            sampleRate: sampleRate, levels: planner.levels(before: frames))
        closedFrames += Int64(frames)
        closedSegments.append(segment)
        self.file = nil
        planner.reset()
        recent.removeAll(keepingCapacity: true)
        return segment
    }
}
