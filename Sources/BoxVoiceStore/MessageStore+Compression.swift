import BoxVoiceAudio
import BoxVoiceContract
import Foundation

/// How retained recordings are kept once their message is committed (contract §8 keeps five per box; this decides
/// their size): Ogg Opus (about 8 kB a second, the default), FLAC (lossless, about 70 kB a second) or the recorded
/// Float32 WAV (192 kB a second).
public enum RetentionFormat: String, Sendable, CaseIterable {
    case opus, flac, wav

    var codec: CompressedCodec? {
        switch self {
        case .opus: .speechOpus
        case .flac: .flac
        case .wav: nil
        }
    }

    /// The file a compressed recording is kept in.
    static let compressedNames = ["audio.ogg", "audio.flac"]
}

extension MessageStore {
    /// The format retained recordings are compressed to (`boxvoice recordings keep-as`).
    public func retentionFormat() throws -> RetentionFormat {
        try read { db in
            try db.query("SELECT value FROM settings WHERE key = 'retention_format'").first?.first?.text.flatMap(
                RetentionFormat.init(rawValue:))
        } ?? .opus
    }

    public func setRetentionFormat(_ format: RetentionFormat) throws {
        try write { db in
            try db.execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES ('retention_format', ?)", [.text(format.rawValue)])
        }
    }

    /// Messages whose recording no longer changes: committed, and their HQ done.
    private static let settled: Set<MessageState> = [.pending, .delivered, .failed, .possiblyDelivered]

    public struct Compressed: Sendable, Equatable {
        public var id: MessageID
        public var bytesBefore: Int64
        public var bytesAfter: Int64
        public var cpuSeconds: Double
    }

    /// Compresses the recording of a committed message (its HQ done: pending or later) into one file in the
    /// retention format; its segment WAVs are removed once that file is whole on disk. Returns nil when there is
    /// nothing to do (not committed yet, no audio, already compressed, kept as WAV) or when another process holds the
    /// message's lease: two compressions of one recording once wrote over each other and kept a fraction of it.
    /// - Parameter lease: the message's lease when the caller holds it (the run that recorded it); else it is taken
    /// here.
    @discardableResult
    public func compressRecording(_ id: MessageID, holding lease: RecordingLease? = nil) throws -> Compressed? {
        // A recording HQ is still owed is read again as recorded, never compressed under the upload.
        guard let codec = try retentionFormat().codec, let candidate = try message(id), candidate.hasAudio,
            Self.settled.contains(candidate.state), !candidate.hqOwed
        else { return nil }
        let folder = folder(of: candidate)
        var taken: RecordingLease?
        if lease?.id != id {
            guard case .taken(let mine) = RecordingLease.take(id: id, folder: folder) else { return nil }
            taken = mine
        }
        defer { withExtendedLifetime(taken) {} }
        // Read again under the lease: discarded or evicted meanwhile, there is nothing to keep.
        guard let message = try message(id), message.hasAudio, Self.settled.contains(message.state), !message.hqOwed
        else { return nil }
        let segments = segmentFiles(of: message)
        guard !segments.isEmpty,
            !segments.contains(where: { RetentionFormat.compressedNames.contains(($0 as NSString).lastPathComponent) })
        else {
            removeStraySegments(in: folder)
            return nil
        }
        let before = segments.reduce(Int64(0)) { $0 + Self.size($1) }
        let encoded = try AudioEncoding.encode(segments, to: folder + "/audio." + codec.fileExtension, as: codec)
        fsyncDirectory(folder)
        removeStraySegments(in: folder)
        return Compressed(id: id, bytesBefore: before, bytesAfter: encoded.bytes, cpuSeconds: encoded.cpuSeconds)
    }

    /// What `compressRetained` did: a recording that failed stays as recorded (its segment WAVs) and is tried again
    /// by the next sweep.
    public struct CompressionSweep: Sendable {
        public var compressed: [Compressed] = []
        public var failed: [(id: MessageID, error: any Error)] = []
    }

    /// Compresses every committed recording still kept as segments (what a killed run left before it got to them).
    public func compressRetained(box: BoxReference? = nil) throws -> CompressionSweep {
        let candidates = try messages(box: box).filter {
            $0.hasAudio && Self.settled.contains($0.state) && !$0.hqOwed
        }
        var sweep = CompressionSweep()
        for candidate in candidates {
            do {
                if let done = try compressRecording(candidate.id) { sweep.compressed.append(done) }
            } catch {
                sweep.failed.append((candidate.id, error))
            }
        }
        return sweep
    }

    /// Segment WAVs beside a whole compressed file are no longer needed.
    private func removeStraySegments(in folder: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        guard names.contains(where: RetentionFormat.compressedNames.contains) else { return }
        for name in names where name.hasPrefix("seg-") && name.hasSuffix(".wav") { unlink(folder + "/" + name) }
    }

    private func fsyncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int64) ?? 0
    }
}
