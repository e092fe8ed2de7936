import Foundation

/// A child process run to its end or for at most a deadline, telling a signal apart from an exit status: what a fuzz
/// test needs to count crashes and hangs. posix_spawn and poll directly: Foundation's Process costs ~20 ms of system
/// time per child here, which ten thousand children turn into minutes.
public enum BoundedRun {
    public struct Result: Sendable {
        public let status: Int32
        public let signal: Int32?
        public let timedOut: Bool
        public let stdout: String
        public let stderr: String
    }

    /// - Parameter directory: the child's working directory (a program that writes beside itself writes there).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], seconds: TimeInterval,
        directory: String? = nil
    ) -> Result {
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { return failed("pipe: \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        // A working directory through the shell (Swift's Glibc has no posix_spawn_file_actions_addchdir_np): `exec`
        // keeps the pid, so the exit status and any signal are the program's own; "$@" passes every word as it is.
        let command = directory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0, executable] } ?? [executable]
        let argv = (command + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // The child starts with no signal blocked and default handlers: a test runner's threads block signals, and a
        // child that inherits that (a tmux server waiting for SIGCHLD) does not work.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0]); close(errPipe[0])
            return failed("posix_spawn: \(spawned)")
        }
        var output = [Data(), Data()]
        var open = [outPipe[0], errPipe[0]]
        let deadline = Date().addingTimeInterval(seconds)
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while open.contains(where: { $0 >= 0 }) {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 {
                timedOut = true
                kill(pid, SIGKILL)
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), Int32(min(left, 1) * 1000)) >= 0 || errno == EINTR else { break }
            for (index, entry) in fds.enumerated() where entry.fd >= 0 && entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    output[index].append(contentsOf: buffer[..<count])
                } else {
                    close(entry.fd); open[index] = -1
                }
            }
        }
        for fd in open where fd >= 0 { close(fd) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS are macros Swift does not import.
        let signal = status & 0x7F
        let signaled = signal != 0 && signal != 0x7F
        return Result(
            status: signaled ? -1 : (status >> 8) & 0xFF, signal: signaled && !timedOut ? signal : nil,
            timedOut: timedOut,
            stdout: String(decoding: output[0], as: UTF8.self), stderr: String(decoding: output[1], as: UTF8.self))
    }

    private static func failed(_ reason: String) -> Result {
        Result(status: -1, signal: nil, timedOut: false, stdout: "", stderr: "cannot start: \(reason)")
    }
}

extension SeededRandom {
    /// A number in 0..<bound.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
