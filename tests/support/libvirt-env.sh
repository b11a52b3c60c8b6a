#!/usr/bin/env bash
# Starts virtlogd and libvirtd (no systemd on the build machines).
#   libvirt-env.sh namespace   the tests' own libvirtd: inside the network namespace
#                              `airlock-test` (every bridge, guest and test server lives there,
#                              so no test packet can reach an address outside loopback and that
#                              namespace) and inside a mount namespace of its own, whose
#                              /run/libvirt, /etc/libvirt and /var/lib/libvirt (and airlockd's
#                              default /run/airlock and /var/lib/airlock) are private, kept
#                              under /var/lib/airlock-test. So the tests never meet the libvirtd
#                              or airlockd that serve the person's own sandboxes: both run side
#                              by side, and neither has to be stopped for the other.
#                              Enter it with tests/support/in-test-env.sh COMMAND...
#   libvirt-env.sh host        the host's libvirtd (for `setup.sh run` without systemd)
set -euo pipefail
mode=${1:-namespace}
ns=${AIRLOCK_TEST_NS:-airlock-test}
test_root=/var/lib/$ns              # the test libvirtd's private configuration and state
mnt_dir=/run/$ns                    # holds the mount namespace's handle
mnt=$mnt_dir/mnt

say() { echo "libvirt-env.sh: $*" >&2; }

# While /dev/kvm is 0600 libvirt re-probes QEMU on every start (~68 s); let the qemu user at it.
[ -e /dev/kvm ] && chmod 0666 /dev/kvm

# libvirt writes network status there; without systemd-tmpfiles it may not exist yet.
mkdir -p /var/lib/libvirt/dnsmasq /var/lib/libvirt/images

# The tests' libvirtd is told apart by what it sees at /run/libvirt: the private tmpfs
# made below.
private_run_source=airlock-test-run

# The DAEMON (libvirtd, virtlogd) processes in network namespace NET_NS_LINK that see the
# host's /run/libvirt ("host") or the tests' private one ("private").
daemons() { # DAEMON host|private NET_NS_LINK
    local name=$1 pid source
    shift
    for pid in $(pgrep -x "$name" || true); do
        [ "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" = "$2" ] || continue
        source=$(findmnt --task "$pid" -n -o SOURCE /run/libvirt 2>/dev/null || true)
        if [ "$source" = "$private_run_source" ]; then
            [ "$1" = private ] && echo "$pid"
        else
            [ "$1" = host ] && echo "$pid"
        fi
    done
    return 0
}
libvirtds() { daemons libvirtd "$@"; }

# Daemons must not keep what the caller had open (a test's lock file, ctest's pipes):
# closes every descriptor but 0, 1 and 2, then runs the daemon.
start_daemon() { # COMMAND...
    (
        for fd in /proc/self/fd/*; do
            fd=${fd##*/}
            [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null
        done
        exec "$@"
    )
}

stop_pids() { # PID...
    [ $# = 0 ] && return 0
    kill "$@" 2>/dev/null || true
    for _ in $(seq 50); do
        local alive=0 pid
        for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && return 0
        sleep 0.2
    done
    kill -9 "$@" 2>/dev/null || true
}

# A libvirtd (and its virtlogd) in the host's mount namespace but in the test network
# namespace was started by an earlier version of this script for the tests: it would take
# the host's libvirt sockets, state and pid files. It only ever ran test guests; stop it.
stop_old_test_libvirtd() {
    ip netns list 2>/dev/null | grep -qw "$ns" || return 0
    local net pids logds
    net=$(ip netns exec "$ns" readlink /proc/self/ns/net)
    pids=$(libvirtds host "$net")
    logds=$(daemons virtlogd host "$net")
    [ -z "$pids$logds" ] && return 0
    say "stopping an earlier test libvirtd and virtlogd (pid $pids $logds) that run in the host's mount namespace"
    stop_pids $pids $logds
    rm -f /run/libvirt/libvirt-sock /run/libvirt/libvirt-sock-ro /run/libvirt/libvirt-admin-sock \
          /run/libvirt/virtlogd-sock /run/libvirt/virtlogd-admin-sock
}

wait_for_socket() { # COMMAND-PREFIX...
    for _ in $(seq 50); do
        "$@" test -S /run/libvirt/libvirt-sock && return 0
        sleep 0.2
    done
    return 1
}

host() {
    if [ -d /run/systemd/system ]; then
        systemctl start libvirtd virtlogd
        return 0
    fi
    stop_old_test_libvirtd
    if [ -n "$(libvirtds host "$(readlink /proc/self/ns/net)")" ] && [ -S /run/libvirt/libvirt-sock ]; then
        return 0
    fi
    [ -n "$(daemons virtlogd host "$(readlink /proc/self/ns/net)")" ] || start_daemon virtlogd -d
    start_daemon libvirtd -d
    wait_for_socket env || { say "libvirtd did not start"; exit 1; }
    echo "libvirtd running (host)"
}

# A copy of DIR's directories (not its files), owners and modes kept: the layout libvirt
# expects, without the host's domains, networks, pools or state.
skeleton() { # SRC DST
    local d
    mkdir -p "$2"
    (cd "$1" && find . -mindepth 1 -maxdepth 2 -type d) | while read -r d; do
        mkdir -p "$2/$d"
        chown --reference="$1/$d" "$2/$d"
        chmod --reference="$1/$d" "$2/$d"
    done
}

make_mount_namespace() {
    # "ready" is written once every mount below is in place: a run that failed half-way
    # leaves a namespace without it, which is made again rather than used.
    if [ -e "$mnt_dir/ready" ] && nsenter --mount="$mnt" true 2>/dev/null; then
        return 0
    fi
    mkdir -p "$mnt_dir"
    rm -f "$mnt_dir/ready"
    # The handle must live on a private mount, or the namespace would keep itself alive.
    mountpoint -q "$mnt_dir" || { mount --bind "$mnt_dir" "$mnt_dir"; mount --make-private "$mnt_dir"; }
    umount "$mnt" 2>/dev/null || true
    touch "$mnt"
    unshare --mount="$mnt" --propagation private true
    if [ ! -e "$test_root/etc/libvirtd.conf" ]; then
        skeleton /etc/libvirt "$test_root/etc"
        find /etc/libvirt -maxdepth 1 -type f -exec cp -a {} "$test_root/etc/" \;
        cp -a /etc/libvirt/nwfilter/. "$test_root/etc/nwfilter/" 2>/dev/null || true
    fi
    [ -d "$test_root/lib" ] || skeleton /var/lib/libvirt "$test_root/lib"
    mkdir -p "$test_root/lib/dnsmasq" "$test_root/lib/images" "$test_root/log/qemu" "$test_root/cache" "$test_root/airlock"
    # /run/libvirt exists only once some libvirtd has run on this boot: make the mount point.
    nsenter --mount="$mnt" sh -e -c "
        mkdir -p /run/libvirt
        mount -t tmpfs -o mode=0755 $private_run_source /run/libvirt
        mount --bind '$test_root/etc' /etc/libvirt
        mount --bind '$test_root/lib' /var/lib/libvirt
        mkdir -p /var/log/libvirt /var/cache/libvirt
        mount --bind '$test_root/log' /var/log/libvirt
        mount --bind '$test_root/cache' /var/cache/libvirt
        # A person's own airlockd (socket and store at the defaults) stays out of the tests' reach.
        mkdir -p /run/airlock /var/lib/airlock
        mount -t tmpfs -o mode=0755 airlock-test-sock /run/airlock
        mount --bind '$test_root/airlock' /var/lib/airlock"
    touch "$mnt_dir/ready"
}

# Started from inside the test environment (a test that stopped the tests' libvirtd to
# see what its guests can reach meanwhile): start it again in place, tables kept.
restart_inside() {
    if [ -n "$(libvirtds private "$(readlink /proc/self/ns/net)")" ] && test -S /run/libvirt/libvirt-sock; then
        return 0
    fi
    [ -n "$(daemons virtlogd private "$(readlink /proc/self/ns/net)")" ] || start_daemon virtlogd -d -p /run/libvirt/virtlogd.pid
    start_daemon libvirtd -d -p /run/libvirt/libvirtd.pid
    wait_for_socket env || { say "libvirtd did not start"; exit 1; }
    echo "libvirtd running again (inside the test namespaces)"
}

namespace() {
    if [ "$(findmnt -n -o SOURCE /run/libvirt 2>/dev/null)" = "$private_run_source" ]; then
        restart_inside
        return
    fi
    ip netns list 2>/dev/null | grep -qw "$ns" || ip netns add "$ns"
    ip netns exec "$ns" ip link set lo up
    # Tables a test daemon left behind (a stopped airlockd keeps its table so its guests
    # stay closed) would still match reused bridge names: start every run from none.
    local family t
    for family in inet arp; do
        for t in $(ip netns exec "$ns" nft list tables "$family" 2>/dev/null | awk '$3 ~ /^airlock/ {print $3}'); do
            ip netns exec "$ns" nft delete table "$family" "$t"
        done
    done
    stop_old_test_libvirtd
    make_mount_namespace
    local inside=(nsenter --mount="$mnt" --net="/run/netns/$ns")
    if [ -n "$(libvirtds private "$(ip netns exec "$ns" readlink /proc/self/ns/net)")" ] &&
       "${inside[@]}" test -S /run/libvirt/libvirt-sock; then
        return 0
    fi
    [ -n "$(daemons virtlogd private "$(ip netns exec "$ns" readlink /proc/self/ns/net)")" ] ||
        start_daemon "${inside[@]}" virtlogd -d -p /run/libvirt/virtlogd.pid
    start_daemon "${inside[@]}" libvirtd -d -p /run/libvirt/libvirtd.pid
    wait_for_socket "${inside[@]}" || { say "libvirtd did not start in the test namespace"; exit 1; }
    echo "libvirtd running (test namespace $ns, private libvirt state in $test_root)"
}

case "$mode" in
    host) host ;;
    namespace) namespace ;;
    *) say "unknown mode '$mode': use namespace or host"; exit 1 ;;
esac
