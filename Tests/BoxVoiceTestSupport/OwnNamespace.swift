import Foundation

#if canImport(Testing)
    import Testing
#endif

/// A test that needs a small disk of its own, to run out of space for real (ENOSPC), mounts a tmpfs. That takes no
/// root: the test runs again in a user and mount namespace of its own (`unshare --user --map-root-user --mount`),
/// where it is root over its own mounts, and what it mounts there no one else sees and goes with the run. The
/// programs it starts inherit the namespace.
public enum OwnNamespace {
    private static let marker = "BOXVOICE_TEST_IN_OWN_NAMESPACE"

    /// True in the run inside the namespace: go on with the test. In the ordinary run, runs the test named `test`
    /// (its function name) again inside one, records an issue unless it passed there, and returns false.
    public static func enter(_ test: String) throws -> Bool {
        if ProcessInfo.processInfo.environment[marker] == "1" { return true }
        var environment = ProcessInfo.processInfo.environment
        environment[marker] = "1"
        let testBinary =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let run = try Run.process(
            "/usr/bin/unshare",
            [
                "--user", "--map-root-user", "--mount", testBinary, "--testing-library", "swift-testing", "--filter",
                test,
            ], environment: environment)
        // swift-testing reports on stderr; a filter that matched nothing would pass with no test run.
        let report = run.stdout + run.stderr
        let passed = run.status == 0 && report.contains("Test \(test)") && !report.contains("with 0 tests")
        #if canImport(Testing)
            #expect(passed, "\(test) in its own namespace (exit \(run.status)): \(report.suffix(4_000))")
        #endif
        return false
    }
}
