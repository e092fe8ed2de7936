import BoxVoiceTestSupport
import Foundation
import Testing

/// `make setup` mends a read past the end in whisper.cpp's word timing before it builds it
/// (scripts/whisper-dtw-guard.py): the placing loop stops when the segments are used up.
@Suite struct WhisperSourceMendTests {
    static let script = Checkout.root + "/scripts/whisper-dtw-guard.py"

    /// The placing loop as whisper.cpp 1.8.5 writes it (its shape, not its code).
    static let loop = """
        static void place() {
            for (int i = 0; i < n; ++i) {
                if (v != last_v) {
                    while (!(tok_i->id < eot)) {
                        ++tok_i;
                        if (tok_i == seg_i->tokens.end()) {
                            ++seg_i;
                            tok_i = seg_i->tokens.begin();
                        }
                    }
                    ++tok_i;
                    if (tok_i == seg_i->tokens.end()) {
                        ++seg_i;
                        tok_i = seg_i->tokens.begin();
                    }
                }
            }

            // Print DTW timestamps
        }

        """

    @Test func bothStepsToTheNextSegmentStopAtTheEnd() throws {
        let dir = TemporaryDirectory("whisper-mend")
        let file = dir.file("whisper.cpp")
        try Self.loop.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try Run.process("/usr/bin/python3", [Self.script, file])
        #expect(run.status == 0, "\(run.stderr)")
        let mended = try String(contentsOfFile: file, encoding: .utf8)
        let guardLine = "if (seg_i == state->result_all.end()) { goto boxvoice_dtw_placed; }"
        #expect(mended.components(separatedBy: guardLine).count == 3, "both steps guarded:\n\(mended)")
        #expect(mended.contains("boxvoice_dtw_placed:\n\n    // Print DTW timestamps"))
    }

    @Test func aSourceWithoutTheLoopIsRefusedUntouched() throws {
        let dir = TemporaryDirectory("whisper-mend")
        let file = dir.file("whisper.cpp")
        let other = "int main() { return 0; }\n"
        try other.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try Run.process("/usr/bin/python3", [Self.script, file])
        #expect(run.status != 0)
        #expect(run.stderr.contains("expected 2 segment steps"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == other)
    }
}
