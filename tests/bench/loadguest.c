/* The guest side of bench_load, built static so it runs in the tiny image (busybox has no
 * way to time one connect or to hold thousands of sockets from one process).
 *
 *   loadguest probe IP PORT HOST SECONDS PAUSE_MS [DNS_SERVER NAME]
 *       Until SECONDS pass: (a DNS query for NAME to DNS_SERVER:53, timed), a TCP connect to
 *       IP:PORT (timed), a GET with Host: HOST read to the end (timed). One line per round:
 *       "r DNS_US CONNECT_US TOTAL_US" (-1: failed).
 *   loadguest flood IP SECONDS IDLE SLOW DNS_SERVER
 *       Until SECONDS pass: IDLE connections to IP:80 that send nothing, SLOW connections to
 *       IP:80 and IP:443 that send a request head / ClientHello one byte a second (each
 *       reopened when the broker closes it), and DNS queries for fresh names as fast as the
 *       socket takes them. Prints what it did at the end.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static struct sockaddr_in address(const char *ip, int port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

/* A query for an A record of `name` with id `id` into buf; its length. */
static int dns_query(unsigned char *buf, const char *name, unsigned short id)
{
    int n = 0;
    buf[n++] = (unsigned char)(id >> 8);
    buf[n++] = (unsigned char)id;
    buf[n++] = 0x01; /* recursion desired */
    buf[n++] = 0x00;
    buf[n++] = 0; buf[n++] = 1; /* one question */
    memset(buf + n, 0, 6);
    n += 6;
    for (const char *p = name; *p;) {
        const char *dot = strchr(p, '.');
        const int len = dot ? (int)(dot - p) : (int)strlen(p);
        buf[n++] = (unsigned char)len;
        memcpy(buf + n, p, (size_t)len);
        n += len;
        p += len + (dot ? 1 : 0);
    }
    buf[n++] = 0;
    buf[n++] = 0; buf[n++] = 1; /* A */
    buf[n++] = 0; buf[n++] = 1; /* IN */
    return n;
}

static long long timed_dns(const char *server, const char *name)
{
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = address(server, 53);
    unsigned char q[512], r[512];
    const int len = dns_query(q, name, (unsigned short)rand());
    const long long t0 = now_us();
    long long result = -1;
    if (sendto(fd, q, (size_t)len, 0, (struct sockaddr *)&a, sizeof a) == len) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 3000) == 1 && recv(fd, r, sizeof r, 0) > 2 && r[0] == q[0] && r[1] == q[1])
            result = now_us() - t0;
    }
    close(fd);
    return result;
}

/* Connect (timed into *connect_us), send a GET, read to EOF; total microseconds or -1. */
static long long timed_get(const char *ip, int port, const char *host, long long *connect_us)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = address(ip, port);
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    const long long t0 = now_us();
    *connect_us = -1;
    long long result = -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
        *connect_us = now_us() - t0;
        char req[512], buf[4096], status[13] = {0};
        const int len = snprintf(req, sizeof req, "GET /load HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host);
        ssize_t n = send(fd, req, (size_t)len, MSG_NOSIGNAL);
        long long got = 0;
        while (n > 0 && (n = recv(fd, buf, sizeof buf, 0)) > 0) {
            if (got < 12)
                memcpy(status + got, buf, (size_t)(n < 12 - got ? n : 12 - got));
            got += n;
        }
        if (n == 0 && strcmp(status, "HTTP/1.1 200") == 0)
            result = now_us() - t0;
    }
    close(fd);
    return result;
}

static int probe(int argc, char **argv)
{
    if (argc < 7)
        return 2;
    const char *ip = argv[2], *host = argv[4];
    const int port = atoi(argv[3]), pause_ms = atoi(argv[6]);
    const long long end = now_us() + atoll(argv[5]) * 1000000;
    const char *dns_server = argc >= 9 ? argv[7] : NULL, *dns_name = argc >= 9 ? argv[8] : NULL;
    while (now_us() < end) {
        const long long dns = dns_server ? timed_dns(dns_server, dns_name) : 0;
        long long connect_us;
        const long long total = timed_get(ip, port, host, &connect_us);
        printf("r %lld %lld %lld\n", dns, connect_us, total);
        fflush(stdout);
        if (pause_ms > 0)
            usleep((useconds_t)pause_ms * 1000);
    }
    return 0;
}

struct conn {
    int fd;
    int port;
    int slow; /* sends one byte a second */
    int sent;
    long long next_us;
};

static const char kHead[] = "GET /slow HTTP/1.1\r\nHost: quiet.test\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
static const unsigned char kHello[] = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03,
                                       0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa};

static void open_conn(struct conn *c, const char *ip, long *opened)
{
    struct sockaddr_in a = address(ip, c->port);
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    c->sent = 0;
    c->next_us = now_us() + 1000000;
    if (c->fd >= 0) {
        connect(c->fd, (struct sockaddr *)&a, sizeof a);
        ++*opened;
    }
}

static int flood(int argc, char **argv)
{
    if (argc < 7)
        return 2;
    const char *ip = argv[2], *dns_server = argv[6];
    const long long end = now_us() + atoll(argv[3]) * 1000000;
    const int idle = atoi(argv[4]), slow = atoi(argv[5]), total = idle + 2 * slow;
    struct rlimit nofile = {(rlim_t)total + 64, (rlim_t)total + 64};
    setrlimit(RLIMIT_NOFILE, &nofile);
    struct conn *conns = calloc((size_t)total, sizeof *conns);
    struct pollfd *fds = calloc((size_t)total + 1, sizeof *fds);
    long opened = 0, closed = 0, dns_sent = 0, dns_answered = 0, bytes = 0;
    for (int i = 0; i < total; ++i) {
        conns[i].slow = i >= idle;
        conns[i].port = i < idle + slow ? 80 : 443;
        open_conn(&conns[i], ip, &opened);
    }
    const int dns = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in dns_to = address(dns_server, 53);
    unsigned char q[512];
    char name[96];
    while (now_us() < end) {
        for (int burst = 0; burst < 64; ++burst) {
            snprintf(name, sizeof name, "f%ld.flood.test", dns_sent);
            const int len = dns_query(q, name, (unsigned short)dns_sent);
            if (sendto(dns, q, (size_t)len, 0, (struct sockaddr *)&dns_to, sizeof dns_to) != len)
                break;
            ++dns_sent;
        }
        unsigned char r[512];
        while (recv(dns, r, sizeof r, 0) > 0)
            ++dns_answered;
        const long long t = now_us();
        for (int i = 0; i < total; ++i) {
            struct conn *c = &conns[i];
            if (c->fd < 0) {
                open_conn(c, ip, &opened);
            } else if (c->slow && t >= c->next_us) {
                const unsigned char *bytes_of = c->port == 80 ? (const unsigned char *)kHead : kHello;
                const int size = c->port == 80 ? (int)sizeof kHead - 1 : (int)sizeof kHello;
                if (c->sent < size && send(c->fd, bytes_of + c->sent, 1, MSG_NOSIGNAL) == 1)
                    ++c->sent, ++bytes;
                c->next_us = t + 1000000;
            }
            fds[i].fd = c->fd;
            fds[i].events = POLLIN;
        }
        if (poll(fds, (nfds_t)total, 10) > 0) {
            char buf[4096];
            for (int i = 0; i < total; ++i) {
                if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                const ssize_t n = recv(fds[i].fd, buf, sizeof buf, MSG_DONTWAIT);
                if (n <= 0 && !(n < 0 && errno == EAGAIN)) {
                    close(conns[i].fd);
                    conns[i].fd = -1;
                    ++closed;
                }
            }
        }
    }
    printf("flood opened %ld closed-by-broker %ld slow-bytes %ld dns-sent %ld dns-answered %ld\n", opened, closed,
           bytes, dns_sent, dns_answered);
    return 0;
}

int main(int argc, char **argv)
{
    srand((unsigned)now_us());
    if (argc > 1 && strcmp(argv[1], "probe") == 0)
        return probe(argc, argv);
    if (argc > 1 && strcmp(argv[1], "flood") == 0)
        return flood(argc, argv);
    fprintf(stderr, "usage: loadguest probe IP PORT HOST SECONDS PAUSE_MS [DNS_SERVER NAME]\n"
                    "       loadguest flood IP SECONDS IDLE SLOW DNS_SERVER\n");
    return 2;
}
