import BoxVoiceTestSupport
import Foundation
import Testing

/// `boxvoice config` and the settings file: set, show, unset; a flag beats a setting; a bad file names the key.
@Suite struct ConfigCommandTests {
    @Test func setShowUnsetAndPath() throws {
        let home = TemporaryDirectory("config")
        let env = Run.isolatedEnvironment(home)
        #expect(
            try Run.process(Run.boxvoice, ["config", "path"], environment: env).stdout == home.file("config")
                + "/boxvoice/config.json\n")
        #expect(try Run.process(Run.boxvoice, ["config", "set", "device", "null"], environment: env).status == 0)
        #expect(try Run.process(Run.boxvoice, ["config", "set", "sounds", "true"], environment: env).status == 0)
        let file = try String(contentsOfFile: home.file("config/boxvoice/config.json"), encoding: .utf8)
        #expect(file.contains("\"device\" : \"null\"") && file.contains("\"sounds\" : true"), "\(file)")
        let shown = try Run.process(Run.boxvoice, ["config", "show", "--json"], environment: env).stdout
        #expect(shown.contains("\"device\":\"null\"") && shown.contains("\"sounds\":\"true\""), "\(shown)")
        #expect(try Run.process(Run.boxvoice, ["config", "unset", "device"], environment: env).status == 0)
        #expect(
            try Run.process(Run.boxvoice, ["config"], environment: env).stdout.contains("device            (not set)"))
        let wrong = try Run.process(Run.boxvoice, ["config", "set", "sounds", "yes"], environment: env)
        #expect(
            wrong.status == 2
                && wrong.stderr
                    == "boxvoice config: 'sounds' must be true or false, not 'yes' (`boxvoice config --help`)\n"
        )
        let unknown = try Run.process(Run.boxvoice, ["config", "set", "devise", "x"], environment: env)
        #expect(unknown.status == 2, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("KEY must be device, alsa-config, box,"), "\(unknown.stderr)")
    }

    @Test(arguments: [
        (#"{"sounds": "yes"}"#, "has a bad setting: 'sounds' must be true or false (without quotes), not \"yes\""),
        (#"{"devise": "hw:1"}"#, "'devise' is not a setting; did you mean 'device'?"),
        (#"{"on-eof": "later"}"#, "'on-eof' must be one of send, draft, discard, not 'later'"),
        (#"{"device": 3}"#, "'device' must be text"),
        ("not json", "is not a JSON object of settings"),
    ])
    func aBadSettingsFileStopsTheCommandNamingTheKey(_ text: String, _ message: String) throws {
        let home = TemporaryDirectory("config-bad")
        let env = Run.isolatedEnvironment(home)
        try FileManager.default.createDirectory(atPath: home.file("config/boxvoice"), withIntermediateDirectories: true)
        try text.write(toFile: home.file("config/boxvoice/config.json"), atomically: true, encoding: .utf8)
        for command in [["config", "show"], ["dictate", "--input", Checkout.sample("send-buy-milk.wav")]] {
            let result = try Run.process(Run.boxvoice, command, environment: env)
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: home.file("data/boxvoice/boxvoice.sqlite")), "nothing was done")
    }

    /// The setting is used when no flag says otherwise; a flag wins.
    @Test func aFlagOverridesTheSetting() throws {
        let home = TemporaryDirectory("config-override")
        let env = Run.isolatedEnvironment(home)
        // Written by hand: `config set` refuses a device ALSA cannot find.
        try FileManager.default.createDirectory(atPath: home.file("config/boxvoice"), withIntermediateDirectories: true)
        try #"{"device": "no_such_mic"}"#.write(
            toFile: home.file("config/boxvoice/config.json"), atomically: true, encoding: .utf8)
        let fromSetting = try Run.process(Run.boxvoice, ["listen", "--max-seconds", "1"], environment: env)
        #expect(
            fromSetting.status == 1 && fromSetting.stderr.contains("capture device 'no_such_mic' was not found"),
            "\(fromSetting.stderr)")
        let fromFlag = try Run.process(
            Run.boxvoice, ["listen", "--max-seconds", "1", "--device", "also_missing"], environment: env)
        #expect(fromFlag.stderr.contains("capture device 'also_missing' was not found"), "\(fromFlag.stderr)")
        let fromInput = try Run.process(
            Run.boxvoice, ["listen", "--input", Checkout.sample("send-buy-milk.wav")], environment: env)
        #expect(fromInput.status == 0, "--input needs no device: \(fromInput.stderr)")
    }

    /// `set`, `unset` and `reset` are how a damaged file is repaired: they work on it, keep what can be used, and
    /// say what they removed.
    @Test func setUnsetAndResetRepairADamagedFileSayingWhatTheyRemoved() throws {
        let home = TemporaryDirectory("config-repair")
        let env = Run.isolatedEnvironment(home)
        let path = home.file("config/boxvoice/config.json")
        try FileManager.default.createDirectory(atPath: home.file("config/boxvoice"), withIntermediateDirectories: true)
        try #"{"sounds": true, "colour": "blue", "on-eof": "later"}"#.write(
            toFile: path, atomically: true, encoding: .utf8)
        let shown = try Run.process(Run.boxvoice, ["config", "show"], environment: env)
        #expect(shown.status == 1 && shown.stderr.contains("config reset"), "\(shown.stderr)")
        let set = try Run.process(Run.boxvoice, ["config", "set", "notifications", "false"], environment: env)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(
            set.stderr.contains("removed from the damaged settings file: 'colour' is not a setting"), "\(set.stderr)")
        #expect(set.stderr.contains("'on-eof' must be one of"), "\(set.stderr)")
        let repaired = try String(contentsOfFile: path, encoding: .utf8)
        #expect(repaired.contains("\"sounds\" : true") && repaired.contains("\"notifications\" : false"), "\(repaired)")
        #expect(!repaired.contains("colour") && !repaired.contains("later"), "\(repaired)")
        #expect(try Run.process(Run.boxvoice, ["config", "show"], environment: env).status == 0)

        try "not json".write(toFile: path, atomically: true, encoding: .utf8)
        let reset = try Run.process(Run.boxvoice, ["config", "reset"], environment: env)
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stderr.contains("is not a JSON object of settings"), "\(reset.stderr)")
        #expect(try Run.process(Run.boxvoice, ["config", "show"], environment: env).status == 0)
        #expect(try Run.process(Run.boxvoice, ["config", "set", "sounds", "true"], environment: env).status == 0)
        let again = try Run.process(Run.boxvoice, ["config", "reset"], environment: env)
        #expect(again.stdout == "removed: sounds (true)\n", "\(again.stdout)")
    }

    /// A value must name something that exists now, or it would only fail later at a hotkey with no terminal.
    @Test func setRefusesABoxAFileOrADeviceThatDoesNotExist() throws {
        let home = TemporaryDirectory("config-check")
        var env = Run.isolatedEnvironment(home)
        let onlyNull = home.file("only-null.conf")
        try #"pcm.null { type null hint { show on description "silence" } }"#.write(
            toFile: onlyNull, atomically: true, encoding: .utf8)
        env["ALSA_CONFIG_PATH"] = onlyNull
        let refused: [([String], String)] = [
            (["box", "nosuchbox"], "no paired box is named 'nosuchbox' (none is paired"),
            (["vocabulary", home.file("missing.txt")], "cannot read the keyword vocabulary"),
            (["alsa-config", home.file("missing.conf")], "cannot read"),
            (["device", "no_such_mic"], "ALSA has no capture device 'no_such_mic' (listed: null)"),
        ]
        for (arguments, message) in refused {
            let result = try Run.process(Run.boxvoice, ["config", "set"] + arguments, environment: env)
            #expect(result.status != 0 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(
            !FileManager.default.fileExists(atPath: home.file("config/boxvoice/config.json")), "nothing was written")
        #expect(try Run.process(Run.boxvoice, ["config", "set", "device", "null"], environment: env).status == 0)
        #expect(
            try Run.process(Run.boxvoice, ["config", "set", "alsa-config", onlyNull], environment: env).status == 0)
    }
}
