#!/usr/bin/env bash
# `make check-readme` (and the end of `make test`): the README's quick start, run as a new user would, every ```sh
# block of it as written, in order, on this machine:
#   - the .deb the README builds is installed into a fresh root folder (dpkg -x: a container-like prefix), and only
#     that root's /usr/bin, with the shell's own tools, is on PATH;
#   - HOME, the XDG folders and XDG_RUNTIME_DIR are new and private; the session's D-Bus is a private dbus-daemon with
#     a notification service that writes down what it is shown (scripts/first-hour/notification-recorder.c);
#   - the sound server is a private PipeWire (its dummy driver keeps time, as a sound card would) with a virtual
#     microphone that ALSA's `default` reads (~/.asoundrc); "speaking" is playing a recorded sentence into it;
#   - the box is boxsim (started by this script) where the README pastes the link a real box gives;
#   - `dictate` runs in a terminal (tmux) and is ended with a key, as a person would;
#   - the commands that need a privilege or a system manager go through small stand-ins on PATH: `sudo` runs the
#     command, `apt install ./X.deb` unpacks it into the root (after checking its dependencies are installed),
#     `systemctl --user` starts the unit's ExecStart (mapped into the root) and says whether it runs;
#   - gsettings is the real one (keyfile backend in the new HOME, GNOME's media-keys schema from Debian's
#     gnome-settings-daemon-common), and the key it binds is then "pressed": its command run with the desktop's PATH.
# Each step checks what the README says it does. Prints one line per step; exits non-zero at the first that fails.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
readme=$repo/README.md
sample=$repo/Samples/send-buy-milk.wav
work=$(mktemp -d /tmp/boxvoice-first-hour.XXXXXX)
root=$work/root
real_home=$HOME
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$work/daemon.pid" ] && kill "$(cat "$work/daemon.pid")" 2>/dev/null || true
    tmux -L "boxvoice-first-hour-$$" kill-server 2>/dev/null || true
    pkill -f "boxsim serve --data $work/" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
step() { echo "first hour: $*"; }
fail() {
    echo "first hour FAILED: $*" >&2
    for log in "$work"/*.log; do [ -s "$log" ] && { echo "--- $log" >&2; tail -20 "$log" >&2; }; done
    exit 1
}
# Waits (up to $2 seconds, default 90) until the command $1 succeeds.
within() {
    local deadline=$((SECONDS + ${2:-90}))
    until eval "$1" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.2
    done
}

# The quick start's ```sh blocks, one file each, in order; the section ends at the next "## " heading.
mkdir -p "$work/blocks"
awk -v out="$work/blocks" '
    /^## Quick start/ { inside = 1; next }
    /^## / && inside { exit }
    inside && /^```sh$/ { n++; file = sprintf("%s/%02d.sh", out, n); writing = 1; next }
    inside && /^```$/ && writing { writing = 0; close(file); next }
    writing { print > file }
' "$readme"
blocks=("$work"/blocks/*.sh)
[ ${#blocks[@]} -ge 7 ] || fail "the README's quick start has ${#blocks[@]} sh blocks, expected its seven steps"
block_text() { cat "${blocks[$1]}"; }

# The stand-ins.
mkdir -p "$work/shims" "$root"
cat >"$work/shims/sudo" <<EOF
#!/usr/bin/env bash
# As root already (CI), a command with its own HOME back, as sudo gives it.
# The stand-ins stay first on PATH: \`sudo apt install\` must reach the apt stand-in, never the machine's apt.
# sudo resets the environment: the user's XDG folders are not root's (SwiftPM would put its caches there).
exec env -u XDG_CONFIG_HOME -u XDG_CACHE_HOME -u XDG_DATA_HOME -u XDG_RUNTIME_DIR HOME=$real_home \\
    PATH=$work/shims:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "\$@"
EOF
cat >"$work/shims/apt" <<EOF
#!/usr/bin/env bash
# \`apt install ./X.deb\`: its dependencies must be installed here; it is unpacked into the first hour's root.
set -euo pipefail
[ "\$1" = install ] || { echo "apt stand-in: only install" >&2; exit 2; }
shift
for deb in "\$@"; do
    deps=\$(dpkg-deb -f "\$deb" Depends | tr ',' '\n' | sed 's/[(|].*//; s/ //g' | grep -v '^\$' || true)
    for dep in \$deps; do
        dpkg-query -W -f='\${Status}' "\$dep" 2>/dev/null | grep -q 'install ok installed' \
            || { echo "apt stand-in: \$deb needs \$dep, which is not installed" >&2; exit 1; }
    done
    dpkg-deb -x "\$deb" "$root"
    echo "unpacked \$deb into $root"
done
EOF
cat >"$work/shims/systemctl" <<EOF
#!/usr/bin/env bash
# \`systemctl --user\` for the unit the package installed: its ExecStart, mapped into the root, run in the background.
set -euo pipefail
[ "\$1" = --user ] || { echo "systemctl stand-in: only --user" >&2; exit 2; }
unit=$root/usr/lib/systemd/user/boxvoice.service
case "\$2" in
daemon-reload) [ -f "\$unit" ] || { echo "no user unit at \$unit" >&2; exit 1; } ;;
enable)
    [ "\$3" = --now ] && [ "\$4" = boxvoice ] || { echo "systemctl stand-in: enable --now boxvoice" >&2; exit 2; }
    grep -qx 'Type=notify' "\$unit" || { echo "the unit is not Type=notify" >&2; exit 1; }
    command=\$(sed -n 's/^ExecStart=//p' "\$unit")
    set -- \$command
    binary=$root\$1; shift
    # As systemd does for Type=notify: start it with \$NOTIFY_SOCKET and return once it says READY=1.
    notify=$work/notify.sock
    rm -f "\$notify"
    python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("listening", flush=True)
s.settimeout(90)
while b"READY=1" not in s.recv(4096):
    pass
' "\$notify" >"$work/notify.log" 2>&1 &
    waiter=\$!
    until grep -q listening "$work/notify.log" 2>/dev/null; do sleep 0.05; done
    NOTIFY_SOCKET=\$notify nohup "\$binary" "\$@" >"$work/daemon.log" 2>&1 &
    echo \$! >"$work/daemon.pid"
    wait \$waiter || { echo "boxvoice.service did not become ready" >&2; exit 1; }
    echo "Started boxvoice.service (stand-in): \$binary \$*" ;;
*) echo "systemctl stand-in: \$2 is not stood in for" >&2; exit 2 ;;
esac
EOF
chmod +x "$work/shims"/*

# The user's session.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_DATA_HOME=$work/home/.local/share \
    XDG_CACHE_HOME=$work/home/.cache XDG_RUNTIME_DIR=$work/run
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
unset BOXVOICE_MODELS
export PATH=$work/shims:$root/usr/bin:/usr/bin:/bin
dbus-daemon --session --nofork --nopidfile --address="unix:path=$work/bus" >"$work/bus.log" 2>&1 &
pids+=($!)
export DBUS_SESSION_BUS_ADDRESS=unix:path=$work/bus
within "[ -S '$work/bus' ]" 10 || fail "the private session bus did not start"
gcc -O1 -o "$work/notification-recorder" "$repo/scripts/first-hour/notification-recorder.c" \
    $(pkg-config --cflags --libs libsystemd) || fail "building the notification recorder"
"$work/notification-recorder" >"$work/notifications.txt" 2>"$work/recorder.log" &
pids+=($!)
within "grep -q ready '$work/recorder.log'" 10 || fail "the notification recorder did not start"
shown() { within "grep -q '$1' '$work/notifications.txt'" "${2:-90}"; }

# The sound server, as a desktop session runs it, and its microphone.
pipewire_plugin=$(ls /usr/lib/*/alsa-lib/libasound_module_pcm_pipewire.so 2>/dev/null | head -1)
[ -n "$pipewire_plugin" ] || fail "pipewire-alsa's plugin is missing (make test installs it)"
export PIPEWIRE_RUNTIME_DIR=$XDG_RUNTIME_DIR PIPEWIRE_LOG_LEVEL=1 WIREPLUMBER_DEBUG=1
pipewire >"$work/pipewire.log" 2>&1 &
pids+=($!)
within "[ -S '$XDG_RUNTIME_DIR/pipewire-0' ]" 10 || fail "pipewire did not start"
wireplumber >"$work/wireplumber.log" 2>&1 &
pids+=($!)
within "pw-cli ls Metadata | grep -q default" 10 || fail "wireplumber did not start"
pw-loopback --capture-props='media.class=Audio/Sink node.name=desk_mic-feed audio.position=[MONO]' \
    --playback-props='media.class=Audio/Source node.name=desk_mic audio.position=[MONO]' >"$work/loopback.log" 2>&1 &
pids+=($!)
within "pw-cli ls Node | grep -q '\"desk_mic\"'" 10 || fail "the virtual microphone did not appear"
# Says the sentence into the microphone, in real time.
speak() { pw-cat --playback --target desk_mic-feed "$sample" >>"$work/speak.log" 2>&1; }

# Step 1: install (the first block builds and installs the package; the second lists the microphone).
step "1. $(head -1 "${blocks[0]}") …"
(cd "$repo" && bash -e "${blocks[0]}") >"$work/install.log" 2>&1 || fail "the install block"
[ -x "$root/usr/bin/boxvoice" ] && [ -x "$root/usr/bin/boxsim" ] || fail "the package put no boxvoice/boxsim in /usr/bin"
[ "$(command -v boxvoice)" = "$root/usr/bin/boxvoice" ] || fail "boxvoice on PATH is not the installed one"
cat >"$HOME/.asoundrc" <<EOF
pcm_type.pipewire { lib "$pipewire_plugin" }
pcm.!default {
    type pipewire
    server "$XDG_RUNTIME_DIR/pipewire-0"
    capture_node "desk_mic"
    playback_node "-1"
    exclusive false
    role ""
    rate 0
    format ""
    channels 0
    period_bytes 0
    buffer_bytes 0
    hint { show on description "the first hour's microphone (PipeWire)" }
}
EOF
devices=$(bash -e "${blocks[1]}") || fail "boxvoice devices"
grep -q '^default' <<<"$devices" || fail "boxvoice devices does not list default: $devices"

# Step 2: pair, with the link a box gives in place of the README's placeholder.
boxsim serve --data "$work/box" --hq "fixed:Please buy oat milk." >"$work/boxsim.log" 2>&1 &
pids+=($!)
link=$(boxsim pair-link --data "$work/box") || fail "boxsim gave no pairing link"
grep -q "beebox://pair?baseURL=…&pairingToken=…" "${blocks[2]}" || fail "step 2 no longer pastes a pairing link"
python3 -c 'import sys; t = open(sys.argv[1]).read(); print(t.replace("beebox://pair?baseURL=…&pairingToken=…", sys.argv[2]), end="")' \
    "${blocks[2]}" "$link" >"$work/pair.sh"
step "2. boxvoice pair LINK"
bash -e "$work/pair.sh" >"$work/pair.log" 2>&1 || fail "pairing"
[ "$(stat -c %a "$XDG_CONFIG_HOME/boxvoice/credentials.json")" = 600 ] || fail "the credentials are not 0600"

# Step 3: a first dictation, in a terminal; the sentence ends with "send message", then Esc ends the run.
step "3. $(cat "${blocks[3]}") (in a terminal)"
tmux_=(tmux -L "boxvoice-first-hour-$$")
"${tmux_[@]}" new-session -d -x 100 -y 30 -s first \
    "env PATH='$PATH' bash -e '${blocks[3]}' 2>&1; echo \"exit status \$?\"; sleep 3600"
pane() { "${tmux_[@]}" capture-pane -p -t first -S -200; }
within "pane | grep -q 'Enter send'" 60 || { pane >"$work/pane.log"; fail "dictate showed no status area"; }
speak
within "pane | grep -q 'delivered'" 120 || { pane >"$work/pane.log"; fail "dictate did not deliver"; }
pane | grep -q "Please buy oat milk" || { pane >"$work/pane.log"; fail "dictate did not print the message as sent"; }
"${tmux_[@]}" send-keys -t first Escape
within "pane | grep -q 'exit status 0'" 30 || { pane >"$work/pane.log"; fail "Esc did not end dictate"; }
[ "$(boxsim messages --data "$work/box" | grep -c 'Please buy oat milk')" = 1 ] || fail "the box did not get it once"

# Step 4: the daemon as a user service.
step "4. systemctl --user enable --now boxvoice; boxvoice status"
status=$(bash -e "${blocks[4]}" 2>&1) || fail "the daemon block: $status"
grep -qi "idle" <<<"$status" || fail "boxvoice status does not say idle: $status"

# Step 5: the GNOME binding from the shell, then the key is pressed twice.
export GSETTINGS_BACKEND=keyfile
step "5. gsettings … 'boxvoice toggle', then the key"
bash -e "${blocks[5]}" >"$work/gsettings.log" 2>&1 || fail "the gsettings block"
p=/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/boxvoice/
key=$(gsettings get "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding:$p" command | tr -d "'")
[ "$key" = "boxvoice toggle" ] || fail "the key runs '$key'"
(cd / && env -i PATH="$PATH" HOME="$HOME" XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" \
    DBUS_SESSION_BUS_ADDRESS="$DBUS_SESSION_BUS_ADDRESS" sh -c "$key") >"$work/key.log" 2>&1 || fail "pressing the key"
shown "^Dictating to" || fail "no 'Dictating to' notification"
speak
shown "^Sent to.*Please buy oat milk" 120 || fail "no 'Sent to' notification with the message"
(cd / && env -i PATH="$PATH" HOME="$HOME" XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" sh -c "$key") >>"$work/key.log" 2>&1 || true
shown "^Stopped dictating" || fail "no 'Stopped dictating' notification"

# The status bar line.
step "5. waybar: boxvoice status --follow --waybar"
json=$(awk '/^```json$/ { getline; print; exit }' "$readme")
python3 -c 'import json, sys; json.loads("{" + sys.argv[1] + "}")' "$json" || fail "the waybar snippet is not JSON"
bar=$(timeout 5 boxvoice status --follow --waybar | head -1 || true)
python3 -c 'import json, sys; assert json.loads(sys.argv[1])["class"] in ("idle", "sending", "holding")' "$bar" \
    || fail "the bar line is not a state: $bar"

# Without a box: boxsim, in a new HOME (another user's first hour).
export HOME=$work/home2 XDG_CONFIG_HOME=$work/home2/.config XDG_DATA_HOME=$work/home2/.local/share \
    XDG_CACHE_HOME=$work/home2/.cache XDG_RUNTIME_DIR=$work/run2
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
cp "$work/home/.asoundrc" "$HOME/.asoundrc"
step "without a box: boxsim serve, pair, dictate, boxsim messages"
# dictate here listens until it is stopped: its keys come through a pipe, and Esc is pressed once the box has the
# message.
mkfifo "$work/keys"
exec 7<>"$work/keys"
(cd "$HOME" && timeout 300 bash -e "${blocks[6]}" <"$work/keys") >"$work/boxsim-block.log" 2>&1 &
block=$!
within "grep -q Listening '$work/boxsim-block.log'" 60 || fail "dictate did not start listening"
speak
within "boxsim messages --data '$HOME/boxsim' | grep -q messageId" 180 || fail "boxsim got no message"
printf '\033\n' >&7
wait $block || fail "the boxsim block"
grep -q '"messageId"' "$work/boxsim-block.log" || fail "boxsim messages shows no message"
step "passed: every step of the quick start did what the README says"
