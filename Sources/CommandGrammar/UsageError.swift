/// A command line that cannot be run, said in one line that names what is wrong (exit status 2).
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        case unknownCommand, unknownVerb, missingVerb, unknownOption, optionOfAnotherVerb, missingValue, unexpectedValue
        case badValue, repeatedOption, conflict, missingArgument, unexpectedArgument, inconsistent
    }

    public let code: Code
    public let message: String
    /// The option or argument at fault, when there is one.
    public let subject: String?

    public init(_ code: Code, _ message: String, subject: String? = nil) {
        self.code = code
        self.message = message
        self.subject = subject
    }

    public var description: String { message }
}
