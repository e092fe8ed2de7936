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
