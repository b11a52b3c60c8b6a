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
exec nsenter --mount="$mnt" --wd="$PWD" ip netns exec "$ns" "$@"
