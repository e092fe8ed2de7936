import BoxVoiceContract
import Foundation

/// The database layout, and its in-place upgrade from the layout before it.
///
/// Version 1 (no `user_version`) had two tables, `outbox` (framed messages by state) and `recordings` (the retention
/// index, with each folder's path). Version 2 has one row per message in `messages`; version 3 adds
/// `session_unresolved`; version 4 adds runs (`runs`, `messages.run`); version 5 adds `hq_owed`. The upgrade runs
/// in one transaction: every pending, failed, draft or delivered message and every retained recording survives it.
enum MessageSchema {
    static let version: Int64 = 5

    static func prepare(_ db: SQLiteDatabase, recordingsRoot: String) throws {
        let current = try db.query("PRAGMA user_version").first?.first?.integer ?? 0
        // A newer boxvoice's layout is not this one's to read or write: used anyway, its rows would be misread.
        if current > version { throw StoreError.newerSchema(found: current, understood: version) }
        guard current < version else { return }
        try db.transaction {
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS messages (
                    id TEXT PRIMARY KEY,
                    box TEXT NOT NULL,
                    session TEXT,
                    state TEXT NOT NULL,
                    heard_text TEXT NOT NULL DEFAULT '',
                    typed_prefix TEXT NOT NULL DEFAULT '',
                    command_action TEXT,
                    command_phrase TEXT,
                    command_at REAL,
                    body TEXT,
                    text TEXT,
                    recorded_at REAL NOT NULL,
                    has_audio INTEGER NOT NULL DEFAULT 0,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at REAL,
                    last_error TEXT,
                    failure TEXT,
                    outcome TEXT,
                    updated_at REAL NOT NULL,
                    session_unresolved INTEGER NOT NULL DEFAULT 0,
                    hq_owed INTEGER NOT NULL DEFAULT 0
                )
                """)
            // Version 2 lacked the column saying a message's session is still the box's default to ask for.
            let columns = Set(try db.query("PRAGMA table_info(messages)").compactMap { $0[1].text })
            if !columns.contains("session_unresolved") {
                try db.execute("ALTER TABLE messages ADD COLUMN session_unresolved INTEGER NOT NULL DEFAULT 0")
            }
            // Version 3 had no runs: its messages keep their own session (or ask the default, as before).
            if !columns.contains("run") {
                try db.execute("ALTER TABLE messages ADD COLUMN run TEXT")
            }
            // Version 4 redid no HQ: its messages go out with the text they were framed with.
            if !columns.contains("hq_owed") {
                try db.execute("ALTER TABLE messages ADD COLUMN hq_owed INTEGER NOT NULL DEFAULT 0")
            }
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS runs (
                    id TEXT PRIMARY KEY,
                    box TEXT NOT NULL,
                    requested TEXT,
                    session TEXT,
                    first_message TEXT,
                    state TEXT NOT NULL,
                    updated_at REAL NOT NULL
                )
                """)
            // What the daemon's event connection last found: the box refused the device, could not be reached,
            // answered.
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS box_contact (
                    box TEXT PRIMARY KEY,
                    refused_at REAL,
                    unreachable_since REAL,
                    reached_at REAL,
                    wav_only INTEGER NOT NULL DEFAULT 0,
                    link_bytes_per_second REAL
                )
                """)
            try db.execute("CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            try db.execute("CREATE INDEX IF NOT EXISTS messages_by_box_state ON messages (box, state)")
            try db.execute("CREATE INDEX IF NOT EXISTS messages_by_run ON messages (run)")
            let tables = Set(
                try db.query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0].text })
            if tables.contains("outbox") { try migrateOutbox(db, recordingsRoot: recordingsRoot) }
            if tables.contains("recordings") { try migrateRecordings(db, recordingsRoot: recordingsRoot) }
            try db.execute("PRAGMA user_version = \(version)")
        }
    }

    /// Each outbox row becomes a message in the same state, keeping its framed body and delivery history; audio left
    /// in its folder (a version-1 draft's was never retained) is kept with it.
    private static func migrateOutbox(_ db: SQLiteDatabase, recordingsRoot: String) throws {
        let rows = try db.query(
            """
            SELECT message_id, box, session, body, state, attempts, next_attempt_at, last_error, created_at, outcome \
            FROM outbox
            """)
        for row in rows {
            guard let id = row[0].text.flatMap(MessageID.init(parsing:)) else { continue }
            let old = row[4].text ?? "failed"
            let state: MessageState = ["pending": .pending, "delivered": .delivered, "draft": .draft][old] ?? .failed
            let body = row[3].text ?? ""
            let text = SpeechBody.inner(body)
            let box = row[1].text ?? ""
            let hasAudio = FileManager.default.fileExists(atPath: recordingsRoot + "/" + box + "/" + id.rawValue)
            // A version-1 draft was framed with the live text, its mic-off words still in it: kept as heard text so
            // sending it strips them and runs HQ.
            try db.execute(
                """
                INSERT OR IGNORE INTO messages (id, box, session, state, heard_text, command_action, command_phrase, \
                command_at, body, text,
                    recorded_at, has_audio, attempts, next_attempt_at, last_error, failure, outcome, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(id.rawValue), .text(box), row[2], .text(state.rawValue),
                    .text(state == .draft ? text : ""), state == .draft ? .text("micOff") : .null, row[8],
                    state == .draft ? .null : .text(body), .text(text), row[8], .integer(hasAudio ? 1 : 0), row[5],
                    row[6], row[7],
                    state == .failed ? .text(DeliveryFailureKind.refused.rawValue) : .null, row[9],
                    .real(Date().timeIntervalSince1970),
                ])
        }
        try db.execute("DROP TABLE outbox")
    }

    /// Each retained recording marks its message's audio as kept (its folder moved to the one place the store
    /// keeps it, if it was elsewhere); a recording without an outbox row becomes a delivered message.
    private static func migrateRecordings(_ db: SQLiteDatabase, recordingsRoot: String) throws {
        let rows = try db.query("SELECT box, message_id, recorded_at, text, session, directory FROM recordings")
        for row in rows {
            guard let box = row[0].text, let id = row[1].text.flatMap(MessageID.init(parsing:)) else { continue }
            let canonical = recordingsRoot + "/" + box + "/" + id.rawValue
            if let old = row[5].text, old != canonical, FileManager.default.fileExists(atPath: old),
                !FileManager.default.fileExists(atPath: canonical)
            {
                // A recording that cannot be moved fails the upgrade, which then changes nothing: counted as absent,
                // it would be left behind where nothing looks for it.
                try PrivateFiles.directory(recordingsRoot + "/" + box)
                if rename(old, canonical) != 0 {
                    throw StoreError.io(
                        path: old, errno: errno, doing: "move into its box's folder the retained recording")
                }
            }
            let present = FileManager.default.fileExists(atPath: canonical)
            let updated = try db.query(
                """
                UPDATE messages SET has_audio = ?, recorded_at = ?, text = ?, session = COALESCE(session, ?) WHERE id \
                = ? RETURNING id
                """, [.integer(present ? 1 : 0), row[2], row[3], row[4], .text(id.rawValue)])
            if updated.isEmpty {
                try db.execute(
                    """
                    INSERT INTO messages (id, box, session, state, recorded_at, has_audio, text, updated_at) VALUES \
                    (?, ?, ?, 'delivered', ?, ?, ?, ?)
                    """,
                    [
                        .text(id.rawValue), .text(box), row[4], row[2], .integer(present ? 1 : 0), row[3],
                        .real(Date().timeIntervalSince1970),
                    ])
            }
        }
        try db.execute("DROP TABLE recordings")
    }
}

/// Reads the body back out of a `<speech …>BODY</speech>` frame (only for upgrading version-1 drafts).
enum SpeechBody {
    static func inner(_ framed: String) -> String {
        guard framed.hasPrefix("<speech"), framed.hasSuffix("</speech>"), let open = framed.firstIndex(of: ">") else {
            return framed
        }
        let start = framed.index(after: open)
        let end = framed.index(framed.endIndex, offsetBy: -"</speech>".count)
        return start <= end ? String(framed[start..<end]) : framed
    }
}
