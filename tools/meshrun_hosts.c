/* meshrun --hosts/--hostfile/--vhosts: host lists and the placement of ranks on them. */
#include "meshrun_hosts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS_MAX 4096 /* meshrun's rank limit */

/* a host name or address as mpirun and ssh take it: letters, digits, '.', '-', '_' */
static bool name_is_valid(const char *s, size_t len)
{
    if (len == 0 || len > MESHRUN_HOST_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr(".-_", s[i]))
            return false;
    return true;
}

static bool parse_count(const char *s, size_t len, int *out)
{
    if (len == 0 || len > 9)
        return false;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    if (v < 1 || v > SLOTS_MAX)
        return false;
    *out = v;
    return true;
}

/* add @p slots to host @p name, appending it when new */
static int add_host(meshrun_hostlist_t *l, const char *name, size_t len, int slots)
{
    for (int i = 0; i < l->nhosts; i++) {
        if (strlen(l->hosts[i].name) == len && !strncmp(l->hosts[i].name, name, len)) {
            l->hosts[i].slots += slots;
            l->total_slots += slots;
            return 0;
        }
    }
    meshrun_host_t *h = realloc(l->hosts, (size_t)(l->nhosts + 1) * sizeof(*h));
    if (h == NULL)
        return -1;
    l->hosts = h;
    memcpy(h[l->nhosts].name, name, len);
    h[l->nhosts].name[len] = '\0';
    h[l->nhosts].slots = slots;
    l->nhosts++;
    l->total_slots += slots;
    return 0;
}

int meshrun_hosts_parse_list(const char *text, meshrun_hostlist_t *out, char *err, size_t errlen)
{
    *out = (meshrun_hostlist_t){0};
    for (const char *p = text;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        size_t nlen = colon ? (size_t)(colon - p) : len;
        int slots = 1;
        if (!name_is_valid(p, nlen) || (colon && !parse_count(colon + 1, len - nlen - 1, &slots))) {
            snprintf(err, errlen,
                     "--hosts entry \"%.*s\" is not HOST or HOST:SLOTS (SLOTS in "
                     "1..%d)",
                     (int)len, p, SLOTS_MAX);
            meshrun_hosts_free(out);
            return -1;
        }
        if (add_host(out, p, nlen, slots) != 0) {
            snprintf(err, errlen, "out of memory");
            meshrun_hosts_free(out);
            return -1;
        }
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

/* one hostfile line, comment and newline removed: "host [slots=N] [max_slots=N]" */
static int parse_file_line(char *line, meshrun_hostlist_t *out, const char **why)
{
    char *save = NULL;
    char *name = strtok_r(line, " \t", &save);
    if (name == NULL)
        return 0;
    if (!name_is_valid(name, strlen(name))) {
        *why = "is not a host name";
        return -1;
    }
    int slots = 1, ignored;
    for (char *tok; (tok = strtok_r(NULL, " \t", &save)) != NULL;) {
        if (!strncmp(tok, "slots=", 6) && parse_count(tok + 6, strlen(tok + 6), &slots))
            continue;
        if (!strncmp(tok, "max_slots=", 10) && parse_count(tok + 10, strlen(tok + 10), &ignored))
            continue;
        *why = "has a field other than slots=N or max_slots=N (N in 1..4096)";
        return -1;
    }
    if (add_host(out, name, strlen(name), slots) != 0) {
        *why = "could not be stored (out of memory)";
        return -1;
    }
    return 0;
}

int meshrun_hosts_parse_file(const char *path, meshrun_hostlist_t *out, char *err, size_t errlen)
{
    *out = (meshrun_hostlist_t){0};
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, errlen, "--hostfile \"%s\": %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        line[strcspn(line, "#\r\n")] = '\0';
        char copy[sizeof(line)];
        memcpy(copy, line, sizeof(line));
        const char *why = NULL;
        if (parse_file_line(line, out, &why) != 0) {
            snprintf(err, errlen, "--hostfile \"%s\" line %d \"%s\" %s", path, lineno, copy, why);
            rc = -1;
            break;
        }
    }
    fclose(f);
    if (rc == 0 && out->nhosts == 0) {
        snprintf(err, errlen, "--hostfile \"%s\" names no host", path);
        rc = -1;
    }
    if (rc != 0)
        meshrun_hosts_free(out);
    return rc;
}

int meshrun_hosts_virtual(int nhosts, int slots, meshrun_hostlist_t *out)
{
    *out = (meshrun_hostlist_t){0};
    for (int h = 0; h < nhosts; h++) {
        char name[32];
        int len = snprintf(name, sizeof(name), "vhost%d", h);
        if (add_host(out, name, (size_t)len, slots) != 0) {
            meshrun_hosts_free(out);
            return -1;
        }
    }
    return 0;
}

int meshrun_hosts_place(const meshrun_hostlist_t *list, int nranks, bool by_node, int *rank_host)
{
    if (nranks > list->total_slots)
        return -1;
    int used[list->nhosts];
    memset(used, 0, sizeof(used));
    int h = 0;
    for (int r = 0; r < nranks; r++) {
        /* by slot: stay on a host until it is full; by node: move on after every rank */
        while (used[h] == list->hosts[h].slots)
            h = (h + 1) % list->nhosts;
        rank_host[r] = h;
        used[h]++;
        if (by_node)
            h = (h + 1) % list->nhosts;
    }
    return 0;
}

/*
 * The name mpirun knows this machine by (its host name without the domain) for the names that
 * mean this machine: mpirun counts "localhost" as this machine in its allocation, but its
 * sequential mapper then looks the line up by name and finds no such node.
 */
static const char *seq_name(const char *name, const char *self, size_t self_len)
{
    if (!strcmp(name, "localhost") || !strcmp(name, "127.0.0.1") ||
        (!strncmp(name, self, self_len) && (name[self_len] == '\0' || name[self_len] == '.')))
        return self;
    return name;
}

int meshrun_hosts_write_seq(const char *path, const meshrun_hostlist_t *list, const int *rank_host,
                            int nranks)
{
    char self[MESHRUN_HOST_NAME_MAX + 1] = "localhost";
    gethostname(self, sizeof(self) - 1);
    self[strcspn(self, ".")] = '\0';
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    for (int r = 0; r < nranks; r++)
        fprintf(f, "%s\n", seq_name(list->hosts[rank_host[r]].name, self, strlen(self)));
    if (fclose(f) != 0)
        return -1;
    return 0;
}

int meshrun_hosts_write_rankfile(const char *path, const meshrun_hostlist_t *list,
                                 const int *rank_host, int nranks, const int *cpus, int ncpus)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    for (int r = 0; r < nranks; r++)
        fprintf(f, "rank %d=%s slot=%d\n", r, list->hosts[rank_host[r]].name, cpus[r % ncpus]);
    if (fclose(f) != 0)
        return -1;
    return 0;
}

void meshrun_hosts_ranks_on(const int *rank_host, int nranks, int host, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int r = 0; r < nranks; r++) {
        if (rank_host[r] != host)
            continue;
        int last = r; /* a run of consecutive ranks on this host prints as first-last */
        while (last + 1 < nranks && rank_host[last + 1] == host)
            last++;
        int w = last > r + 1
                    ? snprintf(out + used, size - used, "%s%d-%d", used ? ", " : "", r, last)
                    : snprintf(out + used, size - used, "%s%d", used ? ", " : "", r);
        if (w < 0 || (size_t)w >= size - used)
            return;
        used += (size_t)w;
        if (last > r + 1)
            r = last;
    }
}

void meshrun_hosts_free(meshrun_hostlist_t *list)
{
    free(list->hosts);
    *list = (meshrun_hostlist_t){0};
}
