#!/usr/bin/env bash
# The install test's downloads, done OUTSIDE the test namespace (which has no route out):
#   installers/install-test/fetch.sh BUILD_DIR
# builds the .deb from BUILD_DIR to learn its Depends, then caches for the test (tests/install):
#   base.tar   a clean Debian 12 root (mmdebstrap minbase), as the user's machine starts
#   repo/      every .deb that root needs to install airlock, as a flat apt repository
#   depends    the Depends line the repository was made for (the test refuses a mismatch)
# A second run with the same Depends does nothing.
set -euo pipefail

die() { printf 'fetch.sh: %s\n' "$*" >&2; exit 1; }
[ $# = 1 ] || die "usage: $0 BUILD_DIR (a configured and built tree, e.g. build/ci)"
build=$(cd "$1" && pwd) || die "$1: no such build directory"
[ -f "$build/CPackConfig.cmake" ] || die "$build has no CPackConfig.cmake: configure and build it first"
[ "$(id -u)" = 0 ] || die "run me as root: mmdebstrap makes a root filesystem"
cache=${AIRLOCK_INSTALL_TEST_CACHE:-/var/cache/airlock/install-test}
mirror=${AIRLOCK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${AIRLOCK_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}

work=$(mktemp -d /var/tmp/airlock-fetch.XXXXXX)
trap 'rm -rf "$work"' EXIT

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1 \
    || { cat "$work/cpack.log" >&2; die "cpack failed"; }
deb=$(ls "$work"/pkg/*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
if [ -f "$cache/base.tar" ] && [ -f "$cache/repo/Packages" ] && [ "$(cat "$cache/depends" 2>/dev/null)" = "$depends" ]; then
    echo "fetch.sh: $cache is up to date"
    exit 0
fi

# One mmdebstrap run makes the minbase root and, in a hook, downloads (without installing)
# what airlock's Depends add to it; every .deb it used becomes the repository.
export AIRLOCK_DEPENDS=$depends
mkdir -p "$work/repo"
mmdebstrap --quiet --mode=root --variant=minbase --format=tar \
    --customize-hook='APT_CONFIG="$MMDEBSTRAP_APT_CONFIG" apt-get satisfy --download-only --yes -qq --no-install-recommends "$AIRLOCK_DEPENDS"' \
    --customize-hook="sync-out /var/cache/apt/archives $work/repo" \
    bookworm "$work/base.tar" \
    "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb $security bookworm-security main"
rm -rf "$work/repo/partial" "$work/repo/lock"
(cd "$work/repo" && dpkg-scanpackages --multiversion . /dev/null >Packages 2>/dev/null)
printf '%s\n' "$depends" >"$work/depends"

# Replace the cache in one step, so a failed fetch leaves the old one whole.
mkdir -p "$cache"
rm -rf "$cache.old"
[ -e "$cache/repo" ] && mkdir "$cache.old" && mv "$cache/base.tar" "$cache/repo" "$cache/depends" "$cache.old/" 2>/dev/null || true
mv "$work/base.tar" "$work/repo" "$work/depends" "$cache/"
rm -rf "$cache.old"
echo "fetch.sh: cached a Debian 12 root and $(find "$cache/repo" -name '*.deb' | wc -l) packages ($(du -sh "$cache" | cut -f1)) in $cache"
