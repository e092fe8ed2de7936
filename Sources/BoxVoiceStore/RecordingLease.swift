import BoxVoiceContract
import Foundation

/// Proof that this process is the one writing or finishing a message: an exclusive `flock` on its recording folder.
/// The kernel drops it when the process dies, however it dies, so another process (the daemon, the next command)
/// can tell a message a live run is still finishing from one a killed run left behind.
public final class RecordingLease: Sendable {
    public let id: MessageID
    // The descriptor is set once and closed only in deinit: nothing mutates it concurrently.
    private let descriptor: Int32

    /// What trying to take a folder's lease found.
    public enum Probe {
        case taken(RecordingLease)
        /// A live process holds it.
        case busy
        /// There is no such folder.
        case missing
    }

    private init(id: MessageID, descriptor: Int32) {
        self.id = id
        self.descriptor = descriptor
    }

    static func take(id: MessageID, folder: String) -> Probe {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return .missing }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return .busy
        }
        return .taken(RecordingLease(id: id, descriptor: fd))
    }

    deinit { close(descriptor) }
}

/// Folders and files only their owner can read: recordings and message texts are private.
public enum PrivateFiles {
    /// Creates `path` (and missing parents) with mode 0700, and makes an existing one 0700. Refuses a symlink or a
    /// folder owned by someone else: a planted folder is never used.
    public static func directory(_ path: String) throws {
        var info = stat()
        if lstat(path, &info) != 0 {
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty, parent != path, lstat(parent, &info) != 0 { try directory(parent) }
            if mkdir(path, 0o700) != 0, errno != EEXIST {
                throw StoreError.io(path: path, errno: errno, doing: "create the folder")
            }
            guard lstat(path, &info) == 0 else {
                throw StoreError.io(path: path, errno: errno, doing: "inspect the folder")
            }
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StoreError.unsafePath(
                path: path, reason: "it is not a plain folder (a symlink or a file is in its place)")
        }
        guard info.st_uid == geteuid() else {
            throw StoreError.unsafePath(path: path, reason: "it belongs to another user")
        }
        if (info.st_mode & 0o077) != 0, chmod(path, 0o700) != 0 {
            throw StoreError.io(path: path, errno: errno, doing: "make the folder private")
        }
    }

    /// Creates an empty file with mode 0600 if it does not exist (never following a symlink).
    public static func file(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.io(path: path, errno: errno, doing: "create the file") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == geteuid() else {
            throw StoreError.unsafePath(path: path, reason: "it belongs to another user")
        }
        if (info.st_mode & 0o077) != 0 { fchmod(fd, 0o600) }
    }
}

/// A folder for temporary work (answers being joined, files being cut) that no other user can predict or enter:
/// made by `mkdtemp` under `$XDG_RUNTIME_DIR` (or the given fallback), removed with everything in it by `remove()`.
public final class ScratchDirectory: Sendable {
    public let path: String

    /// - Parameter fallback: used when `$XDG_RUNTIME_DIR` is unset or unusable (the user's cache folder).
    public init(purpose: String, fallback: String) throws {
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        var lastError: StoreError?
        for base in [runtime, fallback].compactMap({ $0 }) {
            do {
                try PrivateFiles.directory(base)
            } catch let error as StoreError {
                lastError = error
                continue
            }
            var template = Array((base + "/boxvoice-\(purpose)-XXXXXX").utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
                lastError = .io(path: base, errno: errno, doing: "make a private work folder")
                continue
            }
            path = String(cString: made)
            return
        }
        throw lastError ?? StoreError.io(path: fallback, errno: ENOENT, doing: "make a private work folder")
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
