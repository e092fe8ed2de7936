import BoxVoiceTestSupport
import Foundation
import Testing

/// Numbers a user can type that used to crash or run away (SIGILL on 1e15, a 1.2 TB buffer, 2,000 files for 2 s):
/// each is a usage error (exit 2) that names the range, and nothing is recorded.
@Suite struct ArgumentErrorsTests {
    @Test(arguments: [
        (["record", "--max-seconds", "1e15"], "--max-seconds takes a number of seconds from 0.1 to 604800"),
        (
            ["record", "--max-seconds", "99999999999999999999"],
            "--max-seconds takes a number of seconds from 0.1 to 604800"
        ),
        (
            ["record", "--cut-search-seconds", "1e300"],
            "--cut-search-seconds takes a number of seconds from 0.02 to 3600"
        ),
        (["record", "--segment-seconds", "1e9"], "--segment-seconds takes a number of seconds from 1 to 3600"),
        (["record", "--segment-seconds", "0.001"], "--segment-seconds takes a number of seconds from 1 to 3600"),
        (["record", "--segment-seconds", "10", "--cut-search-seconds", "20"], "must be shorter than the segment"),
        (["record", "--max-seconds", "nan"], "--max-seconds takes a number of seconds"),
        (["listen", "--max-seconds", "1e15"], "--max-seconds takes a number of seconds from 0.1 to 604800"),
        (["listen", "--max-seconds", "-3"], "--max-seconds takes a number of seconds from 0.1 to 604800"),
        (["dictate", "--input", "x.wav", "--device", "mic"], "give --device or --input, not both"),
        (["dictate", "--local", "--box", "home"], "give --box or --local, not both"),
        (["pair", "--bogus"], "unknown option '--bogus'"),
        (["listen", "--max-secnds", "3"], "unknown option '--max-secnds'; did you mean '--max-seconds'?"),
    ])
    func aNumberOutOfRangeIsAUsageErrorNotACrash(_ arguments: [String], _ message: String) throws {
        let home = TemporaryDirectory("arguments")
        let result = try Run.process(
            Run.boxvoice, arguments + ["--device", "null"].filter { _ in arguments[0] == "record" },
            environment: Run.isolatedEnvironment(home))
        #expect(result.status == 2, "\(arguments): exit \(result.status) \(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.file("data/boxvoice/recordings")))
    }

    @Test func aMistypedCommandGetsASuggestion() throws {
        let result = try Run.boxvoice("dictat")
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown command 'dictat'; did you mean 'dictate'?"))
    }
}

@Suite struct RefusedRunTests {
    /// The box no longer accepts this device: `dictate --once` keeps the message in the outbox, says to re-pair, and
    /// exits 3, the code that means "the box refused a message" (it did not do what was asked).
    @Test func aRunWhoseMessageWasRefusedExitsThree() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("refused")
        let env = try Run.pairedEnvironment(home, with: box.server)
        try Run.revokeStoredToken(home)
        let run = try Run.process(
            Run.boxvoice,
            ["dictate", "--once", "--no-keys", "--session", "s1", "--input", Checkout.sample("send-buy-milk.wav")],
            environment: env)
        #expect(run.status == 3, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("boxvoice pair"), "\(run.stderr)")
        let outbox = try Run.process(Run.boxvoice, ["outbox"], environment: env)
        #expect(outbox.stdout.contains("failed"), "\(outbox.stdout)")
    }
}

@Suite struct ClearErrorTests {
    @Test(arguments: [
        (
            ["keywords", "validate", "/etc/hostname"],
            "'/etc/hostname' is not a folder of golden vectors (it is a file)"
        ),
        (
            ["keywords", "detect", "x", "--keywords", "/nonexistent/vocab.txt"],
            "cannot read the keyword vocabulary '/nonexistent/vocab.txt': there is no such file or folder"
        ),
        (
            ["transcribe", "/nonexistent/nope.wav"],
            "cannot read '/nonexistent/nope.wav': there is no such file or folder. Nothing was uploaded."
        ),
        (
            ["pair", "beebox://pair?baseURL=ftp%3A%2F%2Fbox.example%2Fmain&pairingToken=t"],
            "is not an http:// or https:// address"
        ),
        (["answer", "/etc"], "cannot read the request file '/etc': it is a folder. Nothing was answered."),
    ])
    func aBadPathOrAddressIsSaidInWordsNotAFoundationError(_ arguments: [String], _ message: String) throws {
        let home = TemporaryDirectory("clear-errors")
        let result = try Run.process(Run.boxvoice, arguments, environment: Run.isolatedEnvironment(home))
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("Error Domain"))
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
    }
}

@Suite struct OptionOrderTests {
    /// `--dir D FILE.wav`: the option's value is never taken for the WAV.
    @Test func filePCMTakesItsOptionsBeforeTheWAV() throws {
        let dir = TemporaryDirectory("file-pcm-order")
        let result = try Run.boxvoice("devices", "file-pcm", "--dir", dir.path, Checkout.sample("send-buy-milk.wav"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("boxvoice_file.asound.conf")))
    }

    /// Without --dir the PCM goes under the cache folder, not the working directory, and names its audio by an
    /// absolute path, so recording from it works from anywhere.
    @Test func filePCMGoesUnderTheCacheAndWorksFromAnyFolder() throws {
        let home = TemporaryDirectory("file-pcm-cache")
        let env = Run.isolatedEnvironment(home)
        let made = try Run.process(
            Run.boxvoice, ["devices", "file-pcm", "--name", "anywhere", Checkout.sample("none-weather.wav")],
            environment: env)
        #expect(made.status == 0, "\(made.stderr)")
        let config = home.file("cache/boxvoice/file-pcm/anywhere.asound.conf")
        let text = try String(contentsOfFile: config, encoding: .utf8)
        #expect(
            text.contains("\"" + home.file("cache/boxvoice/file-pcm/")),
            "the raw file is named by an absolute path: \(text)")
        let recorded = try Run.process(
            Run.boxvoice,
            [
                "record", "--alsa-config", config, "--device", "anywhere", "--max-seconds", "1",
                "--out", home.file("rec"),
            ], environment: env)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.file("rec/seg-0001.wav")))
    }
}
