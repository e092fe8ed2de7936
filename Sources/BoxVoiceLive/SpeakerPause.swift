import Foundation

/// Hears the speaker stop from the audio's level against the room's own, where the recognizer's speech detector
/// cannot: in babble or steady noise it hears speech all the time, so an utterance holding a command never ends and
/// the command is never acted on (a 150 s dictation in babble was one utterance). A frame is quiet when its level
/// is nearer the room between words (10th percentile of the last seconds) than the speech (90th), in dB.
public struct SpeakerPause: Sendable {
    /// 20 ms frames the levels are taken from: the last 5 s.
    static let windowFrames = 250
    /// The quiet line is drawn again every this many frames.
    static let redrawEvery = 5
    /// Louder than the room by less than this (dB) is never speech, whatever the percentiles say: a quiet room's
    /// own level wobbles by a few dB.
    static let leastSpeechAboveRoom = 10.0

    private var levels: [Double] = []
    private var next = 0
    private var sinceDrawn = 0
    /// Frames at or under this level (dB) are quiet; nil until there is speech to tell from the room.
    private var quietLine: Double?
    private var quietFrames = 0

    public init() {}

    /// How long the audio has been quiet, up to now, in seconds.
    public var quietSeconds: Double { Double(quietFrames) * 0.02 }

    /// Whether the last frame was quiet; nil while the quiet line is not drawn (nothing tells speech from the room).
    public private(set) var lastFrameIsQuiet: Bool?

    /// Adds one 20 ms frame's RMS level (any scale; silence is 0).
    public mutating func add(frameLevel level: Double) {
        let decibels = 20 * log10(max(level, 1e-3))
        if levels.count < Self.windowFrames { levels.append(decibels) } else { levels[next] = decibels }
        next = (next + 1) % Self.windowFrames
        sinceDrawn += 1
        if sinceDrawn >= Self.redrawEvery || quietLine == nil {
            sinceDrawn = 0
            quietLine = Self.quietLine(levels)
        }
        lastFrameIsQuiet = quietLine.map { decibels <= $0 }
        if lastFrameIsQuiet == true { quietFrames += 1 } else { quietFrames = 0 }
    }

    /// Halfway between the room's level and the speech's, in dB; nil when the loud frames are not clearly louder
    /// than the quiet ones (no speech yet, or one steady sound).
    static func quietLine(_ levels: [Double]) -> Double? {
        guard levels.count >= 25 else { return nil }
        let (room, speech) = RoomNoise.roomAndSpeech(levels)
        guard speech - room >= leastSpeechAboveRoom else { return nil }
        return (room + speech) / 2
    }
}
