import BoxVoiceKeywords
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct GoldenVectorTests {
    static let detector = try! KeywordDetector(contentsOf: Checkout.keywordVocabulary)

    static func vectorFiles(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted().map { directory + "/" + $0 }
    }

    static let boxVectors = vectorFiles(in: Checkout.keywordVectors)
    static let ownVectors = vectorFiles(in: Checkout.root + "/Tests/BoxVoiceKeywordsTests/Vectors")

    @Test func theBoxShipsTwentyOneKeywordVectors() {
        #expect(Self.boxVectors.count == 21)
    }

    @Test(arguments: boxVectors)
    func boxVectorPasses(_ path: String) throws {
        let outcome = GoldenVector.evaluate(try Data(contentsOf: URL(fileURLWithPath: path)), with: Self.detector)
        #expect(outcome.passed, "input \(outcome.input)\nexpected \(outcome.expected)\nactual \(outcome.actual)")
    }

    @Test(arguments: ownVectors)
    func ownVectorPasses(_ path: String) throws {
        let outcome = GoldenVector.evaluate(try Data(contentsOf: URL(fileURLWithPath: path)), with: Self.detector)
        #expect(outcome.passed, "input \(outcome.input)\nexpected \(outcome.expected)\nactual \(outcome.actual)")
    }

    @Test func ownVectorFolderIsNotEmpty() {
        #expect(Self.ownVectors.count >= 20)
    }

    @Test func aWrongExpectationFails() {
        let vector = #"{"op":"detect","input":{"transcript":"cancel message"},"expected":{"action":"send"}}"#
        let outcome = GoldenVector.evaluate(Data(vector.utf8), with: Self.detector)
        #expect(!outcome.passed)
        #expect(outcome.actual.contains("\"action\":\"cancel\""))
        #expect(outcome.expected == #"{"action":"send"}"#)
    }

    @Test func expectingNullFailsWhenSomethingIsFound() {
        let vector = #"{"op":"detect","input":{"transcript":"send now"},"expected":null}"#
        #expect(!GoldenVector.evaluate(Data(vector.utf8), with: Self.detector).passed)
    }

    @Test func atStartIsHonoured() {
        let atStart = #"{"op":"detect","input":{"transcript":"OK send now","atStart":true},"expected":null}"#
        #expect(GoldenVector.evaluate(Data(atStart.utf8), with: Self.detector).passed)
        let anywhere = #"{"op":"detect","input":{"transcript":"OK send now","atStart":false},"expected":null}"#
        #expect(!GoldenVector.evaluate(Data(anywhere.utf8), with: Self.detector).passed)
    }

    @Test(arguments: [
        (#"{"op":"translate","input":{"transcript":"x"},"expected":null}"#, "unknown op \"translate\""),
        (#"{"input":{"transcript":"x"},"expected":null}"#, "no \"op\" string"),
        (#"{"op":"detect","input":{"transcript":"x"}}"#, "no \"expected\" field"),
        (#"{"op":"detect","expected":null}"#, "no \"input\" object"),
        (#"{"op":"detect","input":{"transcript":7},"expected":null}"#, "input.transcript is not a string"),
        (
            #"{"op":"append","input":{"transcript":"x","action":"shout","matchedPhrase":"y"},"expected":"z"}"#,
            "unknown action \"shout\""
        ),
        (#"{"op":"detect","input":{"transcript":"send now"},"expected":{"verb":"send"}}"#, "unknown field \"verb\""),
        (#"[1, 2"#, "not valid JSON"),
        (#"[1, 2]"#, "not a JSON object"),
    ])
    func malformedVectorFailsWithItsReason(_ vector: String, _ reason: String) {
        let outcome = GoldenVector.evaluate(Data(vector.utf8), with: Self.detector)
        #expect(!outcome.passed)
        #expect(outcome.actual.contains(reason), "\(outcome.actual)")
    }
}
