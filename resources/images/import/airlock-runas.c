/* airlock-runas: runs a command as an imported image's USER.
 *
 *   airlock-runas USER COMMAND [ARG...]
 *
 * USER is what the image's config says: NAME, UID, NAME:GROUP or UID:GID. Names are looked up
 * in the guest's /etc/passwd and /etc/group by hand (static, so no NSS); a UID that has no
 * passwd line runs with GID = UID and HOME=/. HOME and USER are set from the passwd line.
 * Exit 127 with a message when the user cannot be found or the command cannot start. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct account {
    long uid, gid;
    char name[256], home[1024];
};

static int number(const char *s, long *out)
{
    char *end;
    if (!*s)
        return 0;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < 0 || v > 0x7fffffff)
        return 0;
    *out = v;
    return 1;
}

/* Field `want` (0-based) of a colon-separated line, into buf. */
static int field(const char *line, int want, char *buf, size_t size)
{
    for (int i = 0; i < want; ++i) {
        line = strchr(line, ':');
        if (!line)
            return 0;
        ++line;
    }
    size_t n = strcspn(line, ":\n");
    if (n >= size)
        return 0;
    memcpy(buf, line, n);
    buf[n] = 0;
    return 1;
}

/* The line of `file` whose field 0 (by name) or field 2 (by id) matches `key`. */
static int lookup(const char *file, const char *key, int byId, char *line, size_t size)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return 0;
    char name[256];
    int found = 0;
    while (!found && fgets(line, (int)size, f))
        found = field(line, byId ? 2 : 0, name, sizeof name) && strcmp(name, key) == 0;
    fclose(f);
    return found;
}

static int resolve(const char *spec, struct account *a)
{
    char user[256], group[256] = "", line[2048], buf[1024];
    if (strlen(spec) >= sizeof user)
        return 0;
    strcpy(user, spec);
    char *colon = strchr(user, ':');
    if (colon) {
        *colon = 0;
        strcpy(group, colon + 1);
    }
    const int userIsId = number(user, &a->uid);
    strcpy(a->home, "/");
    snprintf(a->name, sizeof a->name, "%s", user);
    if (lookup("/etc/passwd", user, userIsId, line, sizeof line)) {
        if (!field(line, 2, buf, sizeof buf) || !number(buf, &a->uid) || !field(line, 3, buf, sizeof buf) || !number(buf, &a->gid))
            return 0;
        field(line, 0, a->name, sizeof a->name);
        field(line, 5, a->home, sizeof a->home);
    } else if (userIsId) {
        a->gid = a->uid;
    } else {
        fprintf(stderr, "airlock-runas: the image's user %s is not in /etc/passwd\n", user);
        return 0;
    }
    if (*group && !number(group, &a->gid)) {
        if (!lookup("/etc/group", group, 0, line, sizeof line) || !field(line, 2, buf, sizeof buf) || !number(buf, &a->gid)) {
            fprintf(stderr, "airlock-runas: the image's group %s is not in /etc/group\n", group);
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: airlock-runas USER COMMAND [ARG...]\n");
        return 127;
    }
    struct account a;
    if (!resolve(argv[1], &a))
        return 127;
    gid_t gid = (gid_t)a.gid;
    if (setgroups(1, &gid) != 0 || setgid(gid) != 0 || setuid((uid_t)a.uid) != 0) {
        perror("airlock-runas: cannot become the image's user");
        return 127;
    }
    setenv("HOME", a.home, 1);
    setenv("USER", a.name, 1);
    execvp(argv[2], argv + 2);
    fprintf(stderr, "airlock-runas: cannot run %s: %s\n", argv[2], strerror(errno));
    return 127;
}
