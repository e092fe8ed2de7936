/// A hand-written command-line reader: options are taken by name, what is left is positional,
/// and anything not taken is an error (so a typo never passes silently).
struct Arguments {
    private var remaining: [String]
    /// Every option and flag name the command asked for: what an unknown one is compared with.
    private var known: Set<String> = ["--help"]

    init(_ arguments: some Sequence<String>) {
        remaining = Array(arguments)
    }

    var isEmpty: Bool { remaining.isEmpty }

    /// Removes `name` if present.
    mutating func flag(_ name: String) -> Bool {
        known.insert(name)
        guard let index = remaining.firstIndex(of: name) else { return false }
        remaining.remove(at: index)
        return true
    }

    /// Removes `name VALUE` or `name=VALUE`, returning VALUE.
    mutating func option(_ name: String) throws -> String? {
        known.insert(name)
        if let index = remaining.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let value = String(remaining[index].dropFirst(name.count + 1))
            remaining.remove(at: index)
            return value
        }
        guard let index = remaining.firstIndex(of: name) else { return nil }
        guard index + 1 < remaining.count else { throw CLIError.usage("\(name) needs a value") }
        let value = remaining[index + 1]
        remaining.removeSubrange(index...index + 1)
        return value
    }

    /// A number of seconds within `range`: anything else (not a number, infinite, out of range) is a usage error that
    /// names the range, never a value that overflows later.
    mutating func seconds(_ name: String, within range: ClosedRange<Double>) throws -> Double? {
        guard let text = try option(name) else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw CLIError.usage("\(name) takes a number of seconds from \(Self.show(range.lowerBound)) to \(Self.show(range.upperBound)), not '\(text)'")
        }
        return value
    }

    private static func show(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// The next positional argument (anything not starting with `--`; `-` alone counts as positional).
    mutating func positional() -> String? {
        guard let index = remaining.firstIndex(where: { !$0.hasPrefix("--") }) else { return nil }
        return remaining.remove(at: index)
    }

    /// The next positional argument, left in place.
    func peek() -> String? { remaining.first(where: { !$0.hasPrefix("--") }) }

    /// Fails if anything was not taken.
    func finish() throws {
        if let unknown = unknownOption { throw CLIError.usage(unknown) }
        if let extra = remaining.first {
            throw CLIError.usage(extra.hasPrefix("-") ? "unknown option '\(extra)'" : "unexpected argument '\(extra)'")
        }
    }

    /// The first option left over that the command never asked for, said with the nearest one it knows; a command
    /// that failed for another reason (a missing argument) reports this instead, as the likelier mistake.
    var unknownOption: String? {
        guard let extra = remaining.first(where: { $0.hasPrefix("--") && $0.count > 2 }) else { return nil }
        let name = String(extra.prefix { $0 != "=" })
        guard !known.contains(name) else { return nil }
        let nearest = known.map { ($0, Self.distance(name, $0)) }.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
        if let nearest, nearest.1 <= max(2, name.count / 3) { return "unknown option '\(name)'; did you mean '\(nearest.0)'?" }
        return "unknown option '\(name)'"
    }

    /// Edit distance between two short words.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}

enum CLIError: Error, CustomStringConvertible {
    /// The command line is wrong; the message says how.
    case usage(String)
    /// Something failed; the message says what happened, what was kept, and what to do.
    case failed(String)

    var description: String {
        switch self {
        case .usage(let message), .failed(let message): message
        }
    }
}
