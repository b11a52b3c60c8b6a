#!/usr/bin/env bash
# Runs COMMAND where the tests run: in the network namespace `airlock-test` and in the mount
# namespace whose /run/libvirt is the tests' own libvirtd (tests/support/libvirt-env.sh
# namespace makes both and starts it), e.g. tests/support/in-test-env.sh ctest --preset debug
set -euo pipefail
ns=${AIRLOCK_TEST_NS:-airlock-test}
mnt=/run/$ns/mnt
if ! nsenter --mount="$mnt" true 2>/dev/null || ! ip netns list 2>/dev/null | grep -qw "$ns"; then
    echo "in-test-env.sh: the test environment is not set up; run tests/support/libvirt-env.sh namespace (as root) first" >&2
    exit 1
fi
# `ip netns exec` mounts a fresh /sys for the namespace, without the cgroup hierarchies below
# /sys/fs/cgroup; runc (image import --dockerfile runs a Dockerfile's RUN steps in containers)
# needs them: they are mounted again inside, as the host has them.
cgroups=$(nsenter --mount="$mnt" awk '$2 ~ "^/sys/fs/cgroup" && $3 ~ /^(tmpfs|cgroup|cgroup2)$/ {print $2, $3, $4}' /proc/self/mounts)
exec nsenter --mount="$mnt" --wd="$PWD" ip netns exec "$ns" bash -c '
    while read -r dir type options; do
        [ -n "$dir" ] || continue
        mkdir -p "$dir" 2>/dev/null
        case "$type" in
            tmpfs) mount -t tmpfs -o mode=755 tmpfs "$dir" ;;
            *) mount -t "$type" -o "$options" "$type" "$dir" ;;
        esac 2>/dev/null || echo "in-test-env.sh: cannot mount $type on $dir (runc will not run)" >&2
    done <<< "$1"
    shift
    exec "$@"' in-test-env.sh "$cgroups" "$@"
