import Foundation

/// A `beebox://pair?…` link (contract §6), as a box's pairing screen shows it.
public struct PairingLink: Sendable, Equatable {
    public var baseURL: String
    public var label: String
    /// The single-use ticket to redeem for a device token.
    public var pairingToken: String?
    /// The chat session the link suggests dictating into.
    public var session: String?
    /// A raw device token, imported without redeem — only when the user explicitly allowed it.
    public var authToken: String?

    public static let defaultLabel = "Bee Box"

    public enum Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        case notAPairingLink
        case missingBaseURL
        case invalidBaseURL(String)

        public var description: String {
            switch self {
            case .notAPairingLink: "this is not a box pairing link (it should start with beebox://pair?)"
            case .missingBaseURL: "the pairing link names no box address (baseURL)"
            case .invalidBaseURL(let url):
                "the pairing link's box address '\(url)' needs a scheme and a host, like https://box.example/main"
            }
        }
    }

    public init(
        baseURL: String, label: String = PairingLink.defaultLabel, pairingToken: String? = nil,
        session: String? = nil, authToken: String? = nil
    ) {
        self.baseURL = baseURL
        self.label = label
        self.pairingToken = pairingToken
        self.session = session
        self.authToken = authToken
    }

    /// Parses a link. Parameters are form-encoded (`+` is a space); `url` and `token` are aliases of
    /// `baseURL` and `pairingToken`. `authToken` is honoured only with `allowDirectToken` (a testing switch).
    public static func parse(_ link: String, allowDirectToken: Bool = false) throws(Rejection) -> PairingLink {
        let trimmed = link.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let schemeEnd = trimmed.range(of: "://"),
            trimmed[..<schemeEnd.lowerBound].lowercased() == "beebox"
        else { throw .notAPairingLink }
        let rest = trimmed[schemeEnd.upperBound...]
        let hostEnd = rest.firstIndex { $0 == "?" || $0 == "/" || $0 == "#" } ?? rest.endIndex
        guard rest[..<hostEnd].lowercased() == "pair" else { throw .notAPairingLink }
        var query = rest[hostEnd...].drop { $0 == "/" }
        guard query.first == "?" else { throw .missingBaseURL }
        query = query.dropFirst()
        if let fragment = query.firstIndex(of: "#") { query = query[..<fragment] }

        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = formDecode(parts[0]) else { continue }
            let value = parts.count > 1 ? formDecode(parts[1]) ?? "" : ""
            if parameters[name] == nil { parameters[name] = value }  // the first occurrence wins
        }
        func value(_ names: String...) -> String? {
            for name in names { if let value = parameters[name], !value.isEmpty { return value } }
            return nil
        }
        guard let baseURL = value("baseURL", "url") else { throw .missingBaseURL }
        guard let components = URLComponents(string: baseURL), let scheme = components.scheme, !scheme.isEmpty,
            let host = components.host, !host.isEmpty
        else { throw .invalidBaseURL(baseURL) }
        return PairingLink(
            baseURL: baseURL, label: value("label") ?? defaultLabel, pairingToken: value("pairingToken", "token"),
            session: value("session"), authToken: allowDirectToken ? value("authToken") : nil)
    }

    private static func formDecode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
