import Foundation

/// One line of the command spotter's phrases file (`Models/command-spotter.en.txt`, or a calibrated copy).
public struct SpotterPhrase: Sendable, Equatable {
    public var phrase: String
    public var threshold: String
    /// The threshold while the microphone stops at the telephone band (`InputBand`): the wideband acoustic model
    /// scores band-limited speech far lower. Nil: the same as `threshold` (a calibrated list, tuned on the user's own
    /// microphone, has none).
    public var narrowbandThreshold: String?
    /// Phrases in one group share a decoder (a blank line starts the next group).
    public var group: Int

    public init(phrase: String, threshold: String, narrowbandThreshold: String? = nil, group: Int) {
        self.phrase = phrase
        self.threshold = threshold
        self.narrowbandThreshold = narrowbandThreshold
        self.group = group
    }

    /// The line as pocketsphinx's keyword search reads it.
    var line: String { "\(phrase) /\(threshold)/" }

    /// The line for a band-limited microphone.
    var narrowbandLine: String { "\(phrase) /\(narrowbandThreshold ?? threshold)/" }
}

/// Reads a phrases file: `phrase /threshold/` per line, optionally followed by `narrowband /threshold/`, `#` comments,
/// a blank line between groups. The spotter and its calibration both read it here, so they cannot disagree on what a
/// group is.
enum SpotterPhrases {
    static func load(_ path: String) throws -> [SpotterPhrase] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw PocketSphinxError(operation: "loading the command phrases", detail: "cannot read \(path)")
        }
        var group = 0
        var phrases: [SpotterPhrase] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let content = line.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            if content.isEmpty {
                if line.trimmingCharacters(in: .whitespaces).isEmpty, phrases.last?.group == group { group += 1 }
                continue
            }
            let parts = content.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 || (parts.count == 4 && parts[2] == "narrowband"), parts.allSatisfy({ !$0.isEmpty })
            else {
                throw PocketSphinxError(
                    operation: "loading the command phrases",
                    detail:
                        "'\(content)' in \(path) is not 'phrase /threshold/' or 'phrase /threshold/ narrowband "
                        + "/threshold/'"
                )
            }
            phrases.append(
                SpotterPhrase(
                    phrase: parts[0], threshold: parts[1], narrowbandThreshold: parts.count == 4 ? parts[3] : nil,
                    group: group))
        }
        guard !phrases.isEmpty else {
            throw PocketSphinxError(operation: "loading the command phrases", detail: "\(path) lists none")
        }
        return phrases
    }
}
