import Foundation

/// pocketsphinx holds every pronunciation of its dictionary in memory and builds its search over them, whether or
/// not the language model can ever produce the word. Debian's cmudict-en-us has 134,723 pronunciations; 79,420 are
/// of words its en-us language model knows. Cutting the rest changes no hypothesis and saves about 13 MB per decoder.
enum PronunciationDictionary {
    /// The lines (alternate pronunciations `word(2)` included) of the dictionary at `path` whose word is in `words`.
    static func subset(of path: String, keeping words: Set<Substring>) throws -> String {
        guard let full = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw PocketSphinxError(operation: "loading the dictionary", detail: "cannot read \(path)")
        }
        var kept: [Substring] = []
        for line in full.split(separator: "\n") {
            guard let head = line.split(separator: " ", maxSplits: 1).first else { continue }
            let word = head.firstIndex(of: "(").map { head[..<$0] } ?? head
            if words.contains(word) { kept.append(line) }
        }
        return kept.joined(separator: "\n") + "\n"
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
    private static func fingerprint(_ paths: String...) throws -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for path in paths {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let size = attributes[.size] as? Int ?? 0
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            for byte in "\(path)\u{0}\(size)\u{0}\(modified)\u{0}".utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }
        return String(hash, radix: 16)
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
