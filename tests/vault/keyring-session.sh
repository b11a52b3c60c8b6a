#!/bin/sh
# Runs a test inside a private D-Bus session with an unlocked GNOME Keyring: a real Secret
# Service for the vault's OS keyring slot, and nothing of the user's own keyring touched.
set -eu
for tool in dbus-run-session gnome-keyring-daemon secret-tool; do
    command -v "$tool" >/dev/null || { echo "$tool is missing: install the test packages (installers/packages.txt)" >&2; exit 1; }
done
HOME=$(mktemp -d)
export HOME
trap 'rm -rf "$HOME"' EXIT
dbus-run-session -- sh -c 'printf "keyring-test-password" | gnome-keyring-daemon --unlock --components=secrets >/dev/null && "$@"' sh "$@"
