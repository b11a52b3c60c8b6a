#!/bin/bash
# Recipe "agents": a Debian 12 guest for coding agents, made with mmdebstrap (variant apt,
# no recommends, no man pages or docs): bash, git, openssh-client, curl, ca-certificates,
# python3, a lean C/C++ toolchain (gcc, g++, make, libc6-dev: build-essential without
# dpkg-dev), ripgrep, Node.js 18 with npm, qemu-guest-agent, and the agent CLIs Claude Code
# and Codex from the npm registry, pinned in npm-packages. Booted like tiny: the cloud
# kernel, a busybox initramfs that loads the virtio modules and switches to the root on the
# sandbox's overlay disk, PID 1 the small `guest-init` (address from the kernel command line).
#   build.sh OUTDIR     writes OUTDIR/vmlinuz, OUTDIR/initrd.img, OUTDIR/rootfs.img
#   build.sh --fetch    only fills the caches (Debian packages, npm tarballs), builds nothing
# Prints "PROGRESS <percent> <message>" lines for airlockd; any failure exits non-zero and
# airlockd deletes OUTDIR.
#
# Caches (under /var/cache/airlock): a build inside a network namespace without a route out
# (the tests) needs no download once `build.sh --fetch` ran outside it; a build with a
# network fills them on the way.
set -euo pipefail
fetch_only=0
if [ "${1:-}" = --fetch ]; then fetch_only=1; set -- "$(mktemp -d)"; fi
out=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
work="$out/work"
mkdir -p "$work/debs" "$work/x" "$work/initramfs"
progress() { echo "PROGRESS $1 $2"; }
die() { echo "agents recipe: $*" >&2; exit 1; }
for tool in mmdebstrap dpkg-scanpackages openssl mkfs.ext4 cpio depmod; do
    command -v "$tool" >/dev/null || die "$tool is missing: install the packages in installers/packages.txt"
done

suite=bookworm
mirror=${AIRLOCK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${AIRLOCK_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
guest_packages=(mount iproute2 procps less e2fsprogs qemu-guest-agent ca-certificates curl git openssh-client
                python3 gcc g++ make libc6-dev ripgrep nodejs npm)
cache=${AIRLOCK_AGENTS_CACHE:-/var/cache/airlock/agents}
# The Debian cache is keyed by the package list: a recipe that asks for other packages does
# not take an older, incomplete set for complete.
key=$(printf '%s\n' "$suite" "${guest_packages[@]}" | sha256sum | cut -c1-16)
debcache="$cache/debs-$key"
npmcache="$cache/npm"
mkdir -p "$debcache" "$npmcache"

# ---- the npm tarballs, checked against the registry's integrity ------------------------
npm_lines() { grep -v '^[[:space:]]*\(#\|$\)' "$here/npm-packages"; }
integrity_ok() { # file sha512-BASE64
    [ -f "$1" ] && [ "sha512-$(openssl dgst -sha512 -binary "$1" | openssl base64 -A)" = "$2" ]
}
progress 2 "fetching the agent CLIs from the npm registry"
while read -r name version url integrity _bin; do
    file="$npmcache/$(basename "$url")"
    if ! integrity_ok "$file" "$integrity"; then
        curl -fsSL --retry 3 -o "$file.part" "$url" || die "cannot download $name $version from $url"
        integrity_ok "$file.part" "$integrity" || { rm -f "$file.part"; die "$url does not match its pinned integrity"; }
        mv "$file.part" "$file"
    fi
done < <(npm_lines)

# ---- kernel and initramfs busybox: single packages, like the tiny recipe ---------------
progress 5 "resolving the kernel"
kernel_pkg=$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-/{print $2; exit}')
[ -n "$kernel_pkg" ] || die "cannot resolve linux-image-cloud-amd64 (run apt-get update)"
boot_packages=("$kernel_pkg" busybox-static)
bootcache=${AIRLOCK_DEB_CACHE:-/var/cache/airlock/debs}
"$here/../common/fetch-debs" "$bootcache" "$work/debs" "${boot_packages[@]}"

# ---- the Debian root filesystem ---------------------------------------------------------
mm=(mmdebstrap --quiet --variant=apt --include="$(IFS=,; echo "${guest_packages[*]}")"
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
    --dpkgopt='path-exclude=/usr/share/locale/*' --aptopt='Acquire::Retries "3"')
if [ -f "$debcache/Packages" ]; then
    # Offline: the packages of an earlier fetch, as a flat local repository.
    source="deb [trusted=yes] copy://$debcache ./"
else
    source="deb $mirror $suite main"
    # Keep what apt downloads, so the next build (or one without a network) needs nothing.
    mm+=(--skip=essential/unlink --customize-hook="sync-out /var/cache/apt/archives $debcache")
fi
index_cache() {
    rm -rf "$debcache/partial" "$debcache/lock"
    (cd "$debcache" && dpkg-scanpackages -m . /dev/null > Packages.new 2>/dev/null && mv Packages.new Packages)
}

if [ "$fetch_only" = 1 ]; then
    if [ ! -f "$debcache/Packages" ]; then
        progress 10 "fetching the Debian packages (a throw-away mmdebstrap run)"
        "${mm[@]}" "$suite" /dev/null "$source" >&2 || die "mmdebstrap failed; the Debian mirror must be reachable"
        index_cache
    fi
    rm -rf "$work"; rmdir "$out" 2>/dev/null || true
    exit 0
fi

root="$work/root"
progress 10 "installing Debian packages with mmdebstrap"
"${mm[@]}" "$suite" "$root" "$source" >&2 ||
    die "mmdebstrap failed; without a network run '$0 --fetch' first (outside any network namespace)"
[ -f "$debcache/Packages" ] || index_cache

progress 60 "installing the agent CLIs"
nm="$root/usr/local/lib/node_modules"
while read -r name version url integrity bin; do
    dest="$nm/$name"
    mkdir -p "$dest"
    tar -xzf "$npmcache/$(basename "$url")" -C "$dest" --strip-components=1 --no-same-owner
    if [ "$bin" != - ]; then
        chmod 0755 "$dest/${bin#*:}"
        ln -sfn "../lib/node_modules/$name/${bin#*:}" "$root/usr/local/bin/${bin%%:*}"
    fi
done < <(npm_lines)
# Binaries for other systems, and Codex's voice host (this guest has no audio device).
rm -rf "$nm"/@anthropic-ai/claude-code/vendor/ripgrep/{arm64-darwin,x64-darwin,arm64-linux,arm64-win32,x64-win32}
rm -rf "$nm"/@openai/codex/node_modules/@openai/codex-linux-x64/vendor/*/codex-resources/voice

progress 65 "configuring the guest"
# The process reporter (resources/images/common): static, so it needs nothing from the image.
gcc -static -Os -o "$work/airlock-procwatch" "$here/../common/airlock-procwatch.c"
install -m 0755 "$work/airlock-procwatch" "$root/usr/sbin/airlock-procwatch"
install -m 0755 "$here/guest-init" "$root/sbin/init"
install -m 0755 "$here/shutdown" "$root/sbin/shutdown"
install -m 0755 "$here/../common/guest-agent" "$root/sbin/airlock-guest-agent"
echo airlock > "$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tairlock\n' > "$root/etc/hosts"
: > "$root/etc/resolv.conf"
printf 'deb %s %s main\ndeb %s %s-security main\ndeb %s %s-updates main\n' \
    "$mirror" "$suite" "$security" "$suite" "$mirror" "$suite" > "$root/etc/apt/sources.list"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin
rm -rf "$root"/var/log/*.log "$root"/tmp/* "$root"/root/.npm "$root"/root/.cache
ln -sfn ../run "$root/var/run" 2>/dev/null || true
# Claude Code's interactive first run asks for a theme and whether to trust the key: the
# template already decided both.
cat > "$root/root/.claude.json" <<'JSON'
{"hasCompletedOnboarding": true, "theme": "dark", "autoUpdates": false}
JSON

progress 75 "building the initramfs"
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/x"; done
kver=$(ls "$work/x/lib/modules")
ir="$work/initramfs"
"$here/../common/make-initramfs" "$work/x" "$ir" "$out/initrd.img"
cp "$work/x/boot/vmlinuz-$kver" "$out/vmlinuz"

progress 80 "making the ext4 root disk"
# Room for the journal, inodes and a first npm install; the sandbox's disk may be larger
# (the guest grows the file system to it at boot).
used_mib=$(du -sm "$root" | cut -f1)
truncate -s "$(( (used_mib * 5 / 4 + 384) ))M" "$out/rootfs.img"
mkfs.ext4 -q -F -L airlock-root -d "$root" "$out/rootfs.img"
rm -rf "$work"
progress 100 "done"
