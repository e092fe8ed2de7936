/// A hand-written command-line reader: options are taken by name, what is left is positional,
/// and anything not taken is an error (so a typo never passes silently).
struct Arguments {
    private var remaining: [String]

    init(_ arguments: some Sequence<String>) {
        remaining = Array(arguments)
    }

    var isEmpty: Bool { remaining.isEmpty }

    /// Removes `name` if present.
    mutating func flag(_ name: String) -> Bool {
        guard let index = remaining.firstIndex(of: name) else { return false }
        remaining.remove(at: index)
        return true
    }

    /// Removes `name VALUE` or `name=VALUE`, returning VALUE.
    mutating func option(_ name: String) throws -> String? {
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
        if let extra = remaining.first {
            throw CLIError.usage(extra.hasPrefix("-") ? "unknown option '\(extra)'" : "unexpected argument '\(extra)'")
        }
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
