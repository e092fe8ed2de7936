#!/usr/bin/env python3
"""Makes whisper.cpp 1.8.5 project only the rows it reads onto the vocabulary (src/whisper.cpp, the text decoder).

A batch of tokens fed to the decoder (the prompt and the start of the text, about fifty tokens for boxvoice's
command prompt) is projected onto all 51,865 words of the vocabulary, row by row, though only the last row's
scores are read (`whisper_batch_prep_legacy` asks for that one; the line that would keep only it is commented out
upstream). For Whisper base that is about 2.7 GFLOP of work thrown away per decode, most of what the prompt costs.
The mend keeps only the last row when a batch asks for the last row alone, and copies it where the caller looks
for it; a batch asking for more rows (beam search's decoders) is projected whole, as before. The scores read are
the same numbers either way.

Usage: whisper-last-logits.py path/to/whisper.cpp/src/whisper.cpp (edited in place; fails unless both places are
found exactly as expected, so a different whisper.cpp is never half-mended).
"""
import sys

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    source = f.read()

projection = "    struct ggml_tensor * logits = ggml_mul_mat(ctx0, model.d_te, cur);\n"
only_last = (
    "    // boxvoice: when only the last row's scores are read, only the last row is projected.\n"
    "    if (!worst_case && n_tokens > 1 && batch.logits[n_tokens - 1]) {\n"
    "        bool boxvoice_last_only = true;\n"
    "        for (int i = 0; i < n_tokens - 1; ++i) { if (batch.logits[i]) { boxvoice_last_only = false; } }\n"
    "        if (boxvoice_last_only) {\n"
    "            cur = ggml_view_2d(ctx0, cur, cur->ne[0], 1, cur->nb[1], (cur->ne[1] - 1)*cur->nb[1]);\n"
    "        }\n"
    "    }\n"
    "\n"
)
copy = (
    "        ggml_backend_tensor_get(logits, logits_out.data() + (n_vocab*i), sizeof(float)*(n_vocab*i), "
    "sizeof(float)*n_vocab);\n"
)
copy_either = (
    "        // boxvoice: a projection of the last row alone holds that row first.\n"
    "        const size_t boxvoice_row = logits->ne[1] == 1 ? 0 : i;\n"
    "        ggml_backend_tensor_get(logits, logits_out.data() + (n_vocab*i), sizeof(float)*(n_vocab*boxvoice_row), "
    "sizeof(float)*n_vocab);\n"
)
for found, what in ((projection, "the vocabulary projection"), (copy, "the copy of the scores")):
    if source.count(found) != 1:
        sys.exit(f"whisper-last-logits: {what} was not found exactly once in {path}")
if "const int n_tokens" not in source.split(projection)[0].rsplit("whisper_build_graph_decoder(", 1)[1]:
    sys.exit(f"whisper-last-logits: the decoder's n_tokens was not found in {path}")
source = source.replace(projection, only_last + projection, 1).replace(copy, copy_either, 1)
with open(path, "w", encoding="utf-8") as f:
    f.write(source)
