import Synchronization

/// What is read out of a model file, kept for the life of the process. Every transcriber (each dictation, each of
/// the daemon's turns, each calibration take) needs the spotter's few dictionary lines and the sound-alike index of
/// the whole 3.3 MB dictionary: parsed afresh each time, that was two-thirds of building a transcriber. An entry
/// is keyed by the file's path, size and modification time, so a changed file (a package upgrade) is read again.
final class ModelFileMemo<Value: Sendable>: Sendable {
    private let entries = Mutex<[String: Value]>([:])
    /// Entries kept before the memo starts over: a process hears with one or two dictionaries.
    private let limit: Int

    init(limit: Int = 8) {
        self.limit = limit
    }

    /// The value made from the file at `path` (and `key`, what else it was made from), made now if not yet known.
    /// A file that cannot be looked at is left to `make`, whose error says what is wrong with it.
    func value(of path: String, key: String = "", make: () throws -> Value) throws -> Value {
        guard let file = try? PronunciationDictionary.fingerprint(path) else { return try make() }
        let identity = file + "\u{0}" + key
        if let known = entries.withLock({ $0[identity] }) { return known }
        let made = try make()
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll() }
            entries[identity] = made
        }
        return made
    }
}
