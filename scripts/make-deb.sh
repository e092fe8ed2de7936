#!/usr/bin/env bash
# `make deb`: a Debian package from the same install tree as `make install` (PREFIX=/usr), its Depends computed by
# dpkg-shlibdeps from the binaries' own library needs, plus pocketsphinx-en-us (a data package: the acoustic and
# language models the live recognizer loads, which no shared-library lookup can find). Checked with lintian.
set -euo pipefail
bin_dir=$1
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$root/VERSION")
arch=$(dpkg --print-architecture)
out=$root/build/deb
rm -rf "$out"
stage=$out/boxvoice_${version}_$arch
mkdir -p "$stage/DEBIAN"
"$root/scripts/install.sh" "$bin_dir" "$stage" /usr >/dev/null
rm -f "$stage/usr/share/boxvoice/installed-files"  # dpkg keeps its own list
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/boxvoice" "$stage/usr/bin/boxsim"
# The hearing libraries ship stripped too, and the binaries look for them only beside themselves: the build folder's
# path (which the build links in so the checkout's programs run) has no place in a package.
for library in "$stage"/usr/lib/boxvoice/lib*.so*; do
    [ -L "$library" ] || strip --strip-unneeded --remove-section=.comment "$library"
done
patchelf --set-rpath '$ORIGIN/../lib/boxvoice' "$stage/usr/bin/boxvoice" "$stage/usr/bin/boxsim"
doc=$stage/usr/share/doc/boxvoice
install -d "$doc"
cat >"$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: boxvoice
Source: https://github.com/boxvoice/boxvoice

Files: *
Copyright: 2026 the boxvoice developers
License: all-rights-reserved
 No licence has been chosen for boxvoice yet: the project has not granted one, so none is
 claimed here. Ask the boxvoice developers before redistributing this package.

Files: usr/lib/boxvoice/libwhisper* usr/lib/boxvoice/libggml* usr/share/boxvoice/Models/ggml-base-q8_0.bin
 usr/share/boxvoice/Models/silero-v6.2.0.bin
Copyright: 2023-2026 The ggml authors; Whisper weights 2022 OpenAI
License: MIT
 See usr/share/boxvoice/Models/whisper.cpp.LICENSE.
COPYRIGHT
printf 'boxvoice (%s) unstable; urgency=medium\n\n  * Release %s (commit %s).\n\n -- boxvoice developers <dev@boxvoice.invalid>  %s\n' \
    "$version" "$version" "$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" "$(date -R)" | gzip -9n >"$doc/changelog.gz"
# Depends: what the binaries link, as dpkg-shlibdeps finds it (it wants a debian/control beside it).
shlib=$out/shlibdeps
mkdir -p "$shlib/debian"
printf 'Source: boxvoice\n\nPackage: boxvoice\nArchitecture: any\n' >"$shlib/debian/control"
# The hearing libraries ship inside the package (usr/lib/boxvoice): searched there as private, and their own needs
# (libstdc++, libgomp, …) become Depends like the binaries'.
private=("$stage"/usr/lib/boxvoice/lib*.so*)
depends=$(cd "$shlib" && dpkg-shlibdeps -O -l"$stage/usr/lib/boxvoice" -e"$stage/usr/bin/boxvoice" -e"$stage/usr/bin/boxsim" \
    $(for library in "${private[@]}"; do [ -L "$library" ] || printf -- '-e%s ' "$library"; done) 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk "$stage/usr" | cut -f1)
cat >"$stage/DEBIAN/control" <<CONTROL
Package: boxvoice
Version: $version
Architecture: $arch
Maintainer: boxvoice developers <dev@boxvoice.invalid>
Installed-Size: $size
Depends: $depends, pocketsphinx-en-us
Recommends: sphinxtrain, sphinxbase-utils, pocketsphinx
Section: sound
Priority: optional
Homepage: https://github.com/boxvoice/boxvoice
Description: dictate messages from a Linux desktop to your box
 boxvoice records the microphone through ALSA, shows a live transcript
 (pocketsphinx), acts on spoken commands such as "over and out", and
 delivers each message to a self-hosted assistant box through a durable
 outbox, with the box's high-quality transcription. boxsim is a local box
 speaking the same contract, for trying it without one.
CONTROL
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out/boxvoice_${version}_$arch.deb" >/dev/null
echo "$out/boxvoice_${version}_$arch.deb"
echo "Depends: $depends, pocketsphinx-en-us"
