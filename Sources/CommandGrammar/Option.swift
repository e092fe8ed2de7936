/// An option as a command both declares and reads it. The read takes the same value the grammar was built from, so it
/// can only name an option that exists, and it gets the value in the type the option's kind gives (a number as
/// `Double`, a list as `[String]`, a flag as `Bool`): a misspelt name or a wrong type is a compile error, not a
/// silent nil at run time.
public struct Option<Value: Sendable>: OptionDeclaration {
    public let spec: OptionSpec
    let read: @Sendable (String) -> Value?

    private init(_ spec: OptionSpec, read: @escaping @Sendable (String) -> Value?) {
        self.spec = spec
        self.read = read
    }
}

/// Anything a `CommandSpec` lists among its options: an `Option` of any value type, or a bare `OptionSpec`.
public protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}

extension OptionSpec: OptionDeclaration {
    public var spec: OptionSpec { self }
}

extension Option where Value == Bool {
    /// Present or absent.
    public static func flag(_ name: String, help: String) -> Self {
        Self(OptionSpec(name, help: help)) { _ in true }
    }
}

extension Option where Value == String {
    /// Any non-empty text.
    public static func text(
        _ name: String, placeholder: String? = nil, default value: String? = nil, defaultNote: String? = nil,
        help: String
    ) -> Self {
        Self(OptionSpec(name, .text, placeholder: placeholder, default: value, defaultNote: defaultNote, help: help)) {
            $0
        }
    }

    /// A file or folder.
    public static func path(
        _ name: String, placeholder: String? = nil, default value: String? = nil, defaultNote: String? = nil,
        help: String
    ) -> Self {
        Self(OptionSpec(name, .path, placeholder: placeholder, default: value, defaultNote: defaultNote, help: help)) {
            $0
        }
    }

    /// One of `words`.
    public static func choice(
        _ name: String, _ words: [String], placeholder: String? = nil, default value: String? = nil,
        defaultNote: String? = nil, help: String
    ) -> Self {
        Self(
            OptionSpec(
                name, .choice(words), placeholder: placeholder, default: value, defaultNote: defaultNote, help: help)
        ) { $0 }
    }
}

extension Option where Value == Double {
    /// A finite decimal number within `range`.
    public static func number(
        _ name: String, _ range: ClosedRange<Double>, unit: String, placeholder: String? = nil,
        default value: String? = nil, defaultNote: String? = nil, help: String
    ) -> Self {
        Self(
            OptionSpec(
                name, .number(range, unit: unit), placeholder: placeholder, default: value, defaultNote: defaultNote,
                help: help), read: ValueCheck.decimal)
    }
}

extension Option where Value == Int {
    /// A whole number within `range`.
    public static func integer(
        _ name: String, _ range: ClosedRange<Int>, unit: String, placeholder: String? = nil,
        default value: String? = nil, defaultNote: String? = nil, help: String
    ) -> Self {
        Self(
            OptionSpec(
                name, .integer(range, unit: unit), placeholder: placeholder, default: value, defaultNote: defaultNote,
                help: help), read: ValueCheck.whole)
    }
}

extension Option where Value == [String] {
    /// Comma-separated words, each one of `allowed` (anything when empty), read lowercased.
    public static func list(
        _ name: String, allowed: [String] = [], placeholder: String? = nil, default value: String? = nil,
        defaultNote: String? = nil, help: String
    ) -> Self {
        Self(
            OptionSpec(
                name, .list(allowed: allowed), placeholder: placeholder, default: value, defaultNote: defaultNote,
                help: help), read: ValueCheck.items)
    }
}
