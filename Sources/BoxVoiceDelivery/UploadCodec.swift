import BoxVoiceAudio
import BoxVoiceContract
import BoxVoiceStore
import Foundation
import Synchronization

/// How segments go to the box's HQ endpoint: always WAV, always Opus, or chosen from the link (`auto`).
public enum UploadCodec: String, Sendable, CaseIterable {
    case wav, opus, auto
}

/// What one segment is uploaded as, and why (shown in the status area and `--json`).
public struct UploadChoice: Sendable, Equatable {
    public enum Format: String, Sendable, Codable { case wav, opus }
    public var format: Format
    public var reason: String
}

/// The choice itself, as arithmetic on what was measured (no I/O): a spoken send waits for the last segment's
/// upload, so `auto` picks whichever format gets a segment to the box sooner — Opus pays its encoding, WAV its
/// 27 times more bytes — and keeps WAV (lossless) while it costs at most 10 % more time. On a link faster than about
/// 300 Mbit/s that is WAV;
/// below it Opus wins, and below ~1.6 Mbit/s WAV cannot even keep up with the speech.
public enum UploadDecision {
    /// 48 kHz mono Float32.
    public static let wavBytesPerSecond = 192_000.0
    /// What the speech Opus rate makes of a second, with Ogg's framing.
    public static let opusBytesPerSecond = 8_200.0
    /// Encoding cost before any was measured (measured here: about 3 ms of CPU per second of audio).
    public static let defaultEncodeSecondsPerSecond = 0.004

    public static func choose(
        _ codec: UploadCodec, wavOnly: Bool, linkBytesPerSecond: Double?,
        encodeSecondsPerSecond: Double = defaultEncodeSecondsPerSecond
    ) -> UploadChoice {
        if wavOnly { return UploadChoice(format: .wav, reason: "the box refused Opus before: WAV only") }
        switch codec {
        case .wav: return UploadChoice(format: .wav, reason: "WAV, as configured")
        case .opus: return UploadChoice(format: .opus, reason: "Opus, as configured")
        case .auto: break
        }
        guard let link = linkBytesPerSecond, link.isFinite, link > 0 else {
            return UploadChoice(
                format: .opus,
                reason: "link not measured yet: Opus, which is never slower than WAV by more than its encoding")
        }
        let wav = wavBytesPerSecond / link
        let opus = encodeSecondsPerSecond + opusBytesPerSecond / link
        let rate = String(format: "%.1f Mbit/s", link * 8 / 1e6)
        if wav <= opus * 1.1 {
            return UploadChoice(format: .wav, reason: "link \(rate): WAV arrives as soon as Opus would")
        }
        return UploadChoice(
            format: .opus, reason: "link \(rate): Opus arrives \(String(format: "%.0f", wav / opus))× sooner than WAV")
    }
}

/// One box's upload codec across a dictation: what is configured, what the box accepts, and the link as measured
/// from the uploads themselves (an exponential average of bytes per second of each whole request).
public final class UploadCodecPolicy: Sendable {
    public struct Profile: Sendable, Equatable {
        public var wavOnly: Bool
        public var linkBytesPerSecond: Double?

        public init(wavOnly: Bool = false, linkBytesPerSecond: Double? = nil) {
            self.wavOnly = wavOnly
            self.linkBytesPerSecond = linkBytesPerSecond
        }
    }

    private struct State {
        var profile: Profile
        var encodeSecondsPerSecond = UploadDecision.defaultEncodeSecondsPerSecond
        var lastChoice: UploadChoice?
    }

    public let codec: UploadCodec
    private let state: Mutex<State>
    private let onProfile: @Sendable (Profile) -> Void

    /// - Parameter onProfile: called when what was learnt changes (to keep it for the next run).
    public init(
        codec: UploadCodec, profile: Profile = Profile(), onProfile: @escaping @Sendable (Profile) -> Void = { _ in }
    ) {
        self.codec = codec
        state = Mutex(State(profile: profile))
        self.onProfile = onProfile
    }

    /// The policy for `box`, starting from what earlier uploads to it taught (kept in the store), and keeping what
    /// these teach there.
    public convenience init(codec: UploadCodec, box: BoxReference, store: MessageStore) {
        let known = (try? store.uploadProfile(box: box)) ?? (wavOnly: false, linkBytesPerSecond: nil)
        self.init(codec: codec, profile: Profile(wavOnly: known.wavOnly, linkBytesPerSecond: known.linkBytesPerSecond))
        { profile in
            try? store.recordUploadProfile(
                box: box, wavOnly: profile.wavOnly, linkBytesPerSecond: profile.linkBytesPerSecond)
        }
    }

    public var profile: Profile { state.withLock { $0.profile } }

    /// The format for the next segment, and whether it differs from the last one chosen.
    public func next() -> (choice: UploadChoice, changed: Bool) {
        state.withLock { state in
            let choice = UploadDecision.choose(
                codec, wavOnly: state.profile.wavOnly, linkBytesPerSecond: state.profile.linkBytesPerSecond,
                encodeSecondsPerSecond: state.encodeSecondsPerSecond)
            let changed = state.lastChoice?.format != choice.format
            state.lastChoice = choice
            return (choice, changed)
        }
    }

    /// An upload of `bytes` took `seconds` from its first byte sent to the box's answer.
    public func recordUpload(bytes: Int64, seconds: Double) {
        guard bytes > 0, seconds > 0 else { return }
        let measured = Double(bytes) / seconds
        let profile = state.withLock { state -> Profile in
            state.profile.linkBytesPerSecond =
                state.profile.linkBytesPerSecond.map { 0.5 * $0 + 0.5 * measured } ?? measured
            return state.profile
        }
        onProfile(profile)
    }

    public func recordEncoding(cpuSeconds: Double, audioSeconds: Double) {
        guard audioSeconds > 0 else { return }
        state.withLock { $0.encodeSecondsPerSecond = max(0.0005, cpuSeconds / audioSeconds) }
    }

    /// The box refused an Opus upload as a format problem: WAV from now on, and remembered.
    public func markWAVOnly() {
        let profile = state.withLock { state -> Profile in
            state.profile.wavOnly = true
            return state.profile
        }
        onProfile(profile)
    }
}

extension BoxFailure {
    /// The box (or its HQ service) could not take the audio's format: for an Opus upload, a reason to send WAV.
    var isFormatRejection: Bool {
        let formatCodes: Set = ["invalid_file_format", "http_400", "http_415"]
        switch self {
        case .permanentHQ(_, let code): return formatCodes.contains(code ?? "")
        case .definitive(_, let status, _, let code):
            return formatCodes.contains(code ?? "") || status == 406 || status == 415
        default: return false
        }
    }
}
