import BoxVoiceAudio
import BoxVoiceTestSupport
import Foundation
import Testing

/// `boxvoice record` as a user runs it: a real process, a real alsa-lib file PCM, real WAV files.
@Suite struct RecordCommandTests {
    private func environment(_ dir: TemporaryDirectory) -> [String: String] { Run.isolatedEnvironment(dir) }

    @Test func longClipLeavesThreeSegmentsUnderSixtySecondsSummingToTheClip() throws {
        let dir = TemporaryDirectory("cli")
        let made = try FileCapturePCM.make(
            wav: Checkout.sample("long-meeting-notes.wav"), name: "long", directory: dir.path)
        let seconds = String(format: "%.6f", Double(made.frames) / 48_000)
        let result = try Run.boxvoice(
            "record", "--alsa-config", made.configPath, "--device", "long",
            "--max-seconds", seconds, "--out", dir.file("rec"), environment: environment(dir))
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.file("rec")).sorted()
        #expect(names == ["seg-0001.wav", "seg-0002.wav", "seg-0003.wav"])
        var total = 0
        for name in names {
            let wav = try WAV.read(dir.file("rec/" + name))
            #expect(wav.sampleRate == 48_000 && wav.channels == 1 && wav.isFloat32)
            #expect(wav.samples.count <= 60 * 48_000)
            total += wav.samples.count
            #expect(result.stdout.contains(dir.file("rec/" + name)))
        }
        #expect(abs(total - made.frames) <= 960)
        #expect(result.stdout.contains("peak") && result.stdout.contains("dBFS"))
    }

    /// A `file` PCM delivers as fast as it is read; `--realtime` paces it like a microphone: two seconds take two.
    @Test func realtimePacesAClocklessPCM() throws {
        let dir = TemporaryDirectory("cli-realtime")
        let made = try FileCapturePCM.make(wav: Checkout.sample("send-buy-milk.wav"), name: "mic", directory: dir.path)
        let fast = Date()
        let quick = try Run.boxvoice(
            "record", "--alsa-config", made.configPath, "--device", "mic", "--max-seconds", "2",
            "--out", dir.file("fast"), environment: environment(dir))
        let quickSeconds = Date().timeIntervalSince(fast)
        let paced = Date()
        let slow = try Run.boxvoice(
            "record", "--alsa-config", made.configPath, "--device", "mic", "--max-seconds", "2", "--realtime",
            "--out", dir.file("paced"), environment: environment(dir))
        let pacedSeconds = Date().timeIntervalSince(paced)
        #expect(quick.status == 0 && slow.status == 0, "\(quick.stderr) \(slow.stderr)")
        #expect(pacedSeconds >= 2, "paced: \(pacedSeconds) s")
        #expect(quickSeconds < pacedSeconds, "unpaced \(quickSeconds) s, paced \(pacedSeconds) s")
        #expect(
            firstDifference(
                try WAV.samples(dir.file("fast/seg-0001.wav")), try WAV.samples(dir.file("paced/seg-0001.wav"))) == nil,
            "the same audio either way")
    }

    @Test func jsonEventsDescribeEachSegment() throws {
        let dir = TemporaryDirectory("cli")
        let made = try FileCapturePCM.make(wav: Checkout.sample("send-buy-milk.wav"), name: "mic", directory: dir.path)
        let result = try Run.boxvoice(
            "record", "--alsa-config", made.configPath, "--device", "mic", "--max-seconds", "3",
            "--segment-seconds", "2", "--cut-search-seconds", "0.5", "--json", "--out", dir.file("rec"),
            environment: environment(dir))
        #expect(result.status == 0, "\(result.stderr)")
        let events = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let segments = events.filter { $0["event"] as? String == "segment" }
        #expect(segments.count == 2)
        #expect(segments.compactMap { $0["frames"] as? Int }.reduce(0, +) == 144_000)
        #expect(segments.allSatisfy { ($0["seconds"] as? Double ?? 99) <= 2.0 })
        #expect(events.last?["event"] as? String == "finished")
    }

    @Test func killedRecordingIsRepairedToAPlayableFileShortByAtMostOneSecond() throws {
        let dir = TemporaryDirectory("cli")
        let input = try WAV.samples(Checkout.sample("long-meeting-notes.wav"))
        let made = try FileCapturePCM.make(samples: input, name: "long", directory: dir.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Run.boxvoice)
        process.arguments = [
            "record", "--alsa-config", made.configPath, "--device", "long", "--segment-seconds", "600",
            "--out", dir.file("rec"),
        ]
        process.environment = environment(dir)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let segment = dir.file("rec/seg-0001.wav")
        let deadline = Date(timeIntervalSinceNow: 20)
        // Wait until ~60 s of audio is on disk, then kill without warning.
        while Date() < deadline {
            let size = (try? FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int) ?? 0
            if size > 60 * 192_000 { break }
            usleep(2_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let outcome = try WAVRepair.repair(path: segment)
        guard case .repaired(let headerFrames, let frames) = outcome else {
            // The kill can land right after a header refresh; then the file is already whole.
            guard case .intact(let frames) = outcome else { return }
            #expect(try WAV.samples(segment) == Array(input[..<Int(frames)]))
            return
        }
        #expect(headerFrames > 0)
        #expect(frames - headerFrames <= 48_000 + 960)  // the stale header missed at most ~1 s
        let repaired = try WAV.read(segment)
        #expect(repaired.isFloat32 && repaired.sampleRate == 48_000)
        #expect(Int64(repaired.samples.count) == frames)
        #expect(repaired.samples == Array(input[..<Int(frames)]))
        // And the CLI's repair reports it intact now.
        let check = try Run.boxvoice("repair", segment)
        #expect(check.status == 0)
        #expect(check.stdout.contains("intact"))
    }

    @Test func sigtermFinishesTheOpenSegmentCleanly() throws {
        let dir = TemporaryDirectory("cli")
        let made = try FileCapturePCM.make(wav: Checkout.sample("none-budget.wav"), name: "mic", directory: dir.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Run.boxvoice)
        process.arguments = [
            "record", "--alsa-config", made.configPath, "--device", "mic", "--segment-seconds", "3600", "--out",
            dir.file("rec"),
        ]
        process.environment = environment(dir)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let segment = dir.file("rec/seg-0001.wav")
        while ((try? FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int) ?? 0) < 2_000_000 {
            usleep(2_000)
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(printed.contains("Recorded"))
        // The header is exact: nothing for repair to do, and the audio starts with the clip.
        guard case .intact(let frames) = try WAVRepair.repair(path: segment) else {
            Issue.record("segment header was stale after SIGTERM")
            return
        }
        let clip = try WAV.samples(Checkout.sample("none-budget.wav"))
        let recorded = try WAV.samples(segment)
        #expect(Int64(recorded.count) == frames)
        #expect(Array(recorded.prefix(clip.count)) == clip)
    }

    /// What a crash leaves at `path`: a segment whose header says 100 frames while 500 are on disk.
    private func writeStaleSegment(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = try SoundFile.createFloatWAV(path: path)
        try file.write([Float](repeating: 0.25, count: 100))
        try file.updateHeader()
        try file.write([Float](repeating: 0.25, count: 400))
        try FileManager.default.copyItem(atPath: path, toPath: folder + "/crashed.wav")
        try file.close()
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: folder + "/crashed.wav", toPath: path)
    }

    @Test func nextRunRepairsWhatACrashLeft() throws {
        let dir = TemporaryDirectory("cli")
        let rec = dir.file("rec")
        let path = rec + "/seg-0001.wav"
        try writeStaleSegment(path)

        let made = try FileCapturePCM.make(
            samples: [Float](repeating: 0.5, count: 4_800), name: "mic", directory: dir.path)
        let result = try Run.boxvoice(
            "record", "--alsa-config", made.configPath, "--device", "mic", "--max-seconds", "0.1",
            "--out", rec, environment: environment(dir))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Repaired \(path): header said 100 frames, file holds 500."))
        #expect(try WAV.samples(path).count == 500)
        #expect(try WAV.samples(rec + "/seg-0002.wav").count == 4_800)  // numbering continues
    }

    /// Takes once shared `recordings/local` with the embedded box's messages, and `record` rewrote the header of a
    /// segment a dictation was still writing there. It repairs its own takes only.
    @Test func aTakesRepairLeavesTheEmbeddedBoxsMessagesAlone() throws {
        let dir = TemporaryDirectory("cli")
        let message = dir.file("data/boxvoice/recordings/local/\(UUID().uuidString)/seg-0001.wav")
        let take = dir.file("data/boxvoice/takes/2026-12-01T10-00-00/seg-0001.wav")
        try writeStaleSegment(message)
        try writeStaleSegment(take)
        let before = try #require(FileManager.default.contents(atPath: message))
        let made = try FileCapturePCM.make(
            samples: [Float](repeating: 0.5, count: 4_800), name: "mic", directory: dir.path)
        let result = try Run.boxvoice(
            "record", "--alsa-config", made.configPath, "--device", "mic", "--max-seconds", "0.1",
            environment: environment(dir))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Repaired \(take): header said 100 frames, file holds 500."))
        #expect(!result.stdout.contains(message))
        #expect(FileManager.default.contents(atPath: message) == before)
    }

    @Test func missingDeviceSaysSoAndPointsAtDevices() throws {
        let dir = TemporaryDirectory("cli")
        let made = try FileCapturePCM.make(samples: [0], name: "mic", directory: dir.path)
        let result = try Run.boxvoice(
            "record", "--alsa-config", made.configPath, "--device", "usb_headset",
            "--out", dir.file("rec"), environment: environment(dir))
        #expect(result.status == 1)
        #expect(result.stderr.contains("capture device 'usb_headset' was not found"))
        #expect(result.stderr.contains("boxvoice devices"))
        #expect(result.stderr.contains("Nothing was recorded"))
    }

    @Test func fullDiskStopsWithAnErrorAndKeepsClosedSegments() throws {
        guard try OwnNamespace.enter("fullDiskStopsWithAnErrorAndKeepsClosedSegments") else { return }
        let dir = TemporaryDirectory("cli")
        let made = try FileCapturePCM.make(
            wav: Checkout.sample("long-meeting-notes.wav"), name: "long", directory: dir.path)
        // A real full disk: a 3 MiB tmpfs holds about four segments of at most 4 s (768 kB each), then fills.
        let disk = dir.file("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mounted = try Run.process("/bin/mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", disk])
        try #require(mounted.status == 0, "mounting a tmpfs in the test's own namespace: \(mounted.stderr)")
        defer { _ = try? Run.process("/bin/umount", [disk]) }

        let result = try Run.boxvoice(
            "record", "--alsa-config", made.configPath, "--device", "long", "--max-seconds", "60",
            "--segment-seconds", "4", "--cut-search-seconds", "1", "--out", disk + "/rec",
            environment: environment(dir))
        #expect(result.status == 1)
        #expect(result.stderr.contains("recording stopped"))
        #expect(result.stderr.contains("No space left on device"))
        #expect(result.stderr.contains("free space"))
        let kept = result.stdout.split(separator: "\n").filter { $0.contains("/seg-") }.map {
            String($0.split(separator: " ")[0])
        }
        #expect(kept.count >= 3)
        #expect(result.stderr.contains("\(kept.count) completed segment(s) are kept"), "\(result.stderr)")
        var offset = 0
        let input = try WAV.samples(Checkout.sample("long-meeting-notes.wav"))
        for path in kept {
            let wav = try WAV.read(path)
            #expect(wav.samples.count > 3 * 48_000 && wav.samples.count <= 4 * 48_000)
            #expect(firstDifference(wav.samples, Array(input[offset..<offset + wav.samples.count])) == nil)
            offset += wav.samples.count
        }
    }

    @Test func fileSizeLimitMidSegmentLeavesARepairablePartialSegment() throws {
        let dir = TemporaryDirectory("cli")
        let made = try FileCapturePCM.make(
            wav: Checkout.sample("long-meeting-notes.wav"), name: "long", directory: dir.path)
        // A 2 MiB per-file limit: writes past it fail with EFBIG inside the first 20 s segment.
        let command =
            "ulimit -f 2048; exec '\(Run.boxvoice)' record --alsa-config '\(made.configPath)' --device long "
            + "--max-seconds 60 --segment-seconds 20 --out '\(dir.file("rec"))'"
        let result = try Run.process("/bin/bash", ["-c", command], environment: environment(dir))
        #expect(result.status == 1)
        #expect(result.stderr.contains("No segment was completed"), "\(result.stderr)")
        #expect(result.stderr.contains(dir.file("rec/seg-0001.wav")))
        _ = try WAVRepair.repair(path: dir.file("rec/seg-0001.wav"))
        let partial = try WAV.samples(dir.file("rec/seg-0001.wav"))
        #expect(partial.count > 48_000)
        let input = try WAV.samples(Checkout.sample("long-meeting-notes.wav"))
        #expect(partial == Array(input[..<partial.count]))
    }

    @Test func unknownOptionIsAUsageError() throws {
        let result = try Run.boxvoice("record", "--devise", "x")
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown option '--devise'; did you mean '--device'?"))
        #expect(
            result.stderr
                == "boxvoice record: unknown option '--devise'; did you mean '--device'? (`boxvoice record --help`)\n")
        #expect(!result.stderr.contains("Usage:"), "one line of advice, not the whole help")
    }

    /// A machine whose ALSA shows no microphone (only `null`, which records silence) is told how to try boxvoice
    /// anyway, instead of being left with one line about discarding samples.
    @Test func devicesWithOnlyNullPointAtFileInput() throws {
        let home = TemporaryDirectory("only-null")
        let config = home.path + "/only-null.conf"
        try """
        pcm.null { type null hint { show on description "Discard all samples (playback) or generate zero samples" } }
        """.write(toFile: config, atomically: true, encoding: .utf8)
        var environment = Run.isolatedEnvironment(home)
        environment["ALSA_CONFIG_PATH"] = config
        let result = try Run.process(Run.boxvoice, ["devices"], environment: environment)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("null "), "\(result.stdout)")
        #expect(result.stdout.contains("boxvoice devices file-pcm FILE.wav"), "\(result.stdout)")
        #expect(result.stdout.contains("--input FILE.wav"), "\(result.stdout)")
    }

    @Test func helpListsCommands() throws {
        let result = try Run.boxvoice("--help")
        #expect(result.status == 0)
        for command in ["record", "devices", "repair", "keywords"] { #expect(result.stdout.contains("  \(command)")) }
    }
}
