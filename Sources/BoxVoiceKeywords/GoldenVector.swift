import Foundation

/// One golden keyword vector (`Vectors/speech-keywords/*.json`), evaluated against a detector.
///
/// Shapes: `{"op":"detect","input":{"transcript","atStart"?},"expected":null |
/// {"action"?,"processedTranscript"?,"matchedPhrase"?}}`
/// (each present field must equal) and
/// `{"op":"append","input":{"transcript","action","matchedPhrase"},"expected":"…"}`.
public enum GoldenVector {
    public struct Outcome: Sendable, Equatable {
        public let passed: Bool
        /// What was asked, expected and produced (or why the vector is unusable), for a failure report.
        public let input: String
        public let expected: String
        public let actual: String

        public init(passed: Bool, input: String, expected: String, actual: String) {
            self.passed = passed
            self.input = input
            self.expected = expected
            self.actual = actual
        }
    }

    public static func evaluate(_ data: Data, with detector: KeywordDetector) -> Outcome {
        let vector: Vector
        do {
            vector = try JSONDecoder().decode(Vector.self, from: data)
        } catch DecodingError.typeMismatch {
            return unusable("the file is not a JSON object")
        } catch {
            return unusable("the file is not valid JSON (\(error.localizedDescription))")
        }
        guard let input = vector.input else { return unusable("no \"input\" object") }
        guard let expected = vector.expected else { return unusable("no \"expected\" field") }
        let inputText = describe(input)
        switch vector.op {
        case "detect":
            guard let transcript = input.transcript else { return unusable("input.transcript is not a string") }
            let found = detector.detect(transcript, atStart: input.atStart ?? false)
            let produced = found.map {
                [
                    "action": $0.action.rawValue, "processedTranscript": $0.processedTranscript,
                    "matchedPhrase": $0.matchedPhrase,
                ]
            }
            let actual = produced.map(describe) ?? "null"
            switch expected {
            case .null:
                return Outcome(passed: found == nil, input: inputText, expected: "null", actual: actual)
            case .fields(let fields):
                guard let produced else {
                    return Outcome(passed: false, input: inputText, expected: describe(fields), actual: "null")
                }
                if let unknown = fields.keys.sorted().first(where: { produced[$0] == nil }) {
                    return unusable("expected has an unknown field \"\(unknown)\"")
                }
                let passed = fields.allSatisfy { key, value in value == produced[key] }
                return Outcome(passed: passed, input: inputText, expected: describe(fields), actual: actual)
            case .text, .other:
                return unusable("expected is neither null nor an object of strings")
            }
        case "append":
            guard let transcript = input.transcript, let actionName = input.action, let phrase = input.matchedPhrase
            else {
                return unusable("input needs transcript, action and matchedPhrase strings")
            }
            guard let action = KeywordAction(rawValue: actionName) else {
                return unusable("unknown action \"\(actionName)\"")
            }
            guard case .text(let expectedText) = expected else { return unusable("expected is not a string") }
            let actual = detector.appendSendKeywordTag(transcript, action: action, matchedPhrase: phrase)
            return Outcome(
                passed: actual == expectedText, input: inputText, expected: describe(expectedText),
                actual: describe(actual))
        case let op?:
            return unusable("unknown op \"\(op)\"")
        case nil:
            return unusable("no \"op\" string")
        }
    }

    /// A vector as read. A field of the wrong type reads as absent, so each gets its own reason rather than one
    /// decoding error for the whole file.
    private struct Vector: Decodable {
        struct Input: Codable {
            var transcript: String?
            var atStart: Bool?
            var action: String?
            var matchedPhrase: String?

            init(from decoder: Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                transcript = try? container.decodeIfPresent(String.self, forKey: .transcript)
                atStart = try? container.decodeIfPresent(Bool.self, forKey: .atStart)
                action = try? container.decodeIfPresent(String.self, forKey: .action)
                matchedPhrase = try? container.decodeIfPresent(String.self, forKey: .matchedPhrase)
            }
        }

        enum Expected {
            case null
            case fields([String: String])
            case text(String)
            case other
        }

        var op: String?
        var input: Input?
        /// nil when the key is missing (`null` is `.null`).
        var expected: Expected?

        enum CodingKeys: String, CodingKey { case op, input, expected }

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            op = try? container.decodeIfPresent(String.self, forKey: .op)
            input = try? container.decodeIfPresent(Input.self, forKey: .input)
            if !container.contains(.expected) {
                expected = nil
            } else if try container.decodeNil(forKey: .expected) {
                expected = .null
            } else if let text = try? container.decode(String.self, forKey: .expected) {
                expected = .text(text)
            } else if let fields = try? container.decode([String: String].self, forKey: .expected) {
                expected = .fields(fields)
            } else {
                expected = .other
            }
        }
    }

    private static func unusable(_ reason: String) -> Outcome {
        Outcome(passed: false, input: "(unusable vector)", expected: "a valid vector", actual: reason)
    }

    /// JSON text with sorted keys, as a failure report shows it.
    private static func describe<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return String(describing: value) }
        return String(decoding: data, as: UTF8.self)
    }
}
