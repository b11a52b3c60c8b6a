#!/usr/bin/env bash
# test_deb_install.sh's second half, run in its own mount namespace (see there).
# Inputs in the environment: work, deb, depends, version, cache.
set -euo pipefail
: "${work:?}" "${deb:?}" "${depends:?}" "${version:?}" "${cache:?}"

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
step() { printf '[%3ss] %s\n' "$SECONDS" "$*"; }
SECONDS=${elapsed:-0}
root=$work/root
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

step "unpacking a clean Debian 12 root"
mkdir "$root"
# In memory: faster to fill, and gone with this namespace instead of a slow rm -rf.
mount -t tmpfs -o size=3g,mode=0755 tmpfs "$root"
tar -xf "$cache/base.tar" -C "$root"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mkdir -p "$root/srv/airlock-repo"
mount --bind -o ro "$cache/repo" "$root/srv/airlock-repo"
# Its only package source is the fetched repository; services never start in a chroot.
rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*
echo 'deb [trusted=yes] file:/srv/airlock-repo ./' >"$root/etc/apt/sources.list.d/airlock-test.list"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/airlock-test-unsafe-io"
in_root apt-get update -qq >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get update on the fetched repository failed"; }

step "installing the .deb's dependencies from the fetched repository"
in_root apt-get satisfy -y -qq --no-install-recommends "$depends" >"$work/deps.log" 2>&1 \
    || { tail -30 "$work/deps.log" >&2; fail "its Depends cannot be installed on a clean root from $cache/repo"; }

# Every path in the root (mount points and package-manager state aside), and the account
# databases, which the package edits in place.
snapshot() {
    {
        (cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./sys -o -path ./srv/airlock-repo \
            -o -path ./tmp -o -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache/apt -o -path ./var/log \
            -o -path ./var/lib/airlock -o -path ./var/lib/libvirt/images/airlock \) -prune -o -print)
        (cd "$root" && sha256sum etc/passwd etc/group etc/shadow etc/gshadow)
    } | LC_ALL=C sort
}
# The person who installs with sudo; the package gives them access to airlockd.
in_root useradd --create-home alice
snapshot >"$work/before"

step "installing $(basename "$deb")"
cp "$deb" "$root/tmp/"
in_root env SUDO_USER=alice apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" >"$work/install.log" 2>&1 \
    || { tail -30 "$work/install.log" >&2; fail "apt-get install of the .deb failed"; }
in_root dpkg-query -L airlock | grep -vx '/\.' | LC_ALL=C sort >"$work/installed"

step "running the installed programs"
expect_version() { # expect_version PROGRAM OUTPUT
    local out
    out=$(in_root env QT_QPA_PLATFORM=offscreen "$1" --version 2>&1) || fail "$1 --version failed: $out"
    [ "$out" = "$2" ] || fail "$1 --version printed '$out', expected '$2'"
    echo "  $1 --version: $out"
}
expect_version airlock "airlock $version"
expect_version airlockctl "airlockctl $version"
expect_version airlockd "airlockd $version"
for bin in /usr/bin/airlock /usr/bin/airlockctl /usr/sbin/airlockd; do
    missing=$(in_root ldd "$bin" | grep 'not found' || true)
    [ -z "$missing" ] || fail "$bin needs libraries the .deb's Depends did not bring: $missing"
done
# The installed daemon serves the installed client (libvirt's in-process test driver stands
# in for libvirtd, which a chroot does not run; its nftables table lives in this test's own
# network namespace).
ip link set lo up
in_root airlockd --socket /tmp/airlockd/airlockd.sock --data-dir /tmp/airlockd --libvirt-uri test:///default \
    2>"$work/airlockd.err" || { cat "$work/airlockd.err" >&2; fail "the installed airlockd did not start"; }
status=$(in_root airlockctl --socket /tmp/airlockd/airlockd.sock status 2>&1) || fail "airlockctl status failed: $status"
daemon=$(head -1 "$root/tmp/airlockd/airlockd.lock")
kill "$daemon"
for _ in $(seq 100); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$daemon" 2>/dev/null || fail "airlockd (pid $daemon) did not stop within 10 s of SIGTERM"
echo "$status" | grep -qx "airlockd $version" || fail "airlockctl status did not show airlockd $version: $status"
echo "  airlockctl status: $(echo "$status" | head -1), served by the installed airlockd"

# The window comes up (offscreen) and stays: its Qt plugins and libraries all load. Its
# settings are the user's, so they go to a home under /tmp, which the snapshots leave out.
mkdir -m 0700 "$root/tmp/home" "$root/tmp/runtime"
set +e
in_root env QT_QPA_PLATFORM=offscreen HOME=/tmp/home XDG_RUNTIME_DIR=/tmp/runtime timeout 4 airlock --no-start-daemon >"$work/gui.log" 2>&1
rc=$?
set -e
[ $rc = 124 ] || { cat "$work/gui.log" >&2; fail "the airlock window exited with $rc within 4 s instead of staying up"; }

step "checking the desktop integration and the service"
for f in usr/share/applications/airlock.desktop usr/share/icons/hicolor/scalable/apps/airlock.svg \
         usr/share/icons/hicolor/48x48/apps/airlock.png usr/share/metainfo/io.github.airlock_sandbox.Airlock.metainfo.xml \
         usr/lib/systemd/system/airlockd.service usr/share/airlock/images/tiny/build.sh \
         usr/share/airlock/egress-presets/github.json; do
    grep -qx "/$f" "$work/installed" || fail "the .deb does not install /$f"
done
desktop-file-validate "$root/usr/share/applications/airlock.desktop" || fail "airlock.desktop is not valid"
appstreamcli validate --no-net "$root/usr/share/metainfo/io.github.airlock_sandbox.Airlock.metainfo.xml" >"$work/appstream.log" 2>&1 \
    || { cat "$work/appstream.log" >&2; fail "the AppStream metainfo is not valid"; }
exec_start=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$root/usr/lib/systemd/system/airlockd.service")
[ "$exec_start" = /usr/sbin/airlockd ] || fail "the unit starts '$exec_start', not the installed /usr/sbin/airlockd"
[ -L "$root/etc/systemd/system/multi-user.target.wants/airlockd.service" ] || fail "airlockd.service was not enabled"
in_root getent group airlock >/dev/null || fail "the group airlock was not made"
in_root id -nG alice | tr ' ' '\n' | grep -qx airlock || fail "alice, who installed with sudo, is not in the group airlock"

# An upgrade (here a reinstall) keeps the admin's choice: disabled stays disabled.
wants="$root/etc/systemd/system/multi-user.target.wants/airlockd.service"
in_root systemctl disable airlockd.service >/dev/null 2>&1 || fail "systemctl disable airlockd failed in the root"
[ ! -e "$wants" ] && [ ! -L "$wants" ] || fail "systemctl disable left $wants"
in_root dpkg -i "/tmp/$(basename "$deb")" >"$work/reinstall.log" 2>&1 || { cat "$work/reinstall.log" >&2; fail "reinstalling the .deb failed"; }
[ ! -L "$wants" ] || fail "reinstalling the .deb enabled airlockd again, which the admin had disabled"
in_root systemctl enable airlockd.service >/dev/null 2>&1 || fail "systemctl enable airlockd failed in the root"

# The user's data, which purge must keep: the store (as airlockd leaves it in its data
# directory) and the storage pool, which the test's airlockd made above.
mkdir -p "$root/var/lib/airlock"
echo "user data" >"$root/var/lib/airlock/airlock.db"
[ -d "$root/var/lib/libvirt/images/airlock" ] || fail "airlockd made no storage pool directory /var/lib/libvirt/images/airlock"

step "purging"
in_root apt-get purge -y -qq airlock >"$work/purge.log" 2>&1 || { cat "$work/purge.log" >&2; fail "apt-get purge airlock failed"; }
[ -z "$(ls "$root"/var/lib/dpkg/info/airlock.* 2>/dev/null)" ] || fail "dpkg still has files of airlock after purge"
snapshot >"$work/after"
left=$(comm -13 "$work/before" "$work/after")
gone=$(comm -23 "$work/before" "$work/after")
[ -z "$left$gone" ] || fail "the root differs after install and purge:"$'\n'"left behind:"$'\n'"$left"$'\n'"removed:"$'\n'"$gone"
while read -r path; do
    [ -e "$root$path" ] || [ -L "$root$path" ] || continue
    grep -qx ".$path" "$work/before" || fail "$path, installed by the .deb, is still there after purge"
done <"$work/installed"
[ "$(cat "$root/var/lib/airlock/airlock.db")" = "user data" ] || fail "purge removed the user's data in /var/lib/airlock"
[ -d "$root/var/lib/libvirt/images/airlock" ] || fail "purge removed the user's images in /var/lib/libvirt/images/airlock"
step "ok: installed, ran, purged; $(wc -l <"$work/installed") paths came and went, user data kept ($(df -h --output=used "$root" | tail -1 | tr -d ' ') used in the root)"
