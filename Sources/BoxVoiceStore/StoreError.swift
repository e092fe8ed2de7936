import BoxVoiceContract
import Foundation

/// What went wrong in the message store, as a caller can switch on it; `description` is for the user.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database refused (damaged file, full disk, …).
    case database(SQLiteError)
    /// A file or folder operation failed.
    case io(path: String, errno: Int32, doing: String)
    /// A path is not what boxvoice made (a symlink, another user's folder): it is not used.
    case unsafePath(path: String, reason: String)
    /// No message has this id.
    case unknownMessage(MessageID)
    /// The message is not in a state where this can happen.
    case notAllowed(MessageID, from: MessageState, MessageTransition)
    /// A box name that cannot name a folder.
    case invalidBoxName(String)
    /// No run has this id.
    case unknownRun(SessionRun.ID)
    /// The database was written by a newer boxvoice (its layout version is past what this one knows).
    case newerSchema(found: Int64, understood: Int64)

    /// The disk (or quota) is full: the caller keeps what it has and says so.
    public var isDiskFull: Bool {
        switch self {
        case .database(let error): error.isDiskFull
        case .io(_, let code, _): code == ENOSPC || code == EDQUOT
        default: false
        }
    }

    public var description: String {
        switch self {
        case .database(let error): "\(error)"
        case .io(let path, let code, let doing): "could not \(doing) '\(path)': \(String(cString: strerror(code)))"
        case .unsafePath(let path, let reason): "refusing to use '\(path)': \(reason)"
        case .unknownMessage(let id): "no message \(id) is in the outbox"
        case .notAllowed(let id, let state, let transition):
            "message \(id) is \(state.rawValue); \(transition.userWords) does not apply to it"
        case .invalidBoxName(let name): "'\(name)' cannot name a box's folder"
        case .unknownRun(let id): "no dictation run \(id.rawValue) is in the outbox"
        case .newerSchema(let found, let understood):
            "the message store was written by a newer boxvoice (layout \(found); this one knows up to \(understood)), "
                + "so it was "
                + "left as it is: nothing was read or changed. Run the newer boxvoice again, or move the store aside "
                + "to start afresh"
        }
    }
}

extension MessageTransition {
    fileprivate var userWords: String {
        switch self {
        case .sendDraft: "sending it as a draft"
        case .retry: "sending it again"
        case .discard: "discarding it"
        default: rawValue
        }
    }
}
