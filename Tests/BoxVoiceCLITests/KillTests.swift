import BoxSim
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

/// `kill -9` in every phase of a dictation, then `boxvoice outbox retry`: what was said with a send reaches the box
/// exactly once (HQ text, whether HQ finished before or after the kill), and nothing is left unplayable or unlisted.
/// `make bench` runs the same trials over a hundred times.
@Suite(.serialized) struct KillTests {
    @Test func aKilledDictationLosesNothingInAnyPhase() throws {
        let box = try SimulatedBox {
            $0.hq = .slow(1)
            $0.hqText = KillTrials.hqText
            $0.defaultSession = "s1"
            $0.sendDelaySeconds = 1.5
        }
        let home = TemporaryDirectory("kill")
        let environment = try Run.pairedEnvironment(home, with: box.server)
        var random = SeededRandom(seed: 11)
        var outcomes: [KillTrials.Outcome] = []
        for phase in KillTrials.Phase.allCases {
            for _ in 0..<2 {
                let delay =
                    phase == .beforeCommand
                    ? Double.random(in: 0...1.5, using: &random)
                    : phase == .duringPost ? Double.random(in: 0...0.8, using: &random) : 0
                outcomes.append(
                    try KillTrials.run(phase, delay: delay, boxvoice: Run.boxvoice, environment: environment))
                let retry = try Run.process(Run.boxvoice, ["outbox", "retry"], environment: environment)
                #expect(retry.status == 0, "\(phase.rawValue): \(retry.stderr)")
            }
        }
        let messages = box.server.messages
        let heard = outcomes.filter(\.commandHeard)
        #expect(heard.count >= 8, "the send was heard in \(heard.count) of 10 trials")
        #expect(messages.count == heard.count, "\(messages.count) messages at the box for \(heard.count) heard sends")
        for outcome in heard {
            guard let id = outcome.messageId else { continue }
            #expect(
                messages.filter { $0.messageId == id }.count == 1,
                "\(outcome.phase.rawValue): \(id) at the box exactly once")
        }
        for message in messages {
            #expect(message.message.contains("Please buy milk and eggs."), "HQ text: \(message.message)")
            #expect(message.message.hasPrefix("<speech stt-service=\"boxsim\""), "\(message.message)")
        }
        let disk = try KillTrials.inspect(data: home.file("data/boxvoice"))
        #expect(disk.unplayable.isEmpty, "\(disk.unplayable)")
        #expect(disk.foldersWithoutARow.isEmpty, "\(disk.foldersWithoutARow)")
    }
}

@Suite struct DiskFullTests {
    /// The data folder on a 4 MB tmpfs and a 2.5-minute dictation: recording stops when the disk fills, and what was
    /// said so far is a draft (text and playable audio) that the user is told how to send.
    @Test func aFullDiskDuringDictationKeepsWhatWasSaidAsADraft() throws {
        guard try OwnNamespace.enter("aFullDiskDuringDictationKeepsWhatWasSaidAsADraft") else { return }
        let box = try SimulatedBox {
            $0.hq = .describe; $0.defaultSession = "s1"
        }
        let home = TemporaryDirectory("disk-full")
        try FileManager.default.createDirectory(atPath: home.file("data"), withIntermediateDirectories: true)
        let mounted = try Run.process("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", home.file("data")])
        try #require(mounted.status == 0, "mounting a tmpfs in the test's own namespace: \(mounted.stderr)")
        defer { _ = try? Run.process("/bin/umount", ["-l", home.file("data")]) }
        let env = try Run.pairedEnvironment(home, with: box.server)
        let run = try Run.process(
            Run.boxvoice, ["dictate", "--no-keys", "--input", Checkout.sample("long-meeting-notes.wav")],
            environment: env)
        #expect(run.status == 1)
        #expect(run.stderr.contains("the disk is full"), "\(run.stderr)")
        let listed = try Run.process(Run.boxvoice, ["outbox", "--json"], environment: env)
        let rows = listed.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        try #require(rows.count == 1, "\(listed.stdout) \(listed.stderr)")
        let id = try #require(rows[0]["messageId"] as? String)
        #expect(rows[0]["state"] as? String == "draft")
        #expect((rows[0]["text"] as? String)?.lowercased().contains("notes") == true, "\(rows[0])")
        #expect(run.stderr.contains("boxvoice outbox send \(id)"))
        let folder = home.file("data/boxvoice/recordings/bee-box/\(id)")
        let segments = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".wav") }
        #expect(!segments.isEmpty)
        for segment in segments { #expect(KillTrials.isPlayable(folder + "/" + segment), "\(segment) plays whole") }
        #expect(box.server.messages.isEmpty)
    }
}
