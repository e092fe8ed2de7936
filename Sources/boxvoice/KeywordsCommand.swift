enum KeywordsCommand: Command {
    static let name = "keywords"
    static let summary = "detect spoken keywords; validate golden vectors"
    static let usage = "Usage: boxvoice keywords detect TEXT | validate DIR"
    static func run(_ arguments: inout Arguments) throws -> Int32 { 2 }
}
