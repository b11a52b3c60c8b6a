#!/usr/bin/env bash
# Starts virtlogd and libvirtd (no systemd on the build machines; environment.md).
#   libvirt-env.sh namespace   inside the network namespace `airlock-test`, which it creates:
#                              every bridge, guest and test server lives there, so no test
#                              packet can reach an address outside loopback and that namespace
#   libvirt-env.sh host        on the host (for `setup.sh run` without systemd)
set -euo pipefail
mode=${1:-namespace}
ns=airlock-test

# While /dev/kvm is 0600 libvirt re-probes QEMU on every start (~68 s); let the qemu user at it.
[ -e /dev/kvm ] && chmod 0666 /dev/kvm

# libvirt writes network status there; without systemd-tmpfiles it may not exist yet.
mkdir -p /var/lib/libvirt/dnsmasq /var/lib/libvirt/images

running() { [ -S /run/libvirt/libvirt-sock ] && pgrep -x libvirtd >/dev/null; }

if [ "$mode" = host ] && [ -d /run/systemd/system ]; then
    systemctl start libvirtd virtlogd
    exit 0
fi

prefix=()
if [ "$mode" = namespace ]; then
    ip netns list | grep -qw "$ns" || ip netns add "$ns"
    ip netns exec "$ns" ip link set lo up
    prefix=(ip netns exec "$ns")
    # Tables a test daemon left behind (a stopped airlockd keeps its table so its guests
    # stay closed) would still match reused bridge names: start every run from none.
    for family in inet arp; do
        for t in $(ip netns exec "$ns" nft list tables "$family" 2>/dev/null | awk '$3 ~ /^airlock/ {print $3}'); do
            ip netns exec "$ns" nft delete table "$family" "$t"
        done
    done
fi

if running; then
    # A libvirtd already serves; it must be the one in the wanted place.
    pid=$(pgrep -xo libvirtd)
    want=$(readlink /proc/self/ns/net)
    [ "$mode" = namespace ] && want=$(ip netns exec "$ns" readlink /proc/self/ns/net)
    [ "$(readlink /proc/$pid/ns/net)" = "$want" ] && exit 0
    echo "libvirt-env.sh: a libvirtd (pid $pid) already runs in another network namespace; stop it first" >&2
    exit 1
fi
pgrep -x virtlogd >/dev/null || "${prefix[@]}" virtlogd -d
"${prefix[@]}" libvirtd -d
for _ in $(seq 50); do running && break; sleep 0.2; done
running || { echo "libvirt-env.sh: libvirtd did not start" >&2; exit 1; }
echo "libvirtd running ($mode)"
