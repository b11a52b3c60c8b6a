#!/bin/bash
# Screenshots of airlock's main views for people to look at: the real app under Xvfb
# against a real airlockd (its own data directory and socket in a temp dir), one run per
# view, captured with ImageMagick's `import -window root`.
# Usage: tests/gui/screenshots.sh [BUILD_DIR] [OUT_DIR]   (needs xvfb, xauth, imagemagick)
set -euo pipefail
build=$(realpath "${1:-build/debug}")
out=$(realpath -m "${2:-$build/screenshots}")
airlock="$build/app/airlock"
airlockd="$build/app/airlockd"
for tool in xvfb-run import; do
    command -v "$tool" >/dev/null || { echo "screenshots.sh: $tool is missing: apt-get install xvfb xauth imagemagick" >&2; exit 1; }
done
[ -x "$airlock" ] && [ -x "$airlockd" ] || { echo "screenshots.sh: build first: $airlock or $airlockd missing" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d)
daemon_pid=
created=
cleanup() {
    # The sandbox this script made goes away with its VM before its daemon does.
    if [ -n "$created" ]; then ctl kill "$created" >/dev/null 2>&1; ctl rm "$created" >/dev/null 2>&1; fi
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

sock="$tmp/airlockd.sock"
if [ -n "${SCREENSHOT_SOCKET:-}" ]; then
    sock=$SCREENSHOT_SOCKET # an airlockd that is already running (e.g. with sandboxes)
else
    "$airlockd" --foreground --data-dir "$tmp/data" --socket "$sock" 2>"$tmp/airlockd.log" &
    daemon_pid=$!
    for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
    [ -S "$sock" ] || { echo "screenshots.sh: airlockd did not start:" >&2; cat "$tmp/airlockd.log" >&2; exit 1; }
fi

# A running sandbox makes the tabs worth looking at; a daemon without sandboxes (yet) shows
# the empty states instead.
ctl() { "$build/app/airlockctl" --socket "$sock" "$@"; }
if ! ctl image ls --json 2>/dev/null | grep -q '"name"'; then
    ctl image build tiny >/dev/null 2>"$tmp/image.err" || echo "screenshots.sh: no image: $(tail -1 "$tmp/image.err")" >&2
fi
if ! ctl ls --json 2>/dev/null | grep -q '"name"'; then
    if ctl create shot --start >/dev/null 2>"$tmp/create.err"; then
        created=shot
        # Something on its console for the Terminal tab.
        printf 'echo hello from the sandbox; uname -a\n' | timeout 20 "$build/app/airlockctl" --socket "$sock" console shot >/dev/null 2>&1 || true
    else
        echo "screenshots.sh: no sandbox, the tabs show their empty states: $(tail -1 "$tmp/create.err")" >&2
    fi
fi

# shot NAME ARGS...: starts airlock with ARGS, waits for it to settle, captures the screen.
shot() {
    local name=$1; shift
    xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
        "$0" "$@" & app=$!
        sleep 6
        import -window root "'"$out/$name.png"'"
        kill $app; wait $app 2>/dev/null || true' "$airlock" "$@"
    echo "$out/$name.png"
}

shot main --socket "$sock"
for tab in terminal network snapshots ports secrets settings; do
    shot "tab-$tab" --socket "$sock" --tab "$tab"
done
# German, from the embedded translation.
LC_ALL=de_DE.UTF-8 LANG=de_DE.UTF-8 shot main-de --socket "$sock" --tab network
# No daemon at this socket and starting one is off: the "not connected" banner.
shot not-connected --socket "$tmp/nobody.sock" --no-start-daemon
# A daemon that cannot start: its stderr in the details area.
AIRLOCK_HOME=/proc/airlock-cannot-live-here shot start-failed --socket "$tmp/failing.sock"

# Views filled with data a daemon cannot give yet on this machine (no running sandbox):
# the real widgets, fed synthetic attempts and console bytes by the GUI tests, grabbed offscreen.
AIRLOCK_SCREENSHOT_DIR="$out" QT_QPA_PLATFORM=offscreen "$build/tests/gui/test_terminal_widget" rendersColouredPixels >/dev/null
AIRLOCK_SCREENSHOT_DIR="$out" QT_QPA_PLATFORM=offscreen "$build/tests/gui/test_egress_view" holdsAndFilters100kRows pendingPanelDedupesAndCountsDown >/dev/null
AIRLOCK_SCREENSHOT_DIR="$out" QT_QPA_PLATFORM=offscreen AIRLOCKD_BIN="$airlockd" "$build/tests/gui/test_gui_views" newSandboxDialogBuildsTheRequest >/dev/null
echo "$out/widget-terminal.png"
echo "$out/dialog-new-sandbox.png"
echo "$out/dialog-vault-init.png"
echo "$out/widget-network-100k.png"
echo "$out/widget-pending.png"
