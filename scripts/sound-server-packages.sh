#!/usr/bin/env bash
# The real sound server `make test` drives: PipeWire, its session manager and its ALSA plugin. Installing
# pipewire-alsa also makes PipeWire the machine's ALSA `default`; where this script is what installed it, that link is
# taken out again, so the machine (and every other test) keeps the default it had. The tests reach PipeWire through an
# ALSA configuration file of their own that names the server's socket.
set -euo pipefail
had=$(dpkg-query -W -f='${db:Status-Status}' pipewire-alsa 2>/dev/null || true)
"$(dirname "$0")/apt-ensure.sh" pipewire pipewire-bin wireplumber pipewire-alsa
if [ "$had" != "installed" ]; then
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" rm -f /etc/alsa/conf.d/99-pipewire-default.conf
fi
