import BoxVoiceTestSupport
import Foundation
import Testing

/// `boxvoice config` and the settings file: set, show, unset; a flag beats a setting; a bad file names the key.
@Suite struct ConfigCommandTests {
    @Test func setShowUnsetAndPath() throws {
        let home = TemporaryDirectory("config")
        let env = Run.isolatedEnvironment(home)
        #expect(try Run.process(Run.boxvoice, ["config", "path"], environment: env).stdout == home.file("config") + "/boxvoice/config.json\n")
        #expect(try Run.process(Run.boxvoice, ["config", "set", "device", "hw:2"], environment: env).status == 0)
        #expect(try Run.process(Run.boxvoice, ["config", "set", "sounds", "true"], environment: env).status == 0)
        let file = try String(contentsOfFile: home.file("config/boxvoice/config.json"), encoding: .utf8)
        #expect(file.contains("\"device\" : \"hw:2\"") && file.contains("\"sounds\" : true"), "\(file)")
        let shown = try Run.process(Run.boxvoice, ["config", "show", "--json"], environment: env).stdout
        #expect(shown.contains("\"device\":\"hw:2\"") && shown.contains("\"sounds\":\"true\""), "\(shown)")
        #expect(try Run.process(Run.boxvoice, ["config", "unset", "device"], environment: env).status == 0)
        #expect(try Run.process(Run.boxvoice, ["config"], environment: env).stdout.contains("device            (not set)"))
        let wrong = try Run.process(Run.boxvoice, ["config", "set", "sounds", "yes"], environment: env)
        #expect(wrong.status == 2 && wrong.stderr == "boxvoice config: 'sounds' must be true or false, not 'yes' (`boxvoice config --help`)\n")
        let unknown = try Run.process(Run.boxvoice, ["config", "set", "devise", "x"], environment: env)
        #expect(unknown.status == 2 && unknown.stderr.contains("KEY must be device, box,"), "\(unknown.stderr)")
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
        #expect(try Run.process(Run.boxvoice, ["config", "set", "device", "no_such_mic"], environment: env).status == 0)
        let fromSetting = try Run.process(Run.boxvoice, ["listen", "--max-seconds", "1"], environment: env)
        #expect(fromSetting.status == 1 && fromSetting.stderr.contains("capture device 'no_such_mic' was not found"), "\(fromSetting.stderr)")
        let fromFlag = try Run.process(Run.boxvoice, ["listen", "--max-seconds", "1", "--device", "also_missing"], environment: env)
        #expect(fromFlag.stderr.contains("capture device 'also_missing' was not found"), "\(fromFlag.stderr)")
        let fromInput = try Run.process(Run.boxvoice, ["listen", "--input", Checkout.sample("send-buy-milk.wav")], environment: env)
        #expect(fromInput.status == 0, "--input needs no device: \(fromInput.stderr)")
    }
}
