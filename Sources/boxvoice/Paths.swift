import Foundation

/// XDG locations (DESIGN.md "Storage").
enum Paths {
    private static var environment: [String: String] { ProcessInfo.processInfo.environment }
    private static var home: String { environment["HOME"] ?? NSHomeDirectory() }

    static var dataHome: String {
        if let value = environment["XDG_DATA_HOME"], value.hasPrefix("/") { return value }
        return home + "/.local/share"
    }

    /// `boxvoice.sqlite` (outbox, retention index) and `recordings/`.
    static var dataDirectory: String { dataHome + "/boxvoice" }

    static var configHome: String {
        if let value = environment["XDG_CONFIG_HOME"], value.hasPrefix("/") { return value }
        return home + "/.config"
    }

    /// `boxes.json` and `credentials.json`.
    static var configDirectory: String { configHome + "/boxvoice" }

    /// Recordings made without a box: `recordings/local/<timestamp>`.
    static var localRecordings: String { dataDirectory + "/recordings/local" }
}
