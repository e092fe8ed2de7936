#!/usr/bin/env bash
# `make uninstall`: removes exactly what `make install` listed, then the folders it leaves empty. Your data
# ($XDG_DATA_HOME/boxvoice) and configuration are yours and stay.
set -euo pipefail
destdir=$1 prefix=$2
manifest=$destdir$prefix/share/boxvoice/installed-files
[ -f "$manifest" ] || { echo "uninstall: nothing is installed under $destdir$prefix (no $manifest)"; exit 0; }
count=0
while IFS= read -r file; do
    [ -n "$file" ] || continue
    rm -f "$destdir$file" && count=$((count + 1))
    dir=$(dirname "$destdir$file")
    while [ "$dir" != "$destdir$prefix" ] && rmdir "$dir" 2>/dev/null; do dir=$(dirname "$dir"); done
done <"$manifest"
echo "removed $count files of boxvoice from $destdir$prefix"
