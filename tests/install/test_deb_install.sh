#!/usr/bin/env bash
# The .deb installs on a clean Debian 12 root, its programs run there, and purging it
# removes every file it installed (the user's data in /var/lib/airlock stays).
#   test_deb_install.sh BUILD_DIR VERSION
# Uses only the cache made by installers/install-test/fetch.sh (no network: CI runs this in
# the namespace airlock-test, which has no route out).
set -euo pipefail

build=$1
version=$2
cache=${AIRLOCK_INSTALL_TEST_CACHE:-/var/cache/airlock/install-test}
here=$(cd "$(dirname "$0")" && pwd)
fetch="$(cd "$here/../.." && pwd)/installers/install-test/fetch.sh $build"

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
step() { printf '[%3ss] %s\n' "$SECONDS" "$*"; }

[ "$(id -u)" = 0 ] || fail "the install test needs root (it makes a chroot and mounts in it)"
for f in base.tar repo/Packages depends; do
    [ -e "$cache/$f" ] || fail "$cache/$f is missing: run '$fetch' outside the test namespace first (installers/setup.sh test does)"
done

work=$(mktemp -d /var/tmp/airlock-install-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

step "building the .deb with cpack"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1 \
    || { cat "$work/cpack.log" >&2; fail "cpack could not build the .deb"; }
deb=$(ls "$work"/pkg/airlock_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
[ "$depends" = "$(cat "$cache/depends")" ] \
    || fail "the .deb's Depends changed since $cache was fetched: run '$fetch' outside the test namespace first"$'\n'"  now:     $depends"$'\n'"  fetched: $(cat "$cache/depends")"

# The rest runs in private mount and network namespaces: its mounts vanish with it,
# whatever happens, before the work directory is removed.
elapsed=$SECONDS
export work deb depends version cache elapsed
unshare --mount --propagation private --net bash "$here/in-root.sh"
