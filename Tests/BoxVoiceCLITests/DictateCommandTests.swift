import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct DictateCommandTests {
    @Test func withNoPairedBoxItDeliversToTheEmbeddedLocalBox() throws {
        let home = TemporaryDirectory("dictate-cli")
        let result = try Run.process(
            Run.boxvoice, ["dictate", "--input", Checkout.sample("send-buy-milk.wav")],
            environment: Run.isolatedEnvironment(home))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("dictating to the embedded local box"))
        // The message as said; its speech framing only with --raw (the inbox below shows it as the box got it).
        #expect(result.stdout.contains("buy milk") && !result.stdout.contains("<speech"), "\(result.stdout)")
        #expect(!result.stdout.contains("<send-message"), "the command as said, not its tag: \(result.stdout)")
        #expect(result.stdout.contains("delivered "))
        // The local box kept what it received, like a box would, and `inbox` shows it.
        let received = try String(contentsOfFile: home.file("data/boxvoice/local-box/messages.json"), encoding: .utf8)
        #expect(received.contains("send-message"))
        let inbox = try Run.process(Run.boxvoice, ["inbox"], environment: Run.isolatedEnvironment(home))
        #expect(inbox.status == 0)
        #expect(inbox.stdout.lowercased().contains("buy milk") && !inbox.stdout.contains("<"), "\(inbox.stdout)")
        // The embedded box's HQ is Whisper, as a real box's is a real recognizer.
        let raw = try Run.process(Run.boxvoice, ["inbox", "--raw"], environment: Run.isolatedEnvironment(home))
        #expect(raw.stdout.contains("<speech stt-service=\"whisper\" message-id=\""))
        let empty = try Run.process(
            Run.boxvoice, ["inbox"], environment: Run.isolatedEnvironment(TemporaryDirectory("empty-inbox")))
        #expect(empty.stdout.hasPrefix("The local box has received nothing yet."))
    }

    /// One NaN, ±Inf or 1e30 in a Float32 recording trapped the live recognizer's conversion (SIGILL).
    @Test func aRecordingWithNaNAndInfiniteSamplesIsDictatedAndDelivered() throws {
        let home = TemporaryDirectory("dictate-nan")
        var samples = try WAV.samples(Checkout.sample("send-buy-milk.wav"))
        for (index, bad) in [(1_000, Float.nan), (20_000, .infinity), (40_000, -.infinity), (60_000, 1e30)] {
            samples[index] = bad
        }
        try WAV.write(samples, to: home.file("damaged.wav"))
        let result = try Run.process(
            Run.boxvoice, ["dictate", "--input", home.file("damaged.wav")], environment: Run.isolatedEnvironment(home))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("delivered "), "\(result.stdout)")
    }

    @Test func toAPairedBoxWithJSONEvents() throws {
        let box = try SimulatedBox {
            $0.hq = .fixed("Dinner is at eight. Send message."); $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("dictate-cli")
        let env = try Run.pairedEnvironment(home, with: box.server)
        let result = try Run.process(
            Run.boxvoice, ["dictate", "--json", "--input", Checkout.sample("send-buy-milk.wav")], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        let events = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let names = events.compactMap { $0["event"] as? String }
        #expect(names.first == "listening")
        for expected in ["final", "keyword", "segment", "queued", "delivered"] {
            #expect(names.contains(expected), "\(expected) missing: \(names)")
        }
        #expect(box.server.messages.count == 1)
        #expect(
            box.server.messages.first?.message.contains(
                ">Dinner is at eight. <send-message phrase=\"Send message\" />.</speech>") == true)
        #expect(box.server.messages.first?.session == "s1")
    }

    /// `--keywords` swaps the vocabulary: here "send message" is made a cancel, so the clip that ends on it is
    /// dropped.
    @Test func anotherVocabularyDecidesWhatTheCommandsAre() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("dictate-vocabulary")
        let env = try Run.pairedEnvironment(home, with: box.server)
        let vocabulary = home.file("words.txt")
        try "[cancel cancel-message]\nsend message\n".write(toFile: vocabulary, atomically: true, encoding: .utf8)
        let result = try Run.process(
            Run.boxvoice,
            ["dictate", "--json", "--keywords", vocabulary, "--input", Checkout.sample("send-buy-milk.wav")],
            environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"action\":\"cancel\""), "\(result.stdout)")
        #expect(box.server.messages.isEmpty)

        let missing = try Run.process(
            Run.boxvoice,
            ["dictate", "--keywords", home.file("nope.txt"), "--input", Checkout.sample("send-buy-milk.wav")],
            environment: env)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot read the keyword vocabulary"), "\(missing.stderr)")
    }

    @Test func aBadEndOfInputPolicyIsAUsageError() throws {
        let result = try Run.boxvoice("dictate", "--on-eof", "later")
        #expect(result.status == 2)
        #expect(result.stderr.contains("--on-eof must be send, draft or discard"))
    }
}

@Suite struct OutboxCommandTests {
    /// Drafts are messages: sending one later runs HQ on its audio, keeps no mic-off words, and retains its recording,
    /// so the box's retranscription request for it is answered.
    @Test func aMicOffDraftIsListedThenSentWithHQTextAndItsOwnIdAndStaysAnswerable() throws {
        let box = try SimulatedBox {
            $0.hq = .fixed("Remember the dentist on Friday. Stop listening."); $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("outbox-cli")
        let env = try Run.pairedEnvironment(home, with: box.server)
        // The input ends at "listening": the draft keeps every sample up to it, and its HQ runs when it is sent.
        let input = home.file("micoff.wav")
        try WAV.endingAtSpeech("micoff-stop-listening.wav", to: input)
        let dictated = try Run.process(Run.boxvoice, ["dictate", "--input", input], environment: env)
        #expect(dictated.status == 0, "\(dictated.stderr)")
        #expect(dictated.stdout.contains("kept as a draft: "))
        #expect(box.server.messages.isEmpty)
        let listed = try Run.process(Run.boxvoice, ["outbox", "--json"], environment: env)
        let rows = listed.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(rows.count == 1)
        #expect(rows.first?["state"] as? String == "draft")
        let id = try #require(rows.first?["messageId"] as? String)
        let recorded = try FileManager.default.subpathsOfDirectory(atPath: home.path).filter {
            $0.contains(id) && $0.hasSuffix(".wav")
        }
        #expect(
            try recorded.map { try WAV.samples(home.path + "/" + $0).count }.reduce(0, +)
                == (try WAV.samples(input)).count)
        let sent = try Run.process(Run.boxvoice, ["outbox", "send", id], environment: env)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("delivered \(id)"))
        #expect(box.server.messages.map(\.messageId) == [id])
        let body = try #require(box.server.messages.first?.message)
        #expect(body.hasPrefix("<speech stt-service=\"boxsim\" message-id=\"\(id)\""), "\(body)")
        #expect(body.hasSuffix(">Remember the dentist on Friday.</speech>"), "no mic-off words: \(body)")
        let again = try Run.process(Run.boxvoice, ["outbox", "discard", id], environment: env)
        #expect(again.status == 1 && again.stderr.contains("stays as history"))
        let recordings = try Run.process(Run.boxvoice, ["recordings", "--json"], environment: env)
        #expect(recordings.stdout.contains("\"messageId\":\"\(id)\""), "\(recordings.stdout)")
        let request = "{\"version\":1,\"requestId\":\"r-draft\",\"messageId\":\"\(id)\",\"sessionId\":null}"
        let ids = LastAudioRequestIds(box.server)
        let agent = RetranscribeAgent(port: box.server.port, messageId: id, timeoutMs: 20_000)
        let requestId = try #require(ids.first(within: 5))
        let answered = try Run.process(
            Run.boxvoice, ["answer", request.replacingOccurrences(of: "r-draft", with: requestId)], environment: env)
        #expect(answered.status == 0, "\(answered.stderr)")
        #expect(answered.stdout.contains("answered with the recording of \(id)"), "\(answered.stdout)")
        #expect(agent.wait()?.status == 200)
    }

    @Test func anEmptyOutboxSaysSo() throws {
        let home = TemporaryDirectory("outbox-cli")
        let env = Run.isolatedEnvironment(home)
        #expect(try Run.process(Run.boxvoice, ["outbox"], environment: env).stdout == "The outbox is empty.\n")
        #expect(try Run.process(Run.boxvoice, ["outbox", "retry"], environment: env).stdout == "Nothing is pending.\n")
        #expect(
            try Run.process(Run.boxvoice, ["recordings"], environment: env).stdout
                == "No recordings are kept for 'local'.\n")
    }
}

@Suite struct PendingDeliveryTests {
    /// A run killed after committing a message but before its POST: the next dictate delivers it, exactly once.
    @Test func theNextRunDeliversWhatAKilledRunLeftPending() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("pending-cli")
        let env = try Run.pairedEnvironment(home, with: box.server, label: "Desk")
        let outbox = try MessageStore(directory: home.file("data/boxvoice"))
        let id: MessageID
        do {
            let recording = try outbox.beginRecording(box: "desk", session: "s1")
            id = recording.id
            try outbox.commitSend(
                id, MessageStore.Ending(heardText: "left behind", command: nil, liveText: "left behind"),
                liveBody: "<speech stt=\"live\" message-id=\"\(id)\" local-time=\"09:00\">left behind</speech>")
        }
        for _ in 0..<2 {
            let run = try Run.process(
                Run.boxvoice, ["dictate", "--on-eof", "discard", "--input", Checkout.sample("none-weather.wav")],
                environment: env)
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(box.server.messages.map(\.messageId) == [id.rawValue])
        #expect(try outbox.message(id)?.state == .delivered)
    }
}

/// A boxsim with one message dictated into it (and its recording retained) by `boxvoice` under a fresh home.
private func dictatedToAPairedBox() throws -> (box: SimulatedBox, home: TemporaryDirectory, messageId: String) {
    let box = try SimulatedBox {
        $0.hq = .fixed("Buy milk. Send message."); $0.defaultSession = "s1"
    }
    let home = TemporaryDirectory("retranscribe-cli")
    let env = try Run.pairedEnvironment(home, with: box.server)
    #expect(
        try Run.process(Run.boxvoice, ["dictate", "--input", Checkout.sample("send-buy-milk.wav")], environment: env)
            .status == 0)
    return (box, home, try #require(box.server.messages.first?.messageId))
}

@Suite struct AnswerCommandTests {
    @Test func aRetainedRecordingIsAnsweredAndAMissingOneIsNone() throws {
        let (box, home, messageId) = try dictatedToAPairedBox()
        let env = Run.isolatedEnvironment(home)

        for (target, expectAudio) in [(messageId, true), ("NOT-KEPT", false)] {
            let ids = LastAudioRequestIds(box.server)
            let agent = RetranscribeAgent(port: box.server.port, messageId: target, timeoutMs: 3_000)
            let requestId = try #require(ids.first(within: 5))
            let request = #"{"version":1,"requestId":"\#(requestId)","messageId":"\#(target)","sessionId":null}"#
            let answered = try Run.process(Run.boxvoice, ["answer", request], environment: env)
            #expect(answered.status == 0, "\(answered.stderr)")
            let response = try #require(agent.wait())
            if expectAudio {
                // Committed, it is kept as Ogg Opus and answered as it is kept.
                #expect(
                    answered.stdout.contains("answered with the recording of \(messageId) (Ogg Opus"),
                    "\(answered.stdout)")
                #expect(response.header("content-type") == "audio/ogg")
                #expect(response.status == 200)
                #expect(response.header("x-message-id") == messageId)
                #expect(response.header("x-session-id") == "s1")
                #expect(response.header("x-message-text")?.removingPercentEncoding?.hasPrefix("Buy milk.") == true)
                let answer = home.file("answer.ogg")
                try Data(response.body).write(to: URL(fileURLWithPath: answer))
                #expect(try SoundFile.open(path: answer).readAll().count > 4 * 48_000, "seconds of audio")
            } else {
                #expect(answered.stdout.contains("answered none"))
                #expect(response.status == 404)
            }
        }
    }

    @Test func aMalformedRequestIsRefused() throws {
        let box = try SimulatedBox()
        let home = TemporaryDirectory("answer-cli")
        let env = try Run.pairedEnvironment(home, with: box.server)
        let result = try Run.process(
            Run.boxvoice, ["answer", #"{"version":2,"requestId":"r","messageId":"m"}"#], environment: env)
        #expect(result.status == 1)
        #expect(result.stderr.contains("not a valid last-audio request: version must be 1"))
    }
}

@Suite struct DaemonCommandTests {
    @Test func theDaemonAnswersARetranscriptionRequestOverTheEventStream() throws {
        let (box, home, messageId) = try dictatedToAPairedBox()
        let env = Run.isolatedEnvironment(home)
        box.server.devices.map(\.token).forEach(Secrets.register)  // the daemon's log is scanned for them below

        let daemon = try Spawned(Run.boxvoice, ["daemon"], environment: env)
        defer { daemon.signal(SIGKILL) }
        let deadline = Date(timeIntervalSinceNow: 10)
        while box.server.eventConnections == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(box.server.eventConnections == 1)

        // The daemon starts its hearing parts meanwhile: on a loaded machine that takes seconds.
        let agent = RetranscribeAgent(port: box.server.port, messageId: messageId, timeoutMs: 20_000)
        let response = try #require(agent.wait())
        #expect(response.status == 200)
        #expect(response.header("x-message-id") == messageId)
        #expect(response.header("x-session-id") == "s1")

        // The box hands the requester the audio as it arrives; the daemon logs the answer once the box has said so.
        #expect(daemon.waitFor("answered", timeout: 10), "\(daemon.stderr)")
        daemon.signal(SIGTERM)  // a clean exit
        #expect(daemon.wait(timeout: 10) == 0)
        let printed = daemon.stderr
        #expect(printed.contains("connected"))
        #expect(printed.contains("stopped"))
        #expect(Secrets.leaked(in: printed).isEmpty)
    }

    @Test func withoutAPairedBoxItWaitsAndSaysHowToPair() throws {
        let home = TemporaryDirectory("daemon-cli")
        let env = Run.isolatedEnvironment(home)
        let daemon = try Spawned(Run.boxvoice, ["daemon"], environment: env)
        #expect(daemon.waitFor("no box is paired; waiting for one (`boxvoice pair LINK`)"), "\(daemon.stderr)")
        let toggled = try Run.process(Run.boxvoice, ["toggle"], environment: env)
        #expect(
            toggled.stdout.contains("no box is paired") || toggled.stderr.contains("no box is paired"),
            "\(toggled.stdout)\(toggled.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
    }
}

@Suite struct DictateKeysAndScreenTests {
    /// Esc from a pipe: the message is dropped and dictation stops at once, long before the clip's spoken send.
    @Test func escapeFromStdinCancelsAndStops() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("keys-cli")
        let env = try Run.pairedEnvironment(home, with: box.server)
        let result = try Run.process(
            Run.boxvoice, ["dictate", "--json", "--realtime", "--input", Checkout.sample("send-buy-milk.wav")],
            environment: env, input: Data([0x1B, 0x0A]))
        #expect(result.status == 0, "\(result.stderr)")
        // Paced at real time, the clip's "send message" comes at its end: never heard, so the run stopped first
        // (whatever the machine's load did to the start-up time).
        #expect(result.stdout.contains("\"event\":\"listening\""))
        #expect(!result.stdout.contains("\"event\":\"keyword\""), "\(result.stdout)")
        #expect(box.server.messages.isEmpty)
    }

    /// On a terminal (a pseudo-terminal from `script`): the status area with the recording dot, meter, hints and
    /// the delivery result; with NO_COLOR the same run prints plain lines without escape codes.
    @Test func aTerminalGetsTheStatusAreaAndNoColorGetsPlainLines() throws {
        let home = TemporaryDirectory("screen-cli")
        var env = Run.isolatedEnvironment(home)
        env["TERM"] = "xterm"
        env["NO_COLOR"] = nil  // the test runner may set it for its own output
        let command = "\(Run.boxvoice) dictate --no-keys --input \(Checkout.sample("send-buy-milk.wav"))"
        let screen = try Run.process("/usr/bin/script", ["-qefc", command, "/dev/null"], environment: env)
        #expect(screen.status == 0, "\(screen.stdout)")
        #expect(screen.stdout.contains("\u{1B}[31m●"))
        #expect(screen.stdout.contains("segments "))
        #expect(screen.stdout.contains("Enter send · Esc cancel"))
        #expect(screen.stdout.contains("delivered "))
        #expect(screen.stdout.contains("\u{1B}[J"), "the area is redrawn in place")

        env["NO_COLOR"] = "1"
        let plain = try Run.process("/usr/bin/script", ["-qefc", command, "/dev/null"], environment: env)
        #expect(plain.status == 0)
        #expect(!plain.stdout.contains("\u{1B}["))
        #expect(plain.stdout.contains("delivered "))
    }
}

@Suite struct KilledDeliveryTests {
    /// `kill -9` while the POST is in flight (after HQ, the message committed): the next command that talks to the
    /// box delivers it, and the box holds it exactly once.
    @Test func aRunKilledDuringThePostIsDeliveredExactlyOnceByTheNextCommand() throws {
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"; $0.sendDelaySeconds = 3
        }
        let home = TemporaryDirectory("killed-cli")
        let env = try Run.pairedEnvironment(home, with: box.server)
        let dictate = try Spawned(
            Run.boxvoice, ["dictate", "--json", "--no-keys", "--input", Checkout.sample("send-buy-milk.wav")],
            environment: env)
        #expect(dictate.waitFor("\"event\":\"queued\""))
        Thread.sleep(forTimeInterval: 0.5)  // the POST is on its way; the box holds it for 3 s
        dictate.signal(SIGKILL)
        dictate.wait()
        #expect(!dictate.stdout.contains("\"event\":\"delivered\""))
        let line = try #require(dictate.stdout.split(separator: "\n").first { $0.contains("\"queued\"") })
        let queued = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let id = try #require(queued["messageId"] as? String)

        let next = try Run.process(Run.boxvoice, ["transcribe", Checkout.sample("none-weather.wav")], environment: env)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stderr.contains("pending message: delivered \(id)"))
        Thread.sleep(forTimeInterval: 3.5)  // the killed run's POST finishes on the box's side too
        #expect(box.server.messages.map(\.messageId) == [id])
    }
}
