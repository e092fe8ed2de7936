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
        let object: [String: Any]
        do {
            guard
                let decoded = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
                    as? [String: Any]
            else {
                return unusable("the file is not a JSON object")
            }
            object = decoded
        } catch {
            return unusable("the file is not valid JSON (\(error.localizedDescription))")
        }
        guard let input = object["input"] as? [String: Any] else { return unusable("no \"input\" object") }
        guard object.keys.contains("expected") else { return unusable("no \"expected\" field") }
        let expected = object["expected"]!
        let inputText = describe(input)
        switch object["op"] as? String {
        case "detect":
            guard let transcript = input["transcript"] as? String else {
                return unusable("input.transcript is not a string")
            }
            let atStart = input["atStart"] as? Bool ?? false
            let found = detector.detect(transcript, atStart: atStart)
            let actual =
                found.map {
                    describe([
                        "action": $0.action.rawValue, "processedTranscript": $0.processedTranscript,
                        "matchedPhrase": $0.matchedPhrase,
                    ])
                } ?? "null"
            if expected is NSNull {
                return Outcome(passed: found == nil, input: inputText, expected: "null", actual: actual)
            }
            guard let fields = expected as? [String: Any] else {
                return unusable("expected is neither null nor an object")
            }
            guard let found else {
                return Outcome(passed: false, input: inputText, expected: describe(fields), actual: "null")
            }
            let produced: [String: String] = [
                "action": found.action.rawValue, "processedTranscript": found.processedTranscript,
                "matchedPhrase": found.matchedPhrase,
            ]
            for key in fields.keys where produced[key] == nil {
                return unusable("expected has an unknown field \"\(key)\"")
            }
            let passed = fields.allSatisfy { key, value in (value as? String) == produced[key] }
            return Outcome(passed: passed, input: inputText, expected: describe(fields), actual: actual)
        case "append":
            guard let transcript = input["transcript"] as? String, let actionName = input["action"] as? String,
                let phrase = input["matchedPhrase"] as? String
            else {
                return unusable("input needs transcript, action and matchedPhrase strings")
            }
            guard let action = KeywordAction(rawValue: actionName) else {
                return unusable("unknown action \"\(actionName)\"")
            }
            guard let expectedText = expected as? String else { return unusable("expected is not a string") }
            let actual = detector.appendSendKeywordTag(transcript, action: action, matchedPhrase: phrase)
            return Outcome(
                passed: actual == expectedText, input: inputText, expected: quote(expectedText), actual: quote(actual))
        case let op?:
            return unusable("unknown op \"\(op)\"")
        case nil:
            return unusable("no \"op\" string")
        }
    }

    private static func unusable(_ reason: String) -> Outcome {
        Outcome(passed: false, input: "(unusable vector)", expected: "a valid vector", actual: reason)
    }

    private static func describe(_ object: [String: Any]) -> String {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else {
            return String(describing: object)
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func quote(_ text: String) -> String {
        let data = try? JSONSerialization.data(
            withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? text
    }
}
