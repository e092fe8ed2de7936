#!/usr/bin/env bash
# `make bench` (suite): the test suite's CPU time at this checkout against a named baseline commit, back to back on
# this machine, and prints the area's report. Both test binaries are built first (the baseline in a git worktree that
# shares this checkout's hearing parts), then each whole suite runs once, baseline first, nothing else of the bench
# running beside it.
# Usage: scripts/suite-cost.sh BASELINE_COMMIT WORK_DIR
set -euo pipefail
baseline=${1:?usage: suite-cost.sh BASELINE_COMMIT WORK_DIR}
work=${2:?usage: suite-cost.sh BASELINE_COMMIT WORK_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
git -C "$root" worktree add --detach "$work/baseline" "$baseline" >/dev/null 2>&1
trap 'git -C "$root" worktree remove --force "$work/baseline" >/dev/null 2>&1 || true' EXIT
mkdir -p "$work/baseline/.build"
ln -s "$root/.build/hearing" "$work/baseline/.build/hearing"
"$root/scripts/sound-server-packages.sh" >&2
for checkout in "$work/baseline" "$root"; do make -C "$checkout" --no-print-directory build-tests >&2; done

# Prints "wall user sys tests" for one whole run of a checkout's suite.
suite() {
    local checkout=$1 name=$2 binary
    binary="$(cd "$checkout" && swift build --show-bin-path)/boxvoicePackageTests.xctest"
    local TIMEFORMAT='%3R %3U %3S'
    { time (cd "$checkout" && "$binary" --testing-library swift-testing >"$work/$name.log" 2>&1); } 2>"$work/$name.time" \
        || { echo "suite-cost: the $name suite failed (log: $work/$name.log)" >&2; tail -20 "$work/$name.log" >&2; exit 1; }
    echo "$(tail -1 "$work/$name.time") $(sed -n 's/.*Test run with \([0-9]*\) tests.*/\1/p' "$work/$name.log" | tail -1)"
}
read -r base_wall base_user base_sys base_tests < <(suite "$work/baseline" baseline)
read -r wall user sys tests < <(suite "$root" now)
cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.0f", u + s }')
base_cpu=$(awk -v u="$base_user" -v s="$base_sys" 'BEGIN { printf "%.0f", u + s }')
ratio=$(awk -v a="$cpu" -v b="$base_cpu" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
now=$(git -C "$root" rev-parse --short HEAD)
echo "## The test suite"
echo
echo "<!-- headline: $tests tests in $cpu CPU s ($(printf '%.0f' "$wall") s wall); $base_tests tests at $baseline took $base_cpu CPU s: ${ratio}× -->"
echo
echo "The debug test binary, whole (\`make test\` runs it, then the offline-setup and README checks), once for each"
echo "checkout, back to back; user + sys CPU seconds of the process and its children (the programs it launches)."
echo
echo "| checkout | tests | CPU s | wall s | ratio |"
echo "|---|---|---|---|---|"
echo "| baseline: $baseline | $base_tests | $base_cpu | $(printf '%.0f' "$base_wall") | |"
echo "| this checkout ($now) | $tests | $cpu | $(printf '%.0f' "$wall") | **${ratio}×** |"
