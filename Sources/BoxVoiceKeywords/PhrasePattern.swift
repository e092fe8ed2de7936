/// One line of the vocabulary: a phrase pattern over words, with choices and optional parts.
public indirect enum PhrasePattern: Sendable, Equatable {
    /// A normalized word.
    case word(String)
    case sequence([PhrasePattern])
    case choice([PhrasePattern])
    case optional(PhrasePattern)

    /// Every word list the pattern accepts, each once, shortest-first within a choice's order.
    public func expansions() -> [[String]] {
        switch self {
        case .word(let word):
            return [[word]]
        case .sequence(let parts):
            var lists: [[String]] = [[]]
            for part in parts {
                let tails = part.expansions()
                lists = lists.flatMap { head in tails.map { head + $0 } }
            }
            return lists
        case .choice(let options):
            var seen = Set<[String]>()
            return options.flatMap { $0.expansions() }.filter { seen.insert($0).inserted }
        case .optional(let inner):
            var seen = Set<[String]>([[]])
            return [[]] + inner.expansions().filter { seen.insert($0).inserted }
        }
    }
}
