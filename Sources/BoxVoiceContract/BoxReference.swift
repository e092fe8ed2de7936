/// Which box something belongs to — a message, a recording, a delivery, a run: the embedded local box, or a paired
/// box by its name. The two cannot be mistaken for each other: a paired box labelled "Local" once received what was
/// dictated to the embedded box, because both were the string "local".
public enum BoxReference: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The embedded local box `dictate` uses when none is paired (boxsim in-process).
    case embedded
    /// A paired box; never named `embeddedName` (the registry refuses that name).
    case paired(String)

    /// The embedded box's name in the store, its folder and every listing; no paired box may take it.
    public static let embeddedName = "local"

    /// As the store keys rows and folders.
    public var storeKey: String {
        switch self {
        case .embedded: Self.embeddedName
        case .paired(let name): name
        }
    }

    /// From a store key (a row's `box` column, a folder's name).
    public init(storeKey: String) {
        self = storeKey == Self.embeddedName ? .embedded : .paired(storeKey)
    }

    /// Literals name boxes as the store keys them (tests, defaults).
    public init(stringLiteral value: String) { self.init(storeKey: value) }

    public var description: String { storeKey }
}
