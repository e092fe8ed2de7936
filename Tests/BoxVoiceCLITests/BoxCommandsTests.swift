import BoxSim
import BoxVoiceContract
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

/// `boxvoice pair`, `boxes` and `transcribe` as a user runs them, against boxsim over loopback.
@Suite struct BoxCommandsTests {
    final class Desk: @unchecked Sendable {
        let box: SimulatedBox
        let home = TemporaryDirectory("home")
        var environment: [String: String] { Run.isolatedEnvironment(home) }
        var credentials: String { home.file("config/boxvoice/credentials.json") }

        init(_ configure: (inout BoxSimConfiguration) -> Void = { _ in }) throws {
            box = try SimulatedBox(configure)
        }

        func run(_ arguments: String...) throws -> ProcessResult {
            try Run.process(Run.boxvoice, arguments, environment: environment)
        }

        /// Pairs through the CLI and registers the stored token as a secret for the leak scan.
        @discardableResult
        func pair(link: String? = nil) throws -> ProcessResult {
            let result = try run("pair", link ?? box.server.mintPairingLink(label: "Test Box"))
            if let data = FileManager.default.contents(atPath: credentials),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let tokens = object["tokens"] as? [String: String]
            {
                tokens.values.forEach(Secrets.register)
            }
            return result
        }
    }

    @Test func pairThenTranscribePrintsTheHQText() throws {
        let desk = try Desk { $0.hq = .fixed("Buy milk and eggs on the way home.") }
        let paired = try desk.pair()
        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(paired.stdout.contains("paired with 'Test Box'"))
        var info = stat()
        #expect(stat(desk.credentials, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let boxes = try String(contentsOfFile: desk.home.file("config/boxvoice/boxes.json"), encoding: .utf8)
        #expect(Secrets.leaked(in: boxes).isEmpty)

        let result = try desk.run("transcribe", Checkout.sample("send-buy-milk.wav"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Buy milk and eggs on the way home.\n")
        // `auto` with the link not measured yet sends Ogg Opus; `--codec wav` the recording's own Float32.
        let seen = try #require(desk.box.server.transcriptions.last)
        #expect(
            seen.container == "ogg-opus" && seen.filename == "segment.ogg" && seen.sampleRate == 48_000
                && seen.channels == 1)
        let asWAV = try desk.run("transcribe", "--codec", "wav", Checkout.sample("send-buy-milk.wav"))
        #expect(asWAV.stdout == "Buy milk and eggs on the way home.\n", "\(asWAV.stderr)")
        let wav = try #require(desk.box.server.transcriptions.last)
        #expect(wav.float32 == true && wav.sampleRate == 48_000 && wav.channels == 1 && wav.filename == "segment.wav")
        #expect(desk.box.server.devices.first?.label.hasPrefix("boxvoice on ") == true)
    }

    @Test func theLongClipMakesThreeUploadsJoinedInOrder() throws {
        let desk = try Desk { $0.hq = .describe }
        try desk.pair()
        let result = try desk.run("transcribe", "--json", Checkout.sample("long-meeting-notes.wav"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(desk.box.server.transcriptions.count == 3)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let segments = try #require(object["segments"] as? [[String: Any]])
        #expect(segments.map { $0["index"] as? Int } == [1, 2, 3])
        #expect(segments.allSatisfy { ($0["seconds"] as? Double ?? 99) <= 60 })
        // describe mode says how much audio each upload held: the joined text keeps segment order.
        let texts = segments.compactMap { $0["text"] as? String }
        #expect(object["text"] as? String == texts.joined(separator: " "))
        #expect(object["service"] as? String == "boxsim")
    }

    @Test func aLinkDeliveredTwiceRedeemsOnce() throws {
        let desk = try Desk()
        let link = desk.box.server.mintPairingLink()
        #expect(try desk.pair(link: link).status == 0)
        let again = try desk.pair(link: link)
        #expect(again.status == 0)
        #expect(again.stdout.contains("already paired"))
        #expect(desk.box.server.devices.count == 1)
    }

    @Test func aPermanentHQFailureIsReportedOnce() throws {
        let desk = try Desk { $0.hq = .fail(code: "missing_api_key") }
        try desk.pair()
        let result = try desk.run("transcribe", Checkout.sample("long-meeting-notes.wav"))
        #expect(result.status == 1)
        let finalLine = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(finalLine.contains("HQ transcription is unavailable on this box (missing_api_key"))
        #expect(finalLine.contains("of 3 segment(s) were transcribed"))
        #expect(result.stderr.components(separatedBy: "boxvoice transcribe:").count == 2)  // one error report
        #expect(desk.box.server.transcriptions.count <= 3)
    }

    @Test func credentialsReadableByOthersAreRefused() throws {
        let desk = try Desk()
        try desk.pair()
        chmod(desk.credentials, 0o644)
        let result = try desk.run("transcribe", Checkout.sample("none-weather.wav"))
        #expect(result.status == 1)
        #expect(result.stderr.contains("can be read by other users (mode 644)"))
        #expect(result.stderr.contains("chmod 600"))
        #expect(desk.box.server.transcriptions.isEmpty)
    }

    /// An unreadable list of paired boxes once read as "none paired": dictation went to the embedded box and `pair`
    /// replaced the list. Now every box command stops, says why, and leaves the file alone.
    @Test func anUnreadableBoxListStopsDictationAndPairingAndIsKept() throws {
        let desk = try Desk()
        try desk.pair()
        let list = desk.home.file("config/boxvoice/boxes.json")
        try FileManager.default.removeItem(atPath: list)
        // unreadable as a file
        try FileManager.default.createDirectory(atPath: list, withIntermediateDirectories: false)
        let dictated = try desk.run("dictate", "--input", Checkout.sample("send-buy-milk.wav"))
        #expect(dictated.status == 1)
        #expect(dictated.stderr.contains("cannot be read"), "\(dictated.stderr)")
        #expect(
            !FileManager.default.fileExists(atPath: desk.home.file("data/boxvoice/local-box/messages.json")),
            "nothing went to the embedded box")
        #expect(desk.box.server.messages.isEmpty)
        let paired = try desk.pair()
        #expect(paired.status == 1)
        var isFolder: ObjCBool = false
        #expect(
            FileManager.default.fileExists(atPath: list, isDirectory: &isFolder) && isFolder.boolValue,
            "the list was not written over")
    }

    /// A box paired with the label "Local" once took the embedded box's name, and `outbox send` delivered a draft
    /// dictated to the embedded box to it. The outbox now knows the two apart by type, and the name is not given.
    @Test func aDraftForTheEmbeddedBoxNeverGoesToABoxLabelledLocal() throws {
        let desk = try Desk()
        try desk.pair(link: desk.box.server.mintPairingLink(label: "Local"))
        let dictated = try desk.run(
            "dictate", "--local", "--on-eof", "draft", "--input", Checkout.sample("none-weather.wav"))
        #expect(dictated.status == 0, "\(dictated.stderr)")
        let store = try MessageStore(directory: desk.home.file("data/boxvoice"))
        let draft = try #require(try store.messages().first { $0.state == .draft })
        #expect(draft.box == .embedded)
        let sent = try desk.run("outbox", "send", draft.id.rawValue)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(desk.box.server.messages.isEmpty, "the paired box labelled Local received nothing")
        let received = try String(
            contentsOfFile: desk.home.file("data/boxvoice/local-box/messages.json"), encoding: .utf8)
        #expect(received.contains(draft.id.rawValue), "the embedded box received the draft")
        let listed = try desk.run("boxes")
        #expect(listed.stdout.contains("local-2"), "\(listed.stdout)")
    }

    @Test func boxesListSelectAndUnpair() throws {
        let desk = try Desk()
        let other = try SimulatedBox()
        try desk.pair(link: desk.box.server.mintPairingLink(label: "Work"))
        try desk.pair(link: other.server.mintPairingLink(label: "Home"))
        let list = try desk.run("boxes")
        #expect(list.stdout.contains("* home  Home"))
        #expect(list.stdout.contains("  work  Work"))
        #expect(try desk.run("boxes", "use", "work").status == 0)
        #expect(try desk.run("boxes").stdout.contains("* work  Work"))
        #expect(try desk.run("boxes", "unpair", "work").status == 0)
        let after = try desk.run("boxes", "--json")
        #expect(after.stdout.contains("\"name\":\"home\"") && !after.stdout.contains("\"name\":\"work\""))
        let credentials = try String(contentsOfFile: desk.credentials, encoding: .utf8)
        #expect(!credentials.contains("\"work\""))
        let missing = try desk.run("boxes", "use", "nowhere")
        #expect(missing.status == 1 && missing.stderr.contains("no paired box is named 'nowhere'"))
    }

    @Test func unpairDropsTheBoxsRetainedRecordings() throws {
        let desk = try Desk()
        let other = try SimulatedBox()
        try desk.pair(link: desk.box.server.mintPairingLink(label: "Work"))
        try desk.pair(link: other.server.mintPairingLink(label: "Home"))
        let data = desk.home.file("data/boxvoice")
        let store = try MessageStore(directory: data)
        var folders: [String: String] = [:]
        var ids: [String: MessageID] = [:]
        for (box, name) in [("work", "W1"), ("work", "W2"), ("home", "H1")] {
            let recording = try store.beginRecording(box: .paired(box), session: nil)
            try WAV.write([0.1, 0.2], to: recording.folder + "/seg-0001.wav")
            try store.commitSend(
                recording.id, MessageStore.Ending(heardText: "t", command: nil, liveText: "t"),
                liveBody: "<speech>t</speech>")
            folders[name] = recording.folder
            ids[name] = recording.id
        }
        let result = try desk.run("boxes", "unpair", "work")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("2 retained recording(s)"))
        #expect(try store.retainedRecordings(box: "work").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folders["W1"]!))
        #expect(try store.retainedRecordings(box: "home").map(\.messageId) == [ids["H1"]!])
    }

    @Test func transcribeWithoutAPairedBoxSaysHowToPair() throws {
        let desk = try Desk()
        let result = try desk.run("transcribe", Checkout.sample("none-weather.wav"))
        #expect(result.status == 1)
        #expect(result.stderr.contains("no box is paired"))
    }

    @Test func aBadLinkChangesNothing() throws {
        let desk = try Desk()
        let result = try desk.run("pair", "beebox://pair?baseURL=example.com%2Fbox&pairingToken=tok123")
        #expect(result.status == 1)
        #expect(result.stderr.contains("needs a scheme and a host"))
        #expect(!FileManager.default.fileExists(atPath: desk.home.file("config/boxvoice/boxes.json")))
    }

    @Test func aRefusedTicketChangesNothing() throws {
        let desk = try Desk()
        let link =
            "beebox://pair?baseURL=" + desk.box.baseURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            + "&pairingToken=forged"
        let result = try desk.run("pair", link)
        #expect(result.status == 1)
        #expect(result.stderr.contains("Pairing code is invalid or expired."))
        #expect(result.stderr.contains("Nothing was changed"))
        #expect(!FileManager.default.fileExists(atPath: desk.credentials))
    }

    @Test func aDirectTokenNeedsTheSwitch() throws {
        let desk = try Desk()
        let base = desk.box.baseURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let link = "beebox://pair?baseURL=\(base)&authToken=raw-device-token-123"
        Secrets.register("raw-device-token-123")
        let refused = try desk.run("pair", link)
        #expect(refused.status == 1 && refused.stderr.contains("no pairing ticket"))
        let accepted = try desk.run("pair", "--allow-direct-token", link)
        #expect(accepted.status == 0)
        #expect(try String(contentsOfFile: desk.credentials, encoding: .utf8).contains("raw-device-token-123"))
    }
}

@Suite struct SecretScanTests {
    @Test func theLeakScanFindsARegisteredToken() throws {
        Secrets.register("probe-secret-for-the-scanner")
        #expect(Secrets.leaked(in: "before probe-secret-for-the-scanner after") == ["probe-secret-for-the-scanner"])
        #expect(Secrets.leaked(in: "nothing here").isEmpty)
    }
}

@Suite struct RePairTests {
    /// The box stopped accepting the device (401); pairing it again with a fresh link replaces the token in place: the
    /// same name, and the message the 401 left in the outbox and its recording are still that box's.
    @Test func rePairingKeepsTheBoxsNameOutboxAndRecordings() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("repair")
        let env = try Run.pairedEnvironment(home, with: box.server)
        let path = home.file("config/boxvoice/credentials.json")
        let name = try Run.revokeStoredToken(home)
        let refused = try Run.process(
            Run.boxvoice, ["dictate", "--once", "--no-keys", "--input", Checkout.sample("send-buy-milk.wav")],
            environment: env)
        #expect(refused.status == 3, "the box refused the message: \(refused.stderr)")
        #expect(
            try Run.process(Run.boxvoice, ["boxes", "--json"], environment: env).stdout.contains(
                "\"health\":\"needs-re-pair\""))

        let paired = try Run.process(
            Run.boxvoice, ["pair", box.server.mintPairingLink(label: "Bee Box")], environment: env)
        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(paired.stdout.contains("as '\(name)'"), "the same name: \(paired.stdout)")
        let boxes = try Run.process(Run.boxvoice, ["boxes", "--json"], environment: env)
        #expect(boxes.stdout.components(separatedBy: "\"name\"").count == 2, "one box, not a second: \(boxes.stdout)")
        #expect(boxes.stdout.contains("\"health\":\"ok\""), "re-paired: \(boxes.stdout)")
        let newToken = try #require(
            (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])?[
                "tokens"] as? [String: String])
        newToken.values.forEach(Secrets.register)

        // The message refused for the old token is still this box's, pending again, and goes out with the new one.
        #expect(
            paired.stderr.contains("1 message(s) refused for the old device token are pending again"),
            "\(paired.stderr)")
        let listed = try Run.process(Run.boxvoice, ["outbox", "--json"], environment: env)
        let rows = listed.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let pending = try #require(rows.first { $0["state"] as? String == "pending" })
        #expect(pending["box"] as? String == name)
        let id = try #require(pending["messageId"] as? String)
        let sent = try Run.process(Run.boxvoice, ["outbox", "retry"], environment: env)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(box.server.messages.map(\.messageId) == [id])
        // Its HQ, refused with the old token too, was redone from its recording before the send.
        #expect(box.server.messages.first?.message.contains("boxsim heard") == true, "\(box.server.messages)")
        #expect(
            try Run.process(Run.boxvoice, ["recordings", "--json", "--box", name], environment: env).stdout.contains(id)
        )
    }
}
