#!/bin/bash
# Turns a person's OCI image into a bootable Airlock image: the image's root filesystem as it
# is, with Airlock's kernel and initramfs beside it and Airlock's guest side in /.airlock
# (busybox, qemu-ga and resize2fs with their own libraries, the process reporter, guest-init),
# so the image needs no package of ours and keeps its own libc. ENV, WORKDIR, USER, ENTRYPOINT
# and CMD are kept in /.airlock/image/ for guest-init.
#   import.sh OUTDIR ARCHIVE FORMAT [REFERENCE]
#     FORMAT     oci-archive (a tar of an OCI layout directory), docker-archive (`docker save`,
#                `podman save`), or dockerfile (a tar of a build context; REFERENCE is the
#                Dockerfile's path in it); REFERENCE picks one image of an archive holding several
#   import.sh --fetch    only fills the package cache (the kernel and the guest tools)
# Prints "PROGRESS <percent> <message>" lines for airlockd. Any failure exits non-zero with
# one line on stderr saying what was wrong and what to do; airlockd deletes OUTDIR.
#
# The image is the guest's and may be hostile: nothing here runs its programs, every path
# written is under the fresh /.airlock directory, and symlinks of the image are resolved
# inside it (resolve_in_root), never on this machine.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
die() { echo "$*" >&2; exit 1; }
progress() { echo "PROGRESS $1 $2"; }
cache=${AIRLOCK_DEB_CACHE:-/var/cache/airlock/debs}
resolve_kernel() {
    kernel_pkg=$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-/{print $2; exit}')
    [ -n "$kernel_pkg" ] || die "cannot resolve linux-image-cloud-amd64 (run apt-get update)"
    packages=("$kernel_pkg" busybox-static qemu-guest-agent e2fsprogs)
}
if [ "${1:-}" = --fetch ]; then
    resolve_kernel
    exec "$here/../common/fetch-debs" "$cache" /dev/null "${packages[@]}"
fi
[ $# -ge 3 ] || die "usage: import.sh OUTDIR ARCHIVE FORMAT [REFERENCE]"
out=$(realpath "$1") archive=$2 format=$3 ref=${4:-}
for tool in skopeo umoci jq mkfs.ext4 cpio depmod gcc ldd; do
    command -v "$tool" >/dev/null || die "$tool is missing: install the packages in installers/packages.txt"
done
case "$format" in
    oci-archive | docker-archive | dockerfile) ;;
    *) die "unknown image format $format: give oci-archive, docker-archive or dockerfile" ;;
esac
work="$out/work"
mkdir -p "$work/debs" "$work/x" "$work/initramfs"

# A Dockerfile is built first, offline: buildah in a runc container with no network (like
# `docker build`, never on this machine's own root), with storage of its own under $work, into
# an OCI archive that the rest of this script imports like any other. A base image comes from
# the context (FROM oci:DIR:TAG, FROM oci-archive:FILE, FROM docker-archive:FILE) or is scratch.
build_dockerfile() {
    for tool in buildah runc tar; do
        command -v "$tool" >/dev/null || die "$tool is missing: install the packages in installers/packages.txt"
    done
    case "/$ref/" in
        //) die "name the Dockerfile inside the build context" ;;
        /\/* | */../*) die "the Dockerfile must be inside the build context, got $ref" ;;
    esac
    progress 1 "unpacking the build context"
    mkdir -p "$work/context" "$work/tmp"
    tar -x --no-same-owner -f "$archive" -C "$work/context" 2> "$work/tar.err" ||
        die "cannot unpack the build context: $(tail -n 1 "$work/tar.err" | cut -c1-300)"
    [ -f "$work/context/$ref" ] || die "the build context has no Dockerfile at $ref"
    progress 3 "building $ref with buildah (no network)"
    if ! (cd "$work/context" && TMPDIR="$work/tmp" buildah --storage-driver vfs --root "$work/storage" --runroot "$work/run" \
              bud --isolation oci --runtime runc --network none --pull-never --layers=false --format oci \
              -f "$ref" -t "oci-archive:$work/built.tar" .) > "$work/build.log" 2>&1; then
        step=$(grep -a '^STEP [0-9]*/[0-9]*: ' "$work/build.log" | tail -n 1 | cut -c1-200)
        reason=$(grep -a -v '^\(STEP [0-9]\|Getting image\|Copying \|Writing manifest\|Storing signatures\)' "$work/build.log" |
                 tail -n 3 | tr '\n' ' ' | sed 's/  */ /g' | cut -c1-400)
        case "$reason" in
            *"no space left"*) die "the disk holding $out is full: free some space and import again" ;;
        esac
        case "$step" in
            "STEP "*": FROM "*)
                die "the Dockerfile's base (${step#*FROM }) is not in its build context, and Airlock builds offline:" \
                    "copy the base image into the context (skopeo copy docker://IMAGE oci:base:latest) and write FROM oci:base:latest ($reason)" ;;
            "") die "the Dockerfile did not build: $reason" ;;
        esac
        die "the Dockerfile failed at ${step%%:*} (${step#*: }): the build has no network, so a step that downloads" \
            "cannot work; put what it needs into the build context ($reason)"
    fi
    rm -rf "$work/storage" "$work/run" "$work/context" "$work/tmp"
    archive="$work/built.tar" format=oci-archive ref=
}
[ "$format" = dockerfile ] && build_dockerfile

progress 2 "reading the $format"
src="$format:$archive${ref:+:$ref}"
what="the image"
[ "$format" = docker-archive ] && what="the docker archive"
if ! skopeo --insecure-policy copy --quiet "$src" "oci:$work/layout:image" 2> "$work/skopeo.err"; then
    reason=$(tail -n 1 "$work/skopeo.err" | sed 's/^time=.*msg="//; s/"$//' | cut -c1-300)
    case "$reason" in
        *"more than one image"* | *"multiple manifests"* | *"more than one manifest"*)
            die "the archive holds several images: name one (for example --oci DIR:TAG)" ;;
        *"no space left"*) die "the disk holding $out is full: free some space and import again" ;;
    esac
    die "cannot read $what: $reason; give an OCI layout directory or a docker-archive file (podman save, skopeo copy)"
fi
config=$(skopeo --insecure-policy inspect --config "oci:$work/layout:image") || die "the image has no readable config"
os=$(jq -r '.os // "unknown"' <<<"$config")
arch=$(jq -r '.architecture // "unknown"' <<<"$config")
[ "$os" = linux ] || die "the image is for $os, not Linux: Airlock's guests run Linux"
[ "$arch" = amd64 ] ||
    die "the image is for $arch; Airlock runs amd64 guests: take the amd64 variant (skopeo copy --override-arch amd64 ...)"

progress 10 "unpacking the layers with umoci"
bundle="$work/bundle"
umoci unpack --image "$work/layout:image" "$bundle" > /dev/null 2> "$work/umoci.err" ||
    die "cannot unpack the image's layers: $(tail -n 1 "$work/umoci.err" | cut -c1-300)"
root="$bundle/rootfs"
rm -rf "$work/layout"

# An absolute path of the image -> where it is here, every symlink followed inside the image.
resolve_in_root() {
    local rest=${1#/} done= part target hops=0
    while [ -n "$rest" ]; do
        part=${rest%%/*}
        if [ "$part" = "$rest" ]; then rest=; else rest=${rest#*/}; fi
        case "$part" in '' | .) continue ;; ..) done=${done%/*}; continue ;; esac
        if [ -L "$root$done/$part" ]; then
            hops=$((hops + 1))
            [ $hops -le 40 ] || return 1
            target=$(readlink "$root$done/$part")
            case "$target" in /*) done= ;; esac
            rest=${target#/}${rest:+/$rest}
        else
            done=$done/$part
        fi
    done
    printf '%s\n' "$root$done"
}
sh_path=$(resolve_in_root /bin/sh) || sh_path=
[ -n "$sh_path" ] && [ -f "$sh_path" ] && [ -x "$sh_path" ] ||
    die "the image has no shell at /bin/sh: Airlock's console and workspaces need one; base the image on one that has (debian, alpine, ubuntu, ...)"

progress 30 "adding Airlock's guest side"
resolve_kernel
"$here/../common/fetch-debs" "$cache" "$work/debs" "${packages[@]}" ||
    die "cannot fetch ${packages[*]}: run '$0 --fetch' once with a network"
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/x"; done
kver=$(ls "$work/x/lib/modules")

a="$root/.airlock"
rm -rf "$a" # the image's own /.airlock, even a symlink, is replaced, never followed
mkdir -p "$a/bin" "$a/lib" "$a/libexec" "$a/image"
cp "$work/x/bin/busybox" "$a/bin/busybox"
for applet in $("$a/bin/busybox" --list); do
    [ -e "$a/bin/$applet" ] || ln -s busybox "$a/bin/$applet"
done
# Dynamic tools keep their libraries here and start through this loader, so the image's
# libc (glibc of another version, musl, none) is never used by them, nor theirs by the image.
loader=/lib64/ld-linux-x86-64.so.2
cp -L "$loader" "$a/lib/"
for bin in "$work/x/usr/sbin/qemu-ga" "$work/x/sbin/resize2fs"; do
    ldd "$bin" | grep -q "not found" && die "libraries of $(basename "$bin") are missing here: $(ldd "$bin" | grep 'not found' | tr '\n' ' ')"
    for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do cp -L -n "$lib" "$a/lib/"; done
    name=$(basename "$bin")
    cp "$bin" "$a/libexec/$name"
    rm -f "$a/bin/$name"
    printf '#!/.airlock/bin/sh\nexec /.airlock/lib/%s --library-path /.airlock/lib /.airlock/libexec/%s "$@"\n' \
        "$(basename "$loader")" "$name" > "$a/bin/$name"
    chmod 0755 "$a/bin/$name"
done
gcc -static -Os -o "$a/bin/airlock-procwatch" "$here/../common/airlock-procwatch.c"
gcc -static -Os -o "$a/bin/airlock-runas" "$here/airlock-runas.c"
install -m 0755 "$here/../common/guest-agent" "$a/bin/airlock-guest-agent"
install -m 0755 "$here/shutdown" "$a/bin/airlock-shutdown"
install -m 0755 "$here/guest-init" "$a/init"
# The image's settings, as guest-init reads them: one base64 VAR=value per line for ENV (a
# value may hold anything), the rest as plain text.
jq -r '.config.Env // [] | .[] | @base64' <<<"$config" > "$a/image/env"
jq -r '.config.WorkingDir // ""' <<<"$config" > "$a/image/workdir"
# Empty when the image runs as root anyway, so the guest needs one test, not a list of spellings.
jq -r '.config.User // "" | if IN("root", "0", "0:0", "root:root", "root:0", "0:root") then "" else . end' <<<"$config" > "$a/image/user"
jq -r '((.config.Entrypoint // []) + (.config.Cmd // [])) | if length > 0 then @sh else "" end' <<<"$config" > "$a/image/command"

progress 60 "building the initramfs"
"$here/../common/make-initramfs" "$work/x" "$work/initramfs" "$out/initrd.img"
cp "$work/x/boot/vmlinuz-$kver" "$out/vmlinuz"

progress 70 "making the ext4 root disk"
# Room for the journal, inodes and what the agent installs; the sandbox's disk may be larger
# (the guest grows the file system to it at boot).
used_mib=$(du -sm "$root" | cut -f1)
truncate -s "$(( used_mib * 5 / 4 + 384 ))M" "$out/rootfs.img"
mkfs.ext4 -q -F -L airlock-root -d "$root" "$out/rootfs.img" 2> "$work/mkfs.err" ||
    die "cannot make the root disk: $(tail -n 1 "$work/mkfs.err")"
rm -rf "$work"
progress 100 "done"
