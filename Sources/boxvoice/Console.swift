import Foundation

/// Where the CLI writes: results to stdout, diagnostics to stderr. Only the CLI prints; libraries return values.
enum Console {
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func err(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// One JSON object per line (`JSONLine`), keys sorted so output is stable.
    static func json(_ line: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(line) else { return }
        out(String(decoding: data, as: UTF8.self))
    }
}

extension Double {
    /// Fixed decimals, for durations and levels (`-inf` stays readable).
    func formatted(_ decimals: Int) -> String {
        isFinite ? String(format: "%.\(decimals)f", self) : (self < 0 ? "-inf" : "inf")
    }
}

/// Why a path cannot be used, in words (never a Foundation error dump).
enum FileProblem {
    static func describe(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return errno == ENOENT ? "there is no such file or folder" : String(cString: strerror(errno))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR { return "it is a folder" }
        if access(path, R_OK) != 0 { return "you may not read it (\(String(cString: strerror(errno))))" }
        return "it is a file"
    }
}
