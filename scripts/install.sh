#!/usr/bin/env bash
# `make install` / `make deb`: installs the release build into DESTDIR+PREFIX (binaries, Models, systemd user unit,
# man pages, bash/zsh/fish completions) and writes the list of what it installed, which `make uninstall` removes.
set -euo pipefail
bin_dir=$1 destdir=$2 prefix=$3
root=$(cd "$(dirname "$0")/.." && pwd)
target=$destdir$prefix
manifest=$target/share/boxvoice/installed-files
files=()
put() { # mode source destination (relative to PREFIX)
    install -D -m "$1" "$2" "$target/$3"
    files+=("$prefix/$3")
}
generated() { # mode destination command...
    local mode=$1 dest=$2; shift 2
    local tmp; tmp=$(mktemp)
    "$@" >"$tmp"
    put "$mode" "$tmp" "$dest"
    rm -f "$tmp"
}
put 755 "$bin_dir/boxvoice" bin/boxvoice
put 755 "$bin_dir/boxsim" bin/boxsim
while IFS= read -r model; do
    put 644 "$root/Models/$model" "share/boxvoice/Models/$model"
done < <(cd "$root/Models" && find . -type f | sed 's|^\./||' | sort)
# The neural hearing parts `make setup` built: the libraries where the binaries' rpath looks ($ORIGIN/../lib/boxvoice),
# the models beside Models (ModelsDirectory and HearingModels look there first).
hearing=$root/.build/hearing
[ -f "$hearing/models/ggml-base-q8_0.bin" ] || { echo "install: the hearing parts are missing; run \`make setup\` first" >&2; exit 1; }
while IFS= read -r library; do
    if [ -L "$hearing/lib/$library" ]; then
        # Symlinks (sonames) stay symlinks: the uninstall list names them too.
        mkdir -p "$target/lib/boxvoice"
        ln -sfn "$(readlink "$hearing/lib/$library")" "$target/lib/boxvoice/$library"
        files+=("$prefix/lib/boxvoice/$library")
    else
        put 644 "$hearing/lib/$library" "lib/boxvoice/$library"
    fi
done < <(cd "$hearing/lib" && find . -maxdepth 1 -name 'lib*.so*' | sed 's|^\./||' | sort)
for model in ggml-base-q8_0.bin silero-v6.2.0.bin whisper.cpp.LICENSE; do
    put 644 "$hearing/models/$model" "share/boxvoice/Models/$model"
done
# The unit names the installed binary: systemd does not search PATH.
generated 644 lib/systemd/user/boxvoice.service sed "s|^ExecStart=.*|ExecStart=$prefix/bin/boxvoice daemon|" "$root/contrib/boxvoice.service"
generated 644 share/man/man1/boxvoice.1.gz sh -c "\"$bin_dir/boxvoice\" docs man | gzip -9n"
generated 644 share/man/man1/boxsim.1.gz sh -c "\"$bin_dir/boxsim\" manpage | gzip -9n"
generated 644 share/bash-completion/completions/boxvoice "$bin_dir/boxvoice" docs bash
generated 644 share/zsh/vendor-completions/_boxvoice "$bin_dir/boxvoice" docs zsh
generated 644 share/fish/vendor_completions.d/boxvoice.fish "$bin_dir/boxvoice" docs fish
generated 644 share/bash-completion/completions/boxsim "$bin_dir/boxsim" completions bash
generated 644 share/zsh/vendor-completions/_boxsim "$bin_dir/boxsim" completions zsh
generated 644 share/fish/vendor_completions.d/boxsim.fish "$bin_dir/boxsim" completions fish
mkdir -p "$(dirname "$manifest")"
printf '%s\n' "${files[@]}" "$prefix/share/boxvoice/installed-files" >"$manifest"
echo "installed boxvoice $("$bin_dir/boxvoice" --version | cut -d' ' -f2-) into $target (${#files[@]} files)"
