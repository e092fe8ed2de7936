import BoxVoiceContract
import Foundation

extension MessageStore {
    /// Waits after each uncertain attempt: 10 s, 30 s, 60 s, then every 120 s.
    public static let backoff: [TimeInterval] = [10, 30, 60, 120]

    /// Pending messages whose next attempt is due, oldest first; `ignoringBackoff` takes every pending one (the user
    /// asked now, or a new command started: the box may be back).
    public func due(box: BoxReference? = nil, now: Date = Date(), ignoringBackoff: Bool = false) throws
        -> [DictatedMessage]
    {
        try read { db in
            var clause = "WHERE state = 'pending'"
            var values: [SQLiteValue] = []
            if !ignoringBackoff {
                clause += " AND (next_attempt_at IS NULL OR next_attempt_at <= ?)"
                values.append(.real(now.timeIntervalSince1970))
            }
            if let box {
                clause += " AND box = ?"
                values.append(.text(box.storeKey))
            }
            return try select(clause + " ORDER BY command_at, recorded_at, id", values, in: db)
        }
    }

    /// Boxes that have messages pending or awaiting HQ (what `outbox retry` must visit).
    public func boxesWithWork() throws -> [BoxReference] {
        try read { db in
            try db.query("SELECT DISTINCT box FROM messages WHERE state IN ('pending', 'awaiting-hq') ORDER BY box")
                .compactMap { $0[0].text }
        }.map(BoxReference.init(storeKey:))
    }

    /// The box accepted it.
    public func recordAccepted(_ id: MessageID, as acceptance: BoxAcceptance) throws {
        try write { db in
            try change(
                id, .accepted,
                [
                    ("outcome", .text(acceptance.storedText)), ("next_attempt_at", .null), ("last_error", .null),
                    ("failure", .null),
                    ("attempts", .integer(Int64(try attempts(id, in: db) + 1))),
                ], in: db)
        }
    }

    /// The outcome is unknown: tried again after the backoff, with the same id.
    /// - Parameter reachedBox: the attempt may have reached the box (false: no connection was made). A box that may
    ///   hold the message as it was sent is owed no other text for it: HQ is no longer redone.
    public func recordUncertain(_ id: MessageID, reason: String, reachedBox: Bool = true, now: Date = Date()) throws {
        try write { db in
            let attempts = try attempts(id, in: db) + 1
            let wait = Self.backoff[min(attempts - 1, Self.backoff.count - 1)]
            var values: [(String, SQLiteValue)] = [
                ("attempts", .integer(Int64(attempts))), ("last_error", .text(reason)),
                ("failure", .text(DeliveryFailureKind.uncertain.rawValue)),
                ("next_attempt_at", .real(now.timeIntervalSince1970 + wait)),
            ]
            if reachedBox { values.append(("hq_owed", .integer(0))) }
            try change(id, .uncertain, values, in: db)
        }
    }

    /// The HQ a pending message was owed is settled: redone (`body` and `text` are its HQ framing), or given up
    /// (both nil: it goes out as it was framed).
    public func settleOwedHQ(_ id: MessageID, body: String?, text: String?) throws {
        try write { db in
            var values: [(String, SQLiteValue)] = [("hq_owed", .integer(0))]
            if let body, let text { values += [("body", .text(body)), ("text", .text(text))] }
            try change(id, .owedHQSettled, values, in: db)
        }
    }

    /// The box refused it for good (or the device must re-pair). After an earlier uncertain attempt the first may
    /// have arrived, so it is `possiblyDelivered` rather than `failed`. Returns the state it is now in.
    @discardableResult
    public func recordRefused(_ id: MessageID, kind: DeliveryFailureKind, reason: String, afterUncertainAttempt: Bool)
        throws -> MessageState
    {
        try write { db in
            let transition: MessageTransition =
                afterUncertainAttempt && kind == .refused ? .refusedAfterUncertain : .refused
            return try change(
                id, transition,
                [
                    ("attempts", .integer(Int64(try attempts(id, in: db) + 1))), ("last_error", .text(reason)),
                    ("failure", .text(kind.rawValue)), ("next_attempt_at", .null),
                ], in: db
            ).state
        }
    }

    /// The box was paired again: messages it refused only because the device token was no longer valid (401) are
    /// pending again, to go out with the new token. Returns them.
    @discardableResult
    public func requeueRefusedForAuthorization(box: BoxReference, now: Date = Date()) throws -> [MessageID] {
        try write { db in
            let refused = try select(
                "WHERE box = ? AND state = 'failed' AND failure = 'unauthorized'", [.text(box.storeKey)], in: db)
            for message in refused {
                try change(
                    message.id, .retry, [("next_attempt_at", .real(now.timeIntervalSince1970)), ("failure", .null)],
                    in: db)
            }
            return refused.map(\.id)
        }
    }

    private func attempts(_ id: MessageID, in db: SQLiteDatabase) throws -> Int {
        Int(try db.query("SELECT attempts FROM messages WHERE id = ?", [.text(id.rawValue)]).first?.first?.integer ?? 0)
    }
}

/// How a box has answered lately, as its messages show it.
public enum BoxHealth: Sendable, Equatable {
    case ok
    /// Messages wait for it: the oldest was committed at `since` and no attempt has had an answer.
    case unreachable(since: Date)
    /// It refused this device (401) after it was last paired: `boxvoice pair` again.
    case needsRePair
}

/// What a connection to a box just found (the daemon's event stream).
public enum BoxContact: Sendable {
    /// The box answered.
    case reached
    /// No answer (the box or the network is down).
    case unreachable
    /// It refused this device's token (401).
    case refused
}

extension MessageStore {
    /// What uploads to `box` have taught: it refuses Opus (WAV only), and the link's measured speed.
    public func uploadProfile(box: BoxReference) throws -> (wavOnly: Bool, linkBytesPerSecond: Double?) {
        try read { db in
            guard
                let row = try db.query(
                    "SELECT wav_only, link_bytes_per_second FROM box_contact WHERE box = ?", [.text(box.storeKey)]
                ).first
            else {
                return (false, nil)
            }
            return ((row[0].integer ?? 0) != 0, row[1].real)
        }
    }

    public func recordUploadProfile(box: BoxReference, wavOnly: Bool, linkBytesPerSecond: Double?) throws {
        try write { db in
            try db.execute("INSERT OR IGNORE INTO box_contact (box) VALUES (?)", [.text(box.storeKey)])
            try db.execute(
                "UPDATE box_contact SET wav_only = ?, link_bytes_per_second = ? WHERE box = ?",
                [.integer(wavOnly ? 1 : 0), linkBytesPerSecond.map { .real($0) } ?? .null, .text(box.storeKey)])
        }
    }

    /// Notes what a connection to `box` found, for `health`.
    public func recordContact(box: BoxReference, _ contact: BoxContact, at date: Date = Date()) throws {
        let now = SQLiteValue.real(date.timeIntervalSince1970)
        try write { db in
            try db.execute("INSERT OR IGNORE INTO box_contact (box) VALUES (?)", [.text(box.storeKey)])
            switch contact {
            case .reached:
                try db.execute(
                    "UPDATE box_contact SET reached_at = ?, unreachable_since = NULL, refused_at = NULL WHERE box = ?",
                    [now, .text(box.storeKey)])
            case .unreachable:
                try db.execute(
                    "UPDATE box_contact SET unreachable_since = COALESCE(unreachable_since, ?) WHERE box = ?",
                    [now, .text(box.storeKey)])
            case .refused:
                try db.execute(
                    "UPDATE box_contact SET refused_at = ?, unreachable_since = NULL WHERE box = ?",
                    [now, .text(box.storeKey)])
            }
        }
    }

    /// The box's health from its messages and the last connection to it: a 401 since it was last paired means it
    /// needs re-pairing; messages postponed for want of an answer, or a connection that fails, mean it is
    /// unreachable since the earliest of them; else it is fine.
    public func health(box: BoxReference, pairedAt: Date) throws -> BoxHealth {
        try read { db in
            let contact = try db.query(
                "SELECT refused_at, unreachable_since FROM box_contact WHERE box = ?", [.text(box.storeKey)]
            ).first
            let refusedMessage = try db.query(
                "SELECT MAX(updated_at) FROM messages WHERE box = ? AND failure = 'unauthorized' AND state = 'failed'",
                [.text(box.storeKey)]
            ).first?.first?.real
            let refused = [refusedMessage, contact?[0].real].compactMap { $0 }.max()
            if let refused, refused > pairedAt.timeIntervalSince1970 { return .needsRePair }
            let waiting = try db.query(
                "SELECT MIN(command_at) FROM messages WHERE box = ? AND state = 'pending' AND failure = 'uncertain'",
                [.text(box.storeKey)]
            ).first?.first?.real
            if let since = [waiting, contact?[1].real].compactMap({ $0 }).min() {
                return .unreachable(since: Date(timeIntervalSince1970: since))
            }
            return .ok
        }
    }
}

extension MessageStore {
    /// `outbox resend ID`: a message that may or may not have arrived (or was refused) goes out again as a new
    /// message — a new id, so the box cannot take it for the first, into the box's default session asked at send —
    /// with the same text and recording. The old row is discarded once the new one holds both.
    ///
    /// The framed body is the store's own (`<speech … message-id="ID" …>`): only that attribute changes.
    public func resendAsNew(_ id: MessageID, now: Date = Date()) throws -> MessageID {
        let fresh = MessageID.new()
        try write { db in
            guard let old = try fetch(id, in: db) else { throw StoreError.unknownMessage(id) }
            guard old.state == .possiblyDelivered || old.state == .failed, let body = old.body else {
                throw StoreError.notAllowed(id, from: old.state, .retry)
            }
            let reframed = body.replacingOccurrences(
                of: " message-id=\"\(id.rawValue)\"", with: " message-id=\"\(fresh.rawValue)\"")
            try db.execute(
                """
                INSERT INTO messages (id, box, session, session_unresolved, state, heard_text, typed_prefix, \
                command_action, command_phrase,
                    command_at, body, text, recorded_at, has_audio, updated_at, next_attempt_at)
                SELECT ?, box, NULL, 1, 'pending', heard_text, typed_prefix, command_action, command_phrase, ?, ?, \
                text, recorded_at,
                    has_audio, ?, ? FROM messages WHERE id = ?
                """,
                [
                    .text(fresh.rawValue), .real(now.timeIntervalSince1970), .text(reframed),
                    .real(now.timeIntervalSince1970),
                    .real(now.timeIntervalSince1970), .text(id.rawValue),
                ])
            try change(
                id, .discard,
                [
                    ("heard_text", .text("")), ("body", .null), ("text", .null), ("command_phrase", .null),
                    ("has_audio", .integer(0)),
                ], in: db)
            if old.hasAudio {
                // The rename happens inside the transaction: if it fails, neither row changes.
                let from = folder(of: old), to = folder(box: old.box, id: fresh)
                // (A commit failing after it leaves a folder without a row, which the next recovery adopts as a draft.)
                guard rename(from, to) == 0 else {
                    throw StoreError.io(path: from, errno: errno, doing: "move the recording to the new message")
                }
            }
        }
        return fresh
    }
}
