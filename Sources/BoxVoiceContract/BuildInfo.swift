import CBuildInfo

/// What was built: the project's version (kept equal to the `VERSION` file by a test) and the git commit `make`
/// passed in ("unknown" from a plain `swift build`).
public enum BuildInfo {
    public static let version = "0.2.0"
    public static let commit = String(cString: boxvoice_build_commit())

    /// `boxvoice 0.2.0 (commit 1a2b3c4d5e6f)`.
    public static func line(program: String) -> String { "\(program) \(version) (commit \(commit))" }
}
