#!/bin/sh
# Runs a GUI test inside a private D-Bus session whose notification server is dunst, on a
# private Xvfb display: a real org.freedesktop.Notifications that shows actions. dunst's
# menu (`dunstctl context`) answers with the action whose label the test wrote to the file
# $AIRLOCK_NOTIFY_CHOICE, so the test presses a notification's button through the server.
set -eu
for tool in dbus-run-session dunst dunstctl Xvfb; do
    command -v "$tool" >/dev/null || { echo "$tool is missing: install the test packages (installers/packages.txt)" >&2; exit 1; }
done
dir=$(mktemp -d)
xvfb=
trap '[ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null; rm -rf "$dir"' EXIT
# dunst's menu gets one line per action ("#Deny once (summary) [id,deny]") and runs the one
# printed back.
cat > "$dir/pick" <<PICK
#!/bin/sh
grep -F -m1 "#\$(cat "$dir/choice") ("
PICK
chmod +x "$dir/pick"
printf '[global]\n    dmenu = %s/pick\n' "$dir" > "$dir/dunstrc"
: > "$dir/choice"
Xvfb -displayfd 3 -nolisten tcp 3>"$dir/display" 2>"$dir/xvfb.log" &
xvfb=$!
for _ in $(seq 50); do [ -s "$dir/display" ] && break; sleep 0.1; done
[ -s "$dir/display" ] || { echo "Xvfb did not start:" >&2; cat "$dir/xvfb.log" >&2; exit 1; }
export AIRLOCK_NOTIFY_CHOICE="$dir/choice" AIRLOCK_NOTIFY_DIR="$dir"
dbus-run-session -- sh -c '
    DISPLAY=":$(cat "$AIRLOCK_NOTIFY_DIR/display")" dunst -config "$AIRLOCK_NOTIFY_DIR/dunstrc" 2>"$AIRLOCK_NOTIFY_DIR/dunst.log" &
    dunst=$!
    # Asked of the bus, not of dunst: a call to dunst would start another one by D-Bus
    # activation, without this display and configuration.
    owned() {
        dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null | grep -q true
    }
    for _ in $(seq 50); do owned && break; sleep 0.1; done
    owned || { echo "dunst did not start:" >&2; cat "$AIRLOCK_NOTIFY_DIR/dunst.log" >&2; exit 1; }
    rc=0
    "$@" || rc=$?
    kill "$dunst" 2>/dev/null || true
    exit "$rc"' sh "$@"
