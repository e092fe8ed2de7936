extension StringProtocol {
    /// Without leading and trailing white space (Unicode White_Space, plus U+FEFF), like the box's `String.trim()`.
    /// Native, because bridging a long transcript through NSString for this costs more than detecting in it.
    func trimmedLikeTheBox() -> String {
        let scalars = unicodeScalars
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace || scalar == "\u{FEFF}" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(self[first..<scalars.index(after: last)])
    }
}
