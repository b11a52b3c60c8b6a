#!/bin/bash
# Recipe "tiny": a few-MB guest for tests and quick sandboxes, made of Debian packages
# (the cloud kernel and its virtio modules, busybox, curl, qemu-guest-agent, resize2fs, and
# git's one binary for workspaces).
#   build.sh OUTDIR     writes OUTDIR/vmlinuz, OUTDIR/initrd.img, OUTDIR/rootfs.img
#   build.sh --fetch    only downloads the packages into the cache (see below)
# Prints "PROGRESS <percent> <message>" lines for airlockd; any failure exits non-zero and
# airlockd deletes OUTDIR. Needs root for `apt-get download` only through apt's sandbox user.
set -euo pipefail
fetch_only=0
if [ "${1:-}" = --fetch ]; then fetch_only=1; set -- "$(mktemp -d)"; fi
out=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
work="$out/work"
mkdir -p "$work/debs" "$work/x" "$work/initramfs" "$work/root"
progress() { echo "PROGRESS $1 $2"; }

progress 5 "resolving packages"
kernel_pkg=$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-/{print $2; exit}')
[ -n "$kernel_pkg" ] || { echo "cannot resolve linux-image-cloud-amd64 (run apt-get update)" >&2; exit 1; }
packages=("$kernel_pkg" busybox-static curl qemu-guest-agent e2fsprogs git)

# Packages come from a cache (common/fetch-debs): `build.sh --fetch` fills it and builds nothing.
cache=${AIRLOCK_DEB_CACHE:-/var/cache/airlock/debs}
progress 10 "fetching ${packages[*]}"
"$here/../common/fetch-debs" "$cache" "$work/debs" "${packages[@]}"
if [ "$fetch_only" = 1 ]; then rm -rf "$work"; rmdir "$out" 2>/dev/null || true; exit 0; fi

progress 50 "unpacking"
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/x"; done
kver=$(ls "$work/x/lib/modules")

# Binaries of the guest and the libraries they load (resolved by the host's loader: both
# are Debian 12, and the run packages of Airlock carry the same libraries).
progress 60 "assembling the root filesystem"
root="$work/root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc,proc,sys,dev,run,tmp,root,var,mnt}
# Run-time state (qemu-ga's freeze marker among it) must not survive into snapshots.
ln -s ../run "$root/var/run"
cp "$work/x/bin/busybox" "$root/bin/busybox"
for applet in $("$root/bin/busybox" --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
binaries=("$work/x/usr/bin/curl" "$work/x/usr/sbin/qemu-ga" "$work/x/sbin/resize2fs" "$work/x/usr/bin/git")
cp "$work/x/usr/bin/curl" "$root/usr/bin/curl"
# git: its builtins (clone, fetch, commit, bundle, format-patch) are all one binary; the
# helper scripts, perl and the http transports stay out (a workspace travels as a bundle).
cp "$work/x/usr/bin/git" "$root/usr/bin/git"
mkdir -p "$root/usr/lib/git-core" "$root/usr/share/git-core/templates"
ln -s ../../bin/git "$root/usr/lib/git-core/git"
cp "$work/x/usr/sbin/qemu-ga" "$root/usr/sbin/qemu-ga"
cp "$work/x/sbin/resize2fs" "$root/usr/sbin/resize2fs"
for bin in "${binaries[@]}"; do
    if ldd "$bin" | grep -q "not found"; then
        echo "missing libraries for $bin:" >&2; ldd "$bin" | grep "not found" >&2; exit 1
    fi
    for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
        dest="$root$(dirname "$lib")"
        mkdir -p "$dest"
        cp -L -n "$lib" "$dest/"
    done
done
mkdir -p "$root/etc/ssl/certs"
[ -f /etc/ssl/certs/ca-certificates.crt ] && cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
echo "airlock" > "$root/etc/hostname"
# The process reporter (resources/images/common): static, so it needs nothing from the image.
gcc -static -Os -o "$work/airlock-procwatch" "$here/../common/airlock-procwatch.c"
install -m 0755 "$work/airlock-procwatch" "$root/usr/sbin/airlock-procwatch"
install -m 0755 "$here/guest-init" "$root/sbin/init"
install -m 0755 "$here/shutdown" "$root/sbin/shutdown"
install -m 0755 "$here/../common/guest-agent" "$root/sbin/airlock-guest-agent"

progress 70 "building the initramfs"
ir="$work/initramfs"
"$here/../common/make-initramfs" "$work/x" "$ir" "$out/initrd.img"

progress 80 "making the ext4 root disk"
cp "$work/x/boot/vmlinuz-$kver" "$out/vmlinuz"
truncate -s 1G "$out/rootfs.img"
mkfs.ext4 -q -F -L airlock-root -d "$root" "$out/rootfs.img"
rm -rf "$work"
progress 100 "done"
