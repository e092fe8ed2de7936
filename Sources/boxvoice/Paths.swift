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

    /// The user's settings (`boxvoice config`).
    static var settingsFile: String { configDirectory + "/config.json" }

    /// The command spotter tuned to this user's voice and microphone by `boxvoice calibrate`.
    static var calibratedSpotter: String { configDirectory + "/command-spotter.txt" }

    /// The acoustic model's adaptation to this user's voice and microphone, made by `boxvoice calibrate`.
    static var voiceAdaptation: String { configDirectory + "/voice-adaptation.mllr" }

    /// What `boxvoice calibrate` recorded (the user's own voice: private).
    static var calibrationRecordings: String { dataDirectory + "/calibration" }

    static var cacheHome: String {
        if let value = environment["XDG_CACHE_HOME"], value.hasPrefix("/") { return value }
        return home + "/.cache"
    }

    /// Files boxvoice can make again: the live recognizer's dictionary cut to its language model's words.
    static var cacheDirectory: String { cacheHome + "/boxvoice" }

    /// The embedded local box's own data (what it received).
    static var embeddedBoxDirectory: String { dataDirectory + "/local-box" }

    /// `boxvoice record`'s takes, which are not messages: `takes/<timestamp>`, apart from `recordings/`, whose folders
    /// belong to the message store (the embedded box's messages among them, under `recordings/local`).
    static var takes: String { dataDirectory + "/takes" }

    /// `$XDG_RUNTIME_DIR/boxvoice/`: the daemon's control socket and its lock. Without XDG_RUNTIME_DIR (no login
    /// session), a per-user folder under /tmp, created 0700.
    static var runtimeDirectory: String {
        if let value = environment["XDG_RUNTIME_DIR"], value.hasPrefix("/") { return value + "/boxvoice" }
        return "/tmp/boxvoice-\(getuid())"
    }

    static var controlSocket: String { runtimeDirectory + "/control.sock" }
}
