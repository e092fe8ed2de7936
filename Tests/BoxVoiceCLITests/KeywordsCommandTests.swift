import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct KeywordsCommandTests {
    @Test func validatePassesTheBoxsGoldenVectors() throws {
        let result = try Run.boxvoice("keywords", "validate", Checkout.keywordVectors)
        #expect(result.status == 0)
        #expect(result.stdout == "21 passed, 0 failed\n")
    }

    @Test func validateRunsAnyFolderWrittenToTheContract() throws {
        let result = try Run.boxvoice("keywords", "validate", Checkout.root + "/Tests/BoxVoiceKeywordsTests/Vectors")
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix(" passed, 0 failed\n"))
    }

    @Test func validateReportsEachFailureAndExitsNonZero() throws {
        let dir = TemporaryDirectory("vectors")
        try #"{"op":"detect","input":{"transcript":"send now"},"expected":{"action":"send"}}"#.write(
            toFile: dir.file("a-good.json"), atomically: true, encoding: .utf8)
        try #"{"op":"detect","input":{"transcript":"cancel message"},"expected":{"action":"erase"}}"#.write(
            toFile: dir.file("b-wrong.json"), atomically: true, encoding: .utf8)
        try #"{"op":"shout","input":{},"expected":null}"#.write(
            toFile: dir.file("c-unknown-op.json"), atomically: true, encoding: .utf8)
        try "{ not json".write(toFile: dir.file("d-broken.json"), atomically: true, encoding: .utf8)
        try "ignored".write(toFile: dir.file("notes.txt"), atomically: true, encoding: .utf8)
        let result = try Run.boxvoice("keywords", "validate", dir.path)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "FAIL b-wrong.json\n  input:    {\"transcript\":\"cancel message\"}\n  expected: "
                    + "{\"action\":\"erase\"}\n  actual:   {\"action\":\"cancel\""
            ))
        #expect(result.stdout.contains("FAIL c-unknown-op.json"))
        #expect(result.stdout.contains("unknown op \"shout\""))
        #expect(result.stdout.contains("FAIL d-broken.json"))
        #expect(result.stdout.hasSuffix("1 passed, 3 failed\n"))
    }

    @Test func validateOfAnEmptyFolderFails() throws {
        let dir = TemporaryDirectory("vectors")
        let result = try Run.boxvoice("keywords", "validate", dir.path)
        #expect(result.status == 1)
        #expect(result.stdout == "0 passed, 0 failed\n")
        #expect(result.stderr.contains("no *.json vectors"))
    }

    @Test func detectPrintsActionPhraseAndTaggedText() throws {
        let result = try Run.boxvoice("keywords", "detect", "Buy milk, over and out.")
        #expect(result.status == 0)
        #expect(
            result.stdout
                == "action: sendClose\nphrase: over and out\ntext:   Buy milk, <send-close-message phrase=\"over and "
                    + "out\" />.\n"
        )
        let none = try Run.boxvoice("keywords", "detect", "--at-start", "Buy milk, over and out.")
        #expect(none.stdout == "no keyword\n")
    }

    @Test func detectJSONIsMachineReadable() throws {
        let result = try Run.boxvoice("keywords", "detect", "--json", "cancel the message")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]
        #expect(object?["action"] == "cancel")
        #expect(object?["tag"] == "cancel-message")
        #expect(object?["processedTranscript"] == "<cancel-message phrase=\"cancel the message\" />")
        #expect(try Run.boxvoice("keywords", "detect", "--json", "hello").stdout == "null\n")
    }

    @Test func anotherLanguagesVocabularyCanBeUsed() throws {
        let dir = TemporaryDirectory("vocab")
        try """
        [sendClose send-close-message]
        (senden | schicken) und (schließen | beenden)
        [send send-message]
        nachricht (senden | schicken)
        """.write(toFile: dir.file("speech-keywords.de.txt"), atomically: true, encoding: .utf8)
        let result = try Run.boxvoice(
            "keywords", "detect", "--keywords", dir.file("speech-keywords.de.txt"), "Milch kaufen. Nachricht senden!")
        #expect(result.stdout.contains("action: send\n"))
        #expect(result.stdout.contains("<send-message phrase=\"Nachricht senden\" />!"))
        let close = try Run.boxvoice(
            "keywords", "detect", "--keywords", dir.file("speech-keywords.de.txt"), "senden und schliessen")
        #expect(close.stdout == "no keyword\n")  // ß normalizes away: the vocabulary says schließen → "schlieen"
    }

    @Test func malformedVocabularyIsReportedWithLineAndColumn() throws {
        let dir = TemporaryDirectory("vocab")
        try "[send send-message]\nsend (now | later\n".write(
            toFile: dir.file("bad.txt"), atomically: true, encoding: .utf8)
        let result = try Run.boxvoice("keywords", "detect", "--keywords", dir.file("bad.txt"), "send now")
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("the keyword vocabulary is malformed: \(dir.file("bad.txt")):2:18: expected ')'"))
    }

    @Test func findsModelsFromAnyWorkingDirectory() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Run.boxvoice)
        process.arguments = ["keywords", "detect", "start over"]
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "BOXVOICE_MODELS")
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(
            String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).hasPrefix("action: erase"))
    }

    @Test func modelsEnvironmentVariablePointingNowhereIsAClearError() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["BOXVOICE_MODELS"] = "/nonexistent/models"
        let result = try Run.boxvoice("keywords", "detect", "x", environment: environment)
        #expect(result.status == 1)
        #expect(result.stderr.contains("BOXVOICE_MODELS names '/nonexistent/models'"))
    }
}
