import Foundation

/// pocketsphinx holds every pronunciation of its dictionary in memory and builds its search over them, whether or
/// not the language model can ever produce the word. Debian's cmudict-en-us has 134,723 pronunciations; 79,420 are
/// of words its en-us language model knows. Cutting the rest changes no hypothesis and saves about 13 MB per decoder.
enum PronunciationDictionary {
    /// The lines (alternate pronunciations `word(2)` included) of the dictionary at `path` whose word is in `words`,
    /// in the dictionary's order. Read as bytes: every spotter and every cut reads all 134,723 lines, and splitting
    /// them into strings took a debug build a quarter of a second for the dozen lines a spotter keeps.
    static func subset(of path: String, keeping words: Set<Substring>) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PocketSphinxError(operation: "loading the dictionary", detail: "cannot read \(path)")
        }
        var wanted: [UInt64: [[UInt8]]] = [:]
        for word in words { wanted[hash(word.utf8), default: []].append(Array(word.utf8)) }
        var kept: [UInt8] = []
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != 0x0A { end += 1 }
                var wordEnd = start
                while wordEnd < end, bytes[wordEnd] != 0x20, bytes[wordEnd] != 0x28 { wordEnd += 1 }
                let word = UnsafeBufferPointer(rebasing: bytes[start..<wordEnd])
                if wordEnd > start, wanted[hash(word)]?.contains(where: { $0.elementsEqual(word) }) == true {
                    kept += bytes[start..<end]
                    kept.append(0x0A)
                }
                start = end + 1
            }
        }
        return String(decoding: kept, as: UTF8.self)
    }

    /// FNV-1a of some bytes (a word; a file's description).
    private static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// The model's dictionary cut to its language model's words, as a file in `folder`. The file is named for the
    /// two it comes from (paths, sizes, modification times), so it is made once and remade when the package changes.
    static func limitedToLanguageModel(_ model: PocketSphinxModel, in folder: String) throws -> String {
        let path = folder + "/lm-words-\(try fingerprint(model.dictionary, model.languageModel)).dict"
        if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size > 0 { return path }
        let words = try model.languageModelWords()
        let text = try subset(of: model.dictionary, keeping: Set(words.map { Substring($0) }))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// FNV-1a over each file's path, size and modification time.
    static func fingerprint(_ paths: String...) throws -> String { try fingerprint(paths) }

    static func fingerprint(_ paths: [String]) throws -> String {
        let described = try paths.map { path in
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let size = attributes[.size] as? Int ?? 0
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(path)\u{0}\(size)\u{0}\(modified)\u{0}"
        }
        return String(hash(described.joined().utf8), radix: 16)
    }
}

extension PocketSphinxModel {
    /// This model with its dictionary cut to its language model's words, kept in `folder` (same hypotheses, about
    /// 13 MB less per decoder); the model unchanged when that file cannot be made (unreadable model, full disk).
    public func limitedToLanguageModelWords(keptIn folder: String) -> PocketSphinxModel {
        guard let path = try? PronunciationDictionary.limitedToLanguageModel(self, in: folder) else { return self }
        var limited = self
        limited.dictionary = path
        return limited
    }
}
