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
