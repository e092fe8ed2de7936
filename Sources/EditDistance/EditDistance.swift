/// Levenshtein distance between two sequences: the fewest insertions, deletions and substitutions that turn one into
/// the other. Shared by the command-line parser's "did you mean" (characters) and the spoken-command matcher (phones).
public func editDistance<C: Collection>(_ a: C, _ b: C) -> Int where C.Element: Equatable {
    let a = Array(a), b = Array(b)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var row = Array(0...b.count)
    for i in 1...a.count {
        var diagonal = row[0]
        row[0] = i
        for j in 1...b.count {
            let above = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
            diagonal = above
        }
    }
    return row[b.count]
}

/// Edit distance where some elements cost less to lose, add or mistake than others: inserting or deleting `x` costs
/// `cost(x)`, substituting `x` and `y` (unequal) the lesser of theirs. With every cost 1 it is `editDistance(_:_:)`.
public func editDistance<C: Collection>(_ a: C, _ b: C, cost: (C.Element) -> Double) -> Double
where C.Element: Equatable {
    let a = Array(a), b = Array(b)
    var row = [0.0]
    for element in b { row.append(row.last! + cost(element)) }
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var diagonal = row[0]
        row[0] += cost(a[i - 1])
        for j in stride(from: 1, through: b.count, by: 1) {
            let above = row[j]
            let substitution = a[i - 1] == b[j - 1] ? 0 : min(cost(a[i - 1]), cost(b[j - 1]))
            row[j] = min(row[j] + cost(a[i - 1]), row[j - 1] + cost(b[j - 1]), diagonal + substitution)
            diagonal = above
        }
    }
    return row[b.count]
}

/// The closest known word to a mistyped one, if it is close enough to be what was meant.
public enum Suggestion {
    public static func nearest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word, $0)) }.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
        guard let scored, scored.1 <= max(2, word.count / 3), scored.1 < word.count else { return nil }
        return scored.0
    }

    /// Levenshtein distance over characters.
    public static func distance(_ a: String, _ b: String) -> Int { editDistance(a, b) }
}
