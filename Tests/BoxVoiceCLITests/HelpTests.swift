import BoxVoiceTestSupport
import Foundation
import Testing

/// `boxvoice help`: the command list a new user reads first.
@Suite struct HelpTests {
    @Test func everyCommandIsListedWithItsSummaryInOneAlignedColumn() throws {
        let help = try Run.process(
            Run.boxvoice, ["help"], environment: Run.isolatedEnvironment(TemporaryDirectory("help")))
        #expect(help.status == 0)
        let rows = help.stdout.split(separator: "\n").drop { $0 != "Commands:" }.dropFirst().prefix {
            $0.hasPrefix("  ")
        }
        let names = rows.map { $0.split(separator: " ").first.map(String.init) ?? "" }
        for command in ["dictate", "transcribe", "recordings", "daemon", "toggle", "status"] {
            #expect(names.contains(command), "\(command) missing from: \(help.stdout)")
        }
        // Each summary starts in the same column, at least one space after the longest name.
        let columns = Set(
            rows.map { row in
                row.dropFirst(2).firstIndex(of: " ").map { row.distance(from: row.startIndex, to: $0) } ?? -1
            })
        #expect(!columns.contains(-1))
        let summaryColumns = Set(
            rows.map { row in
                let afterName = row.dropFirst(2).drop { $0 != " " }
                return row.count - afterName.drop { $0 == " " }.count
            })
        #expect(summaryColumns.count == 1, "\(help.stdout)")
    }
}
