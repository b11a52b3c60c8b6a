#!/usr/bin/env bash
# Airlock on a fresh Debian 12 machine, as root.
#   installers/setup.sh run    install what is missing, build (release), start airlockd and the app
#   installers/setup.sh test   install what is missing, start libvirtd in a test namespace, build, run every test
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=${1:-run}
cd "$root"

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
die() { printf 'setup.sh: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run me as root (sudo $0 $mode): I install packages and start libvirtd"

packages() { # packages SECTION...
    local want=" $* " section=""
    while read -r line; do
        case "$line" in
            ''|'#'*) ;;
            '['*']') section=${line#[}; section=${section%]} ;;
            *) [[ $want == *" $section "* ]] && echo "$line" ;;
        esac
    done < "$here/packages.txt"
}

install_packages() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} = 0 ] && return 0
    say "installing ${#missing[@]} packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

case "$mode" in
    run)
        install_packages $(packages build run)
        "$root/tests/support/libvirt-env.sh" host
        # The agents image's caches, so `airlockctl image build agents` works without a network
        # later too (it downloads what is missing when it has one).
        say "fetching the agents image packages"
        "$root/resources/images/agents/build.sh" --fetch >/dev/null || say "could not fetch the agents image packages (no network?); image build agents will download them"
        say "building (release)"
        cmake --preset release -S "$root" >/dev/null
        cmake --build --preset release
        bin="$root/build/release/app"
        "$bin/airlockd" 2>/dev/null || "$bin/airlockctl" status >/dev/null || die "airlockd did not start; see /var/lib/airlock/airlockd.log"
        "$bin/airlockctl" status
        if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
            say "starting the Airlock desktop app"
            exec "$root/build/release/app/airlock"
        fi
        say "no display: airlockd is running; use $bin/airlockctl, or start $bin/airlock from a desktop session"
        ;;
    test)
        install_packages $(packages build run test)
        "$root/tests/support/libvirt-env.sh" namespace
        # The tests build guest images inside the namespace, which has no route out:
        # fetch the recipes' Debian packages into their cache first.
        say "fetching the guest image packages"
        apt-get update -qq
        "$root/resources/images/tiny/build.sh" --fetch >/dev/null
        "$root/resources/images/import/import.sh" --fetch >/dev/null
        # The agents image: Debian packages (a throw-away mmdebstrap run) and the pinned npm tarballs.
        "$root/resources/images/agents/build.sh" --fetch >/dev/null
        say "building (ci preset: debug, warnings as errors)"
        cmake --preset ci -S "$root" >/dev/null
        cmake --build --preset ci
        # The install test puts the .deb on a clean Debian 12 root, offline: cache that root
        # and the packages the .deb depends on (needs the build, to know its Depends).
        say "fetching the install test's Debian root and packages"
        "$root/installers/install-test/fetch.sh" "$root/build/ci"
        say "running every test inside the test network namespace"
        # ctest's summary is the last thing printed.
        exec "$root/tests/support/in-test-env.sh" ctest --preset ci
        ;;
    *) die "unknown mode '$mode': use run or test" ;;
esac
