import BoxVoiceTestSupport
import Foundation
import Testing

/// `make setup` mends whisper.cpp before it builds it: a read past the end in its word timing
/// (scripts/whisper-dtw-guard.py: the placing loop stops when the segments are used up), and the scoring of rows
/// nobody reads (scripts/whisper-last-logits.py: a batch whose last row alone is read projects only that row), and
/// an abort asked only after a whole encoder pass (scripts/whisper-encoder-abort.py: the scheduler's runs ask it
/// between nodes).
@Suite struct WhisperSourceMendTests {
    static let script = Checkout.root + "/scripts/whisper-dtw-guard.py"
    static let lastLogits = Checkout.root + "/scripts/whisper-last-logits.py"
    static let encoderAbort = Checkout.root + "/scripts/whisper-encoder-abort.py"

    /// Runs `script` over `source`, written to a file as whisper.cpp's source; what the script said, and the file
    /// after it.
    static func mend(_ source: String, by script: String) throws -> (run: ProcessResult, file: String) {
        let dir = TemporaryDirectory("whisper-mend")
        let file = dir.file("whisper.cpp")
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try Run.process("/usr/bin/python3", [script, file])
        return (run, try String(contentsOfFile: file, encoding: .utf8))
    }

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
        let (run, mended) = try Self.mend(Self.loop, by: Self.script)
        #expect(run.status == 0, "\(run.stderr)")
        let guardLine = "if (seg_i == state->result_all.end()) { goto boxvoice_dtw_placed; }"
        #expect(mended.components(separatedBy: guardLine).count == 3, "both steps guarded:\n\(mended)")
        #expect(mended.contains("boxvoice_dtw_placed:\n\n    // Print DTW timestamps"))
    }

    @Test func aSourceWithoutTheLoopIsRefusedUntouched() throws {
        let other = "int main() { return 0; }\n"
        let (run, after) = try Self.mend(other, by: Self.script)
        #expect(run.status != 0)
        #expect(run.stderr.contains("expected 2 segment steps"))
        #expect(after == other)
    }

    /// The decoder's projection and the copy of its scores as whisper.cpp 1.8.5 writes them (their shape).
    static let decoder = """
        static struct ggml_cgraph * whisper_build_graph_decoder(
            const whisper_batch & batch,
                           bool   worst_case) {
            const int n_tokens    = batch.n_tokens;
            struct ggml_tensor * logits = ggml_mul_mat(ctx0, model.d_te, cur);
        }
        static bool whisper_decode_internal() {
            for (int i = 0; i < n_tokens; i++) {
                ggml_backend_tensor_get(logits, logits_out.data() + (n_vocab*i), sizeof(float)*(n_vocab*i), \
        sizeof(float)*n_vocab);
            }
        }

        """

    @Test func theProjectionKeepsTheLastRowAloneAndTheCopyReadsItFirst() throws {
        let (run, mended) = try Self.mend(Self.decoder, by: Self.lastLogits)
        #expect(run.status == 0, "\(run.stderr)")
        let view = "cur = ggml_view_2d(ctx0, cur, cur->ne[0], 1, cur->nb[1], (cur->ne[1] - 1)*cur->nb[1]);"
        let projection = "struct ggml_tensor * logits = ggml_mul_mat(ctx0, model.d_te, cur);"
        let viewAt = try #require(mended.range(of: view))
        let projectionAt = try #require(mended.range(of: projection))
        #expect(viewAt.upperBound < projectionAt.lowerBound, "the row is chosen before it is projected")
        #expect(mended.contains("if (!worst_case && n_tokens > 1 && batch.logits[n_tokens - 1])"))
        #expect(mended.contains("const size_t boxvoice_row = logits->ne[1] == 1 ? 0 : i;"))
        #expect(mended.contains("sizeof(float)*(n_vocab*boxvoice_row), sizeof(float)*n_vocab);"))
        #expect(!mended.contains("sizeof(float)*(n_vocab*i), sizeof(float)*n_vocab);"), "the old copy is gone")
    }

    @Test func aDecoderOfAnotherShapeIsRefusedUntouched() throws {
        // The copy is there; the projection is not (another whisper.cpp).
        let other = Self.decoder.replacingOccurrences(of: "model.d_te, cur", with: "model.d_te, inpL")
        let (run, after) = try Self.mend(other, by: Self.lastLogits)
        #expect(run.status != 0)
        #expect(run.stderr.contains("the vocabulary projection was not found"))
        #expect(after == other)
    }

    /// The scheduler's graph helper and its four runs in the encoder and decoder, as whisper.cpp 1.8.5 writes them
    /// (their shape).
    static let scheduled = """
        static bool ggml_graph_compute_helper(
              ggml_backend_sched_t   sched,
                struct ggml_cgraph * graph,
                               int   n_threads,
                              bool   sched_reset = true) {
            for (int i = 0; i < n; ++i) {
                if (fn_set_n_threads) {
                    fn_set_n_threads(backend, n_threads);
                }
            }
        }
        static bool whisper_encode_internal() {
            if (!ggml_graph_compute_helper(sched, gf, n_threads)) { return false; }
            if (!ggml_graph_compute_helper(sched, gf, n_threads)) { return false; }
            if (!ggml_graph_compute_helper(sched, gf, n_threads)) { return false; }
        }
        static bool whisper_decode_internal() {
            if (!ggml_graph_compute_helper(sched, gf, n_threads)) { return false; }
        }
        static bool whisper_vad() {
            if (!ggml_graph_compute_helper(sched, gf, vctx->n_threads, false)) { return false; }
        }

        """

    @Test func theEncodersAndDecodersRunsAreGivenTheAbortCallback() throws {
        let (run, mended) = try Self.mend(Self.scheduled, by: Self.encoderAbort)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(mended.contains("void * abort_callback_data = nullptr) {"))
        #expect(mended.contains("boxvoice_set_abort(backend, abort_callback, abort_callback_data);"))
        let passed = "ggml_graph_compute_helper(sched, gf, n_threads, true, abort_callback, abort_callback_data))"
        #expect(mended.components(separatedBy: passed).count == 5, "all four runs pass it:\n\(mended)")
        #expect(mended.contains("ggml_graph_compute_helper(sched, gf, vctx->n_threads, false))"), "the VAD's is kept")
    }

    @Test func aSourceWithAnotherNumberOfRunsIsRefusedUntouched() throws {
        let other = Self.scheduled.replacingOccurrences(
            of: "static bool whisper_decode_internal() {\n    if (!ggml_graph_compute_helper(sched, gf, n_threads)) { "
                + "return false; }\n", with: "static bool whisper_decode_internal() {\n")
        #expect(other != Self.scheduled)
        let (run, after) = try Self.mend(other, by: Self.encoderAbort)
        #expect(run.status != 0)
        #expect(run.stderr.contains("found 3 of the encoder's and decoder's graph runs, expected 4"))
        #expect(after == other)
    }
}
