import BoxVoiceContract
import Foundation

/// A recording the box may ask for again (contract §8): its segments and what it was sent as.
public struct RetainedRecording: Sendable, Equatable {
    public var box: BoxReference
    public var messageId: MessageID
    public var recordedAt: Date
    /// The committed text: live at the command, replaced by the HQ text when it came.
    public var text: String
    /// The session it was dictated into, when known.
    public var session: String?
    /// Its `seg-NNNN.wav` files, in order.
    public var segments: [String]
}

extension MessageStore {
    /// The recording kept for one of `box`'s messages; a box's request names one only in its canonical spelling
    /// (`LastAudioRequest.ownMessageId`), since the box compares ids byte for byte.
    public func retainedRecording(box: BoxReference, id: MessageID) throws -> RetainedRecording? {
        guard let message = try message(id), message.box == box else {
            return nil
        }
        return retained(message)
    }

    /// The recordings kept for `box`, newest first.
    public func retainedRecordings(box: BoxReference) throws -> [RetainedRecording] {
        try read { db in
            try select(
                "WHERE box = ? AND has_audio = 1 AND state NOT IN ('recording', 'discarded') ORDER BY recorded_at "
                    + "DESC, id DESC",
                [.text(box.storeKey)], in: db)
        }.compactMap(retained)
    }

    /// Drops one recording's audio (the user asked); the message's row and text stay.
    public func forgetRecording(box: BoxReference, id: MessageID) throws {
        let folder = try write { db -> String? in
            guard let message = try fetch(id, in: db), message.box == box, message.hasAudio, !message.state.needsAudio
            else { return nil }
            try db.execute("UPDATE messages SET has_audio = 0 WHERE id = ?", [.text(id.rawValue)])
            return self.folder(of: message)
        }
        removeFolders(folder.map { [$0] } ?? [])
    }

    /// Drops every recording of a box (unpair). The messages' rows and texts stay: a pending one still shows in the
    /// outbox. Returns how many recordings went.
    @discardableResult
    public func forgetBox(_ box: BoxReference) throws -> Int {
        let folders = try write { db -> [String] in
            let held = try select(
                "WHERE box = ? AND has_audio = 1 AND state NOT IN ('recording', 'awaiting-hq')", [.text(box.storeKey)],
                in: db)
            for message in held {
                try db.execute("UPDATE messages SET has_audio = 0 WHERE id = ?", [.text(message.id.rawValue)])
            }
            return held.map(folder(of:))
        }
        removeFolders(folders)
        return folders.count
    }

    private func retained(_ message: DictatedMessage) -> RetainedRecording? {
        guard message.hasAudio, message.state != .recording, message.state != .discarded else { return nil }
        return RetainedRecording(
            box: message.box, messageId: message.id, recordedAt: message.recordedAt,
            text: message.text ?? message.heardText, session: message.session, segments: segmentFiles(of: message))
    }

    /// The lease on a message's recording, for a caller about to read it (HQ redone before a send): `busy` while
    /// another process holds it.
    public func leaseRecording(of message: DictatedMessage) -> RecordingLease.Probe {
        RecordingLease.take(id: message.id, folder: folder(of: message))
    }

    /// Keeps the audio of the newest `retentionLimit` finished messages of `box`; returns the folders to remove once
    /// the transaction is committed. Messages still recording, awaiting HQ or owed it are never evicted: their audio
    /// is needed.
    func evictBeyondLimit(box: BoxReference, in db: SQLiteDatabase) throws -> [String] {
        let kept = try select(
            "WHERE box = ? AND has_audio = 1 AND hq_owed = 0 AND state NOT IN ('recording', 'awaiting-hq', "
                + "'discarded') ORDER BY recorded_at ASC, id ASC",
            [.text(box.storeKey)], in: db)
        let excess = kept.dropLast(retentionLimit)
        for old in excess { try db.execute("UPDATE messages SET has_audio = 0 WHERE id = ?", [.text(old.id.rawValue)]) }
        return excess.map(folder(of:))
    }
}
