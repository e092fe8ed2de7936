import CSQLite
import Foundation

/// A failure reported by SQLite, with its own message.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let path: String
    /// The operating system's error behind it (`sqlite3_system_errno`), 0 when none: with a few kilobytes left SQLite
    /// says only "disk I/O error", and ENOSPC here is what tells a full disk.
    public let systemErrno: Int32

    public init(code: Int32, message: String, path: String, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.path = path
        self.systemErrno = systemErrno
    }

    /// SQLITE_FULL, or an I/O error the system gave as "no space" (or quota).
    public var isDiskFull: Bool { code & 0xFF == 13 || systemErrno == ENOSPC || systemErrno == EDQUOT }

    public var description: String {
        isDiskFull
            ? "database \(path): the disk is full (\(message), SQLite \(code))"
            : "database \(path): \(message) (SQLite \(code))"
    }
}

/// A value bound into or read from a statement.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    public var text: String? { if case .text(let value) = self { value } else { nil } }
    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    public var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}

/// One SQLite connection. This file is the only place that imports the SQLite C module.
/// Not thread-safe by itself; `@unchecked Sendable` is safe because `MessageStore` only touches it inside its `Mutex`.
public final class SQLiteDatabase: @unchecked Sendable {
    public let path: String
    private var handle: OpaquePointer?

    /// Opens (creating) the database with write-ahead logging and full fsync: a committed row survives a crash.
    public init(path: String) throws {
        self.path = path
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close(db)
            throw SQLiteError(code: rc, message: message, path: path)
        }
        handle = db
        sqlite3_busy_timeout(db, 5_000)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit { sqlite3_close(handle) }

    private func failure(_ rc: Int32) -> SQLiteError {
        SQLiteError(
            code: rc, message: String(cString: sqlite3_errmsg(handle)), path: path,
            systemErrno: sqlite3_system_errno(handle))
    }

    /// Runs statements that return no rows.
    public func execute(_ sql: String, _ values: [SQLiteValue] = []) throws {
        _ = try query(sql, values)
    }

    /// Runs one statement and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        var statement: OpaquePointer?
        var rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw failure(rc) }
        defer { sqlite3_finalize(statement) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .null: rc = sqlite3_bind_null(statement, index)
            case .integer(let number): rc = sqlite3_bind_int64(statement, index, number)
            case .real(let number): rc = sqlite3_bind_double(statement, index, number)
            case .text(let text): rc = sqlite3_bind_text(statement, index, text, -1, boxvoice_sqlite_transient())
            }
            guard rc == SQLITE_OK else { throw failure(rc) }
        }
        var rows: [[SQLiteValue]] = []
        while true {
            rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw failure(rc) }
            rows.append(
                (0..<sqlite3_column_count(statement)).map { column in
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, column))
                    case SQLITE_FLOAT: .real(sqlite3_column_double(statement, column))
                    case SQLITE_NULL: .null
                    default: .text(String(cString: sqlite3_column_text(statement, column)))
                    }
                })
        }
        return rows
    }

    /// Runs `body` in one transaction: all of it is committed, or none.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}
