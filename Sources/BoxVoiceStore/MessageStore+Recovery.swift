import BoxVoiceAudio
import BoxVoiceContract
import Foundation

/// What `recover()` found a killed or older run had left, reported once.
public struct RecoveryReport: Sendable, Equatable {
    /// Messages cut off before their command (a crash mid-recording) or folders no row described: now drafts.
    public var adoptedDrafts: [MessageID] = []
    /// Segment files whose headers a killed writer left stale, now playable.
    public var repairedFiles = 0
    /// Folders of discarded or evicted messages that a crash left behind, now removed.
    public var removedFolders = 0

    public init() {}

    public var isEmpty: Bool { adoptedDrafts.isEmpty && repairedFiles == 0 && removedFolders == 0 }

    /// Said once to the user.
    public var summary: String {
        var parts: [String] = []
        if !adoptedDrafts.isEmpty {
            parts.append(
                "kept \(adoptedDrafts.count) recording(s) an interrupted run left as draft(s): "
                    + adoptedDrafts.map(\.rawValue).joined(separator: ", ")
                    + " (`boxvoice outbox send ID` or `discard ID`)")
        }
        if repairedFiles > 0 { parts.append("repaired \(repairedFiles) recording file(s) a killed run left") }
        if removedFolders > 0 {
            parts.append("removed \(removedFolders) leftover folder(s) of discarded or evicted recordings")
        }
        return parts.joined(separator: "; ")
    }
}

/// What checking for what killed runs left came to. Every command that touches the outbox checks first, and none
/// stops for a check that failed: what was left stays where it is for the next check.
public enum RecoveryCheck: Sendable, Equatable {
    /// Put right (the report is empty when nothing was left).
    case done(RecoveryReport)
    /// Not checked: the store could not be read or changed.
    case failed(reason: String)

    /// Said once to the user; nil when there is nothing to say.
    public var summary: String? {
        switch self {
        case .done(let report): report.isEmpty ? nil : report.summary
        case .failed(let reason):
            "could not check for what an interrupted run left (\(reason)); it is kept and checked again next time"
        }
    }
}

extension MessageStore {
    /// `recover()`, its failure a value: the one step every catch-up begins with.
    public func checkForInterruptedRuns() -> RecoveryCheck {
        do {
            return .done(try recover())
        } catch {
            return .failed(reason: "\(error)")
        }
    }

    /// Puts right what killed runs left: a message still `recording` whose process is gone becomes a draft (its WAVs
    /// repaired; nothing said → discarded), a message folder with no row is adopted as a draft, and folders no row
    /// needs are removed. Messages a live process holds (its lease) are left alone, so the daemon may call this
    /// while `dictate` runs.
    @discardableResult
    public func recover() throws -> RecoveryReport {
        var report = RecoveryReport()
        try recoverInterruptedRecordings(&report)
        let boxes = (try? FileManager.default.contentsOfDirectory(atPath: recordingsRoot)) ?? []
        for box in boxes.sorted() {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: recordingsRoot + "/" + box)) ?? []
            for name in names.sorted() { try recoverFolder(name, of: box, &report) }
        }
        return report
    }

    /// Messages still `recording` whose process is gone: drafts, or discarded when nothing was said.
    private func recoverInterruptedRecordings(_ report: inout RecoveryReport) throws {
        for candidate in try read({ db in try select("WHERE state = 'recording'", [], in: db) }) {
            let folder = folder(of: candidate)
            var lease: RecordingLease?
            switch RecordingLease.take(id: candidate.id, folder: folder) {
            case .busy: continue
            case .taken(let taken): lease = taken
            case .missing: lease = nil
            }
            // Read again under the lease: its owner may have finished it meanwhile.
            guard let message = try self.message(candidate.id), message.state == .recording else { continue }
            let (repaired, frames) = Self.repair(folder)
            report.repairedFiles += repaired
            if frames == 0, message.heardText.trimmingCharacters(in: .whitespaces).isEmpty {
                try discard(message.id)
            } else {
                try write { db in
                    try change(
                        message.id, .keptAsDraft,
                        [("text", .text(message.heardText)), ("has_audio", .integer(frames > 0 ? 1 : 0))], in: db)
                }
                report.adoptedDrafts.append(message.id)
            }
            withExtendedLifetime(lease) {}
        }
    }

    /// One folder under a box's recordings: a crash's unnamed folder is removed, a message folder no row needs is
    /// removed, one with audio and no row is adopted as a draft.
    private func recoverFolder(_ name: String, of box: String, _ report: inout RecoveryReport) throws {
        let folder = recordingsRoot + "/" + box + "/" + name
        if name.hasPrefix(".new-") {
            // A folder a crash left before it was renamed into place: it never held anything. One younger
            // than a minute may be another process's, between making and leasing it.
            let made =
                (try? FileManager.default.attributesOfItem(atPath: folder))?[.modificationDate] as? Date
                ?? Date()
            if Date().timeIntervalSince(made) > 60,
                case .taken(let lease) = RecordingLease.take(id: MessageID.new(), folder: folder)
            {
                removeFolders([folder])
                report.removedFolders += 1
                withExtendedLifetime(lease) {}
            }
            return
        }
        // Only folders named by a message id are messages (an earlier `boxvoice record` kept timestamped takes here).
        guard let id = MessageID(exactly: name) else { return }
        if let row = try message(id), row.hasAudio, row.state != .discarded { return }
        guard case .taken(let lease) = RecordingLease.take(id: id, folder: folder) else { return }
        // Read again under the lease: a live owner may have just written its row.
        let row = try message(id)
        if let row, row.hasAudio, row.state != .discarded { return }
        if row != nil {
            removeFolders([folder])
            report.removedFolders += 1
            return
        }
        let (repaired, frames) = Self.repair(folder)
        report.repairedFiles += repaired
        // A whole compressed recording with no row (the database was emptied or replaced) is someone's
        // kept message: adopted like segments, never removed.
        let compressed = RetentionFormat.compressedNames.contains {
            FileManager.default.fileExists(atPath: folder + "/" + $0)
        }
        guard frames > 0 || compressed else {
            removeFolders([folder])
            report.removedFolders += 1
            return
        }
        let made =
            ((try? FileManager.default.attributesOfItem(atPath: folder))?[.modificationDate] as? Date) ?? Date()
        try write { db in
            try db.execute(
                """
                INSERT INTO messages (id, box, state, recorded_at, has_audio, text, updated_at) VALUES (?, ?, \
                'draft', ?, 1, '', ?)
                """,
                [
                    .text(id.rawValue), .text(box), .real(made.timeIntervalSince1970),
                    .real(Date().timeIntervalSince1970),
                ])
            _ = try evictBeyondLimit(box: BoxReference(storeKey: box), in: db)
        }
        report.adoptedDrafts.append(id)
        withExtendedLifetime(lease) {}
    }

    /// Messages of `box` awaiting HQ that no live process is finishing, each with the lease that makes this process
    /// the one to finish it (nil for a message without audio: nothing to upload, and framing it twice is refused).
    public func claimAwaitingHQ(box: BoxReference) throws -> [(message: DictatedMessage, lease: RecordingLease?)] {
        var claimed: [(DictatedMessage, RecordingLease?)] = []
        for message in try read({ db in
            try select("WHERE state = 'awaiting-hq' AND box = ? ORDER BY command_at, id", [.text(box.storeKey)], in: db)
        }) {
            switch RecordingLease.take(id: message.id, folder: folder(of: message)) {
            case .busy: continue
            case .taken(let lease): claimed.append((message, lease))
            case .missing: claimed.append((message, nil))
            }
        }
        return claimed
    }

    /// Repairs the segment headers in `folder` (a file without even a header is removed); returns how many were
    /// repaired and the frames it holds in all.
    static func repair(_ folder: String) -> (repaired: Int, frames: Int64) {
        var repaired = 0
        var frames: Int64 = 0
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names where name.hasPrefix("seg-") && name.hasSuffix(".wav") {
            let path = folder + "/" + name
            switch Result(catching: { try WAVRepair.repair(path: path) }) {
            case .success(.intact(let count)): frames += count
            case .success(.repaired(_, let count)):
                repaired += 1
                frames += count
            case .failure:
                // Not even a header reached the disk: nothing in it can be played or recovered.
                unlink(path)
            }
        }
        return (repaired, frames)
    }
}
