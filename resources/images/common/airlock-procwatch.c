/* airlock-procwatch: tells the host which guest process opened each outgoing socket.
 *
 *   airlock-procwatch [PORT]    PORT: the virtio-serial device; without it, the one named
 *                               org.airlock.proc.0, waited for until the host announces it
 *
 * Every 20 ms it reads /proc/net/{tcp,tcp6,udp,udp6}; for each socket it has not seen
 * before (connecting or connected, to an address that is not loopback) it finds the process
 * holding it through /proc/PID/fd and writes one line to PORT:
 *
 *   v2 PROTO LPORT RADDR RPORT PID PPID COMM PARENT CMDLINE CHAIN      (tab-separated)
 *
 * CHAIN names the process's ancestors below PID 1, the oldest first and the parent last,
 * '>'-separated, at most MAX_CHAIN of them (the nearest): "bash>claude>node>sh".
 * The host (broker/guestprocess.h) treats it as the guest's claim: it only labels events.
 * Printable ASCII only; what is not becomes '?', as does a '>' inside a name. Lines the
 * host cannot take are dropped. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SOCKETS 4096
#define MAX_CMDLINE 256
#define MAX_CHAIN 8

struct sock {
    unsigned long inode;
    int udp;
    unsigned lport, rport;
    unsigned char raddr[4];
    int pid;
};

static unsigned long seen[2][MAX_SOCKETS];
static int seen_count[2];
static struct sock fresh[MAX_SOCKETS];
static int fresh_count;

static int was_seen(int table, unsigned long inode)
{
    for (int i = 0; i < seen_count[table]; ++i)
        if (seen[table][i] == inode)
            return 1;
    return 0;
}

static void clean(char *s)
{
    for (; *s; ++s)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            *s = '?';
}

static int read_small(const char *path, char *buf, int size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int n = (int)read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = 0;
    return n;
}

/* One /proc/net table: the sockets to report (new since the last poll) into `fresh`. */
static void scan_table(const char *path, int udp, int v6, int cur)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    char line[512];
    if (!fgets(line, sizeof line, f)) { /* the header */
        fclose(f);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        char local[64], remote[64];
        unsigned state;
        unsigned long inode;
        if (sscanf(line, "%*d: %63s %63s %x %*s %*s %*s %*d %*d %lu", local, remote, &state, &inode) != 4 || !inode)
            continue;
        if (udp ? state != 1 : (state != 1 && state != 2)) /* connected, or TCP's SYN_SENT */
            continue;
        char *lcolon = strchr(local, ':'), *rcolon = strchr(remote, ':');
        if (!lcolon || !rcolon)
            continue;
        *lcolon = *rcolon = 0;
        unsigned lport = (unsigned)strtoul(lcolon + 1, NULL, 16), rport = (unsigned)strtoul(rcolon + 1, NULL, 16);
        unsigned long word;
        if (v6) { /* only IPv4-mapped addresses: the sandbox network is IPv4 */
            if (strlen(remote) != 32 || strncmp(remote, "0000000000000000FFFF0000", 24) != 0)
                continue;
            word = strtoul(remote + 24, NULL, 16);
        } else {
            word = strtoul(remote, NULL, 16);
        }
        unsigned char a[4] = {word & 0xff, (word >> 8) & 0xff, (word >> 16) & 0xff, (word >> 24) & 0xff};
        if (a[0] == 127 || a[0] == 0 || !rport)
            continue;
        if (seen_count[cur] < MAX_SOCKETS)
            seen[cur][seen_count[cur]++] = inode;
        if (was_seen(!cur, inode) || fresh_count >= MAX_SOCKETS)
            continue;
        struct sock *s = &fresh[fresh_count++];
        s->inode = inode;
        s->udp = udp;
        s->lport = lport;
        s->rport = rport;
        memcpy(s->raddr, a, 4);
        s->pid = 0;
    }
    fclose(f);
}

/* Which process holds each fresh socket: one walk over /proc/PID/fd. */
static void find_owners(void)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return;
    int left = fresh_count;
    struct dirent *p;
    while (left > 0 && (p = readdir(proc))) {
        if (p->d_name[0] < '1' || p->d_name[0] > '9')
            continue;
        char dir[300];
        snprintf(dir, sizeof dir, "/proc/%s/fd", p->d_name);
        DIR *fds = opendir(dir);
        if (!fds)
            continue;
        struct dirent *d;
        while (left > 0 && (d = readdir(fds))) {
            char link[600], target[64];
            snprintf(link, sizeof link, "%s/%s", dir, d->d_name);
            ssize_t n = readlink(link, target, sizeof target - 1);
            if (n <= 9 || strncmp(target, "socket:[", 8) != 0)
                continue;
            target[n] = 0;
            unsigned long inode = strtoul(target + 8, NULL, 10);
            for (int i = 0; i < fresh_count; ++i)
                if (fresh[i].inode == inode && !fresh[i].pid) {
                    fresh[i].pid = atoi(p->d_name);
                    --left;
                }
        }
        closedir(fds);
    }
    closedir(proc);
}

static void comm_of(int pid, char *out, int size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    if (read_small(path, out, size) <= 0)
        out[0] = 0;
    out[strcspn(out, "\n")] = 0;
    clean(out);
}

/* The parent's pid from /proc/PID/stat (after the last ')': the name may hold any byte); -1 if gone. */
static int parent_of(int pid)
{
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (read_small(path, stat, sizeof stat) <= 0)
        return -1;
    char *close_paren = strrchr(stat, ')');
    int ppid = 0;
    if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
        return -1;
    return ppid;
}

/* The ancestors of `ppid` and itself, oldest first, below PID 1: "a>b>parent". */
static void chain_of(int ppid, char *out, int size)
{
    char names[MAX_CHAIN][17];
    int count = 0;
    for (int pid = ppid; pid > 1 && count < MAX_CHAIN; pid = parent_of(pid)) {
        comm_of(pid, names[count], sizeof names[count]);
        if (!names[count][0])
            break;
        for (char *c = names[count]; *c; ++c)
            if (*c == '>')
                *c = '?';
        ++count;
    }
    int len = 0;
    out[0] = 0;
    for (int i = count - 1; i >= 0 && len < size; --i)
        len += snprintf(out + len, (size_t)(size - len), "%s%s", names[i], i ? ">" : "");
}

static void report(int port, const struct sock *s)
{
    char path[64], comm[17], parent[17], cmdline[MAX_CMDLINE + 1], chain[MAX_CHAIN * 17 + 1];
    const int ppid = parent_of(s->pid);
    if (ppid < 0)
        return;
    comm_of(s->pid, comm, sizeof comm);
    if (!comm[0])
        return;
    parent[0] = 0;
    if (ppid > 0)
        comm_of(ppid, parent, sizeof parent);
    chain_of(ppid, chain, sizeof chain);
    snprintf(path, sizeof path, "/proc/%d/cmdline", s->pid);
    int n = read_small(path, cmdline, sizeof cmdline);
    if (n < 0)
        n = 0;
    for (int i = 0; i < n; ++i)
        if (!cmdline[i])
            cmdline[i] = ' ';
    while (n > 0 && cmdline[n - 1] == ' ')
        --n;
    cmdline[n] = 0;
    clean(cmdline);
    char line[700];
    int len = snprintf(line, sizeof line, "v2\t%s\t%u\t%u.%u.%u.%u\t%u\t%d\t%d\t%s\t%s\t%s\t%s\n", s->udp ? "udp" : "tcp", s->lport,
                       s->raddr[0], s->raddr[1], s->raddr[2], s->raddr[3], s->rport, s->pid, ppid, comm, parent, cmdline, chain);
    if (len > 0 && len < (int)sizeof line)
        (void)!write(port, line, (size_t)len); /* EAGAIN (the host is not reading): dropped */
}

/* The port's device: under TCG the host may announce it well after boot, so look until it is there. */
static void find_port(char *out, size_t size)
{
    const struct timespec wait = {0, 200 * 1000 * 1000};
    for (;;) {
        DIR *d = opendir("/sys/class/virtio-ports");
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char path[300], name[64];
            snprintf(path, sizeof path, "/sys/class/virtio-ports/%s/name", e->d_name);
            if (read_small(path, name, sizeof name) > 0 && strcmp(name, "org.airlock.proc.0\n") == 0) {
                snprintf(out, size, "/dev/%s", e->d_name);
                closedir(d);
                return;
            }
        }
        if (d)
            closedir(d);
        nanosleep(&wait, NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "usage: airlock-procwatch [PORT] (the virtio-serial device org.airlock.proc.0)\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    char device[300];
    if (argc == 2)
        snprintf(device, sizeof device, "%s", argv[1]);
    else
        find_port(device, sizeof device);
    int port = open(device, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (port < 0) {
        fprintf(stderr, "airlock-procwatch: cannot open %s: %s\n", device, strerror(errno));
        return 1;
    }
    const struct timespec pause = {0, 20 * 1000 * 1000};
    for (int cur = 0;; cur = !cur) {
        seen_count[cur] = 0;
        fresh_count = 0;
        scan_table("/proc/net/tcp", 0, 0, cur);
        scan_table("/proc/net/tcp6", 0, 1, cur);
        scan_table("/proc/net/udp", 1, 0, cur);
        scan_table("/proc/net/udp6", 1, 1, cur);
        if (fresh_count) {
            find_owners();
            for (int i = 0; i < fresh_count; ++i) {
                if (fresh[i].pid) {
                    report(port, &fresh[i]);
                    continue;
                }
                /* No holder found yet: not seen, so the next poll looks again. */
                for (int j = 0; j < seen_count[cur]; ++j)
                    if (seen[cur][j] == fresh[i].inode) {
                        seen[cur][j] = seen[cur][--seen_count[cur]];
                        break;
                    }
            }
        }
        nanosleep(&pause, NULL);
    }
}
