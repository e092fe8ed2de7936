import BoxSim
import BoxVoiceAudio
import BoxVoiceContract
import BoxVoiceStore
import Foundation

/// `kill -9` of a dictation at a chosen phase, then one command that talks to the box, and what the box and the
/// disk hold afterwards. Shared by the test suite (a few trials per phase) and `make bench` (over a hundred).
public enum KillTrials {
    /// When the process is killed, as seen on its `--json` events.
    public enum Phase: String, CaseIterable, Sendable {
        /// At a random moment from the start of listening (usually before the command; sometimes just after).
        case beforeCommand = "before the command"
        /// The moment the command is announced (committed, HQ not started).
        case betweenCommandAndHQ = "between command and HQ"
        /// While the last segment's HQ upload is in flight.
        case duringHQ = "during HQ"
        /// While the POST is in flight (the box holds each send for a while).
        case duringPost = "during the POST"
        /// After the box's 200.
        case afterDelivery = "after the 200"

        var trigger: String {
            switch self {
            case .beforeCommand: "\"event\":\"listening\""
            case .betweenCommandAndHQ: "\"event\":\"committed\""
            case .duringHQ: "\"state\":\"uploading\""
            case .duringPost: "\"event\":\"queued\""
            case .afterDelivery: "\"event\":\"delivered\""
            }
        }
    }

    public struct Outcome: Sendable {
        public var phase: Phase
        /// The send was heard (its command announced) before the kill.
        public var commandHeard: Bool
        /// The committed message's id, when it was printed before the kill.
        public var messageId: String?
    }

    /// A box for the trials: HQ answers after `hqSeconds` with a fixed text, each send is held `sendSeconds`.
    public static let hqText = "Please buy milk and eggs. Send message."

    /// Runs one trial under `environment` (a user paired with the box); `delay` is added after the trigger.
    public static func run(_ phase: Phase, delay: TimeInterval, boxvoice: String, environment: [String: String]) throws
        -> Outcome
    {
        let dictation = try Spawned(
            boxvoice, ["dictate", "--json", "--once", "--no-keys", "--input", Checkout.sample("send-buy-milk.wav")],
            environment: environment)
        let reached = dictation.waitFor(phase.trigger, timeout: 60)
        if reached, delay > 0 { Thread.sleep(forTimeInterval: delay) }
        dictation.signal(SIGKILL)
        dictation.wait(timeout: 10)
        let lines = dictation.stdout.split(separator: "\n")
        let heard = lines.contains { $0.contains("\"event\":\"keyword\"") }
        let committed = lines.first { $0.contains("\"event\":\"committed\"") }
        let id = committed.flatMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return object["messageId"] as? String
        }
        return Outcome(phase: phase, commandHeard: heard, messageId: id)
    }

    /// What is wrong on disk under `data` (the user's `boxvoice` data folder): WAVs that do not play whole, and message
    /// folders no row keeps.
    public static func inspect(data: String) throws -> (unplayable: [String], foldersWithoutARow: [String]) {
        let store = try MessageStore(directory: data)
        var unplayable: [String] = []
        var orphans: [String] = []
        let root = data + "/recordings"
        for box in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + box)) ?? [] {
                guard let id = MessageID(exactly: name) else { continue }
                let folder = root + "/" + box + "/" + name
                if try store.message(id)?.hasAudio != true { orphans.append(folder) }
                for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                where file.hasSuffix(".wav") {
                    if !isPlayable(folder + "/" + file) { unplayable.append(folder + "/" + file) }
                }
            }
        }
        return (unplayable, orphans)
    }

    /// A WAV whose header describes exactly the samples that follow it, and that libsndfile opens.
    public static func isPlayable(_ path: String) -> Bool {
        guard let bytes = FileManager.default.contents(atPath: path), bytes.count >= 44,
            let file = try? SoundFile.open(path: path)
        else { return false }
        let head = [UInt8](bytes.prefix(4_096))
        guard
            let marker = (0..<(head.count - 8)).first(where: {
                head[$0] == 0x64 && head[$0 + 1] == 0x61 && head[$0 + 2] == 0x74 && head[$0 + 3] == 0x61
            })
        else {
            return false
        }
        let declared =
            Int(head[marker + 4]) | Int(head[marker + 5]) << 8 | Int(head[marker + 6]) << 16 | Int(head[marker + 7])
            << 24
        let present = bytes.count - (marker + 8)
        return declared == present && Int(file.frames) * file.channels * (file.isFloat32 ? 4 : 2) == declared
    }
}
