import Foundation

/// A recording kept so the box can ask for it again (contract §8).
public struct RetainedRecording: Sendable, Equatable {
    public var box: String
    public var messageId: String
    public var recordedAt: Date
    /// The committed text: live at send time, replaced by HQ text once HQ finishes.
    public var text: String
    /// The session the recording was dictated into, when known.
    public var session: String?
    /// The folder holding its `seg-NNNN.wav` files.
    public var directory: String

    public init(box: String, messageId: String, recordedAt: Date, text: String, session: String?, directory: String) {
        self.box = box
        self.messageId = messageId
        self.recordedAt = recordedAt
        self.text = text
        self.session = session
        self.directory = directory
    }
}

/// The last recordings per box (5 by default), durable across restarts; the oldest by `recordedAt` (ties by id) is
/// evicted with its files. The index lives in SQLite, the audio in `recordings/<box>/<messageId>/`.
public final class Retention: @unchecked Sendable {
    public let limit: Int
    private let database: SQLiteDatabase
    private let lock = NSLock()

    public init(database: SQLiteDatabase, limit: Int = 5) throws {
        self.database = database
        self.limit = limit
        try database.execute("""
            CREATE TABLE IF NOT EXISTS recordings (
                box TEXT NOT NULL,
                message_id TEXT NOT NULL,
                recorded_at REAL NOT NULL,
                text TEXT NOT NULL,
                session TEXT,
                directory TEXT NOT NULL,
                PRIMARY KEY (box, message_id)
            )
            """)
    }

    /// Records a recording and evicts beyond the limit; returns what was evicted (its files are already removed).
    @discardableResult
    public func retain(_ recording: RetainedRecording) throws -> [RetainedRecording] {
        let evicted: [RetainedRecording] = try lock.withLock {
            try database.transaction {
                try database.execute("""
                    INSERT OR REPLACE INTO recordings (box, message_id, recorded_at, text, session, directory) VALUES (?, ?, ?, ?, ?, ?)
                    """, [.text(recording.box), .text(recording.messageId), .real(recording.recordedAt.timeIntervalSince1970),
                          .text(recording.text), recording.session.map { .text($0) } ?? .null, .text(recording.directory)])
                let excess = try rows("WHERE box = ? ORDER BY recorded_at ASC, message_id ASC", [.text(recording.box)]).dropLast(limit)
                for old in excess {
                    try database.execute("DELETE FROM recordings WHERE box = ? AND message_id = ?", [.text(old.box), .text(old.messageId)])
                }
                return Array(excess)
            }
        }
        for old in evicted { try? FileManager.default.removeItem(atPath: old.directory) }
        return evicted
    }

    /// Replaces the committed text (the HQ text arrived after the send).
    public func updateText(box: String, messageId: String, text: String) throws {
        try lock.withLock {
            try database.execute("UPDATE recordings SET text = ? WHERE box = ? AND message_id = ?", [.text(text), .text(box), .text(messageId)])
        }
    }

    /// The recording behind a message id (byte-identical match), if held.
    public func recording(box: String, messageId: String) throws -> RetainedRecording? {
        try lock.withLock { try rows("WHERE box = ? AND message_id = ?", [.text(box), .text(messageId)]).first }
    }

    /// Newest first.
    public func recordings(box: String) throws -> [RetainedRecording] {
        try lock.withLock { try rows("WHERE box = ? ORDER BY recorded_at DESC, message_id DESC", [.text(box)]) }
    }

    /// Drops one recording and its files (its message was discarded, or the user asked).
    public func forget(box: String, messageId: String) throws {
        guard let held = try recording(box: box, messageId: messageId) else { return }
        try lock.withLock { try database.execute("DELETE FROM recordings WHERE box = ? AND message_id = ?", [.text(box), .text(messageId)]) }
        try? FileManager.default.removeItem(atPath: held.directory)
    }

    /// Drops all of a box's recordings at once (unpair).
    public func forgetBox(_ box: String) throws {
        let held = try recordings(box: box)
        try lock.withLock { try database.execute("DELETE FROM recordings WHERE box = ?", [.text(box)]) }
        for recording in held { try? FileManager.default.removeItem(atPath: recording.directory) }
    }

    private func rows(_ clause: String, _ values: [SQLiteValue]) throws -> [RetainedRecording] {
        try database.query("SELECT box, message_id, recorded_at, text, session, directory FROM recordings \(clause)", values).map { row in
            RetainedRecording(box: row[0].text ?? "", messageId: row[1].text ?? "", recordedAt: Date(timeIntervalSince1970: row[2].real ?? 0),
                              text: row[3].text ?? "", session: row[4].text, directory: row[5].text ?? "")
        }
    }
}
