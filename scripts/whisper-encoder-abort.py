#!/usr/bin/env python3
"""Lets a decode of whisper.cpp 1.8.5 be abandoned while its encoder runs (src/whisper.cpp).

whisper.cpp takes an abort callback and hands it to the CPU backend only in its plain graph helper; the encoder,
the cross-attention and each decoder step run through the scheduler's helper, which never sets it, so the callback
is asked only once a whole pass is done. Encoding a few seconds of speech with Whisper base takes about half a
second on two cores, and boxvoice abandons decodes it no longer needs (one started while the speaker paused, who
then went on; one past its deadline): the next utterance waited behind the whole pass. The mend gives the
scheduler's helper the callback (none by default, which also clears one an earlier pass set) and passes it from
the encoder and the decoder, so ggml asks it between the graph's nodes.

Usage: whisper-encoder-abort.py path/to/whisper.cpp/src/whisper.cpp (edited in place; fails unless every place is
found exactly as expected, so a different whisper.cpp is never half-mended).
"""
import sys

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    source = f.read()

signature = (
    "                       int   n_threads,\n"
    "                      bool   sched_reset = true) {\n"
)
signature_with_abort = (
    "                       int   n_threads,\n"
    "                      bool   sched_reset = true,\n"
    "       ggml_abort_callback   abort_callback = nullptr,\n"
    "                      void * abort_callback_data = nullptr) {\n"
)
threads_set = (
    "        if (fn_set_n_threads) {\n"
    "            fn_set_n_threads(backend, n_threads);\n"
    "        }\n"
)
abort_set = (
    "        // boxvoice: the abort callback reaches the scheduler's backends too (none clears an earlier one).\n"
    "        auto * boxvoice_set_abort = (ggml_backend_set_abort_callback_t) "
    "ggml_backend_reg_get_proc_address(reg, \"ggml_backend_set_abort_callback\");\n"
    "        if (boxvoice_set_abort) {\n"
    "            boxvoice_set_abort(backend, abort_callback, abort_callback_data);\n"
    "        }\n"
)
call = "ggml_graph_compute_helper(sched, gf, n_threads))"
call_with_abort = "ggml_graph_compute_helper(sched, gf, n_threads, true, abort_callback, abort_callback_data))"

for found, count, what in (
    (signature, 1, "the scheduler's graph helper"),
    (threads_set, 1, "the helper's thread setting"),
    (call, 4, "the encoder's and decoder's graph runs"),
):
    if source.count(found) != count:
        sys.exit(f"whisper-encoder-abort: found {source.count(found)} of {what}, expected {count}, in {path}")
source = (
    source.replace(signature, signature_with_abort, 1)
    .replace(threads_set, threads_set + abort_set, 1)
    .replace(call, call_with_abort)
)
with open(path, "w", encoding="utf-8") as f:
    f.write(source)
