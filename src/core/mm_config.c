/* Configuration table: parsing MESHMEM_* variables into mm_config. */
#include "mm_config.h"
#include "mm_log.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

mm_config_t mm_config;

enum { MM_KIND_SIZE, MM_KIND_INT, MM_KIND_BOOL, MM_KIND_TOPO, MM_KIND_NETS };

typedef struct {
    const char *name;
    int kind;
    const char *def;
    const char *doc;
    size_t offset;
} mm_config_entry_t;

static const mm_config_entry_t mm_config_entries[] = {
#define MM_CONFIG_ENTRY(name, field, kind, def, doc)                                               \
    {#name, MM_KIND_##kind, def, doc, offsetof(mm_config_t, field)},
    MM_CONFIG_TABLE(MM_CONFIG_ENTRY)
#undef MM_CONFIG_ENTRY
};

int mm_parse_topology(const char *text, int64_t *out)
{
    if (!strcasecmp(text, "auto")) {
        *out = MM_TOPO_HOSTS;
        return 0;
    }
    if (!strcasecmp(text, "fullmesh")) {
        *out = MM_TOPO_FULLMESH;
        return 0;
    }
    if (!strcasecmp(text, "ghc")) {
        *out = MM_TOPO_GHC_AUTO;
        return 0;
    }
    if (strncasecmp(text, "ghc:", 4) != 0 || !isdigit((unsigned char)text[4]))
        return -1;
    char *end;
    errno = 0;
    long kx = strtol(text + 4, &end, 10);
    if (errno || (*end != 'x' && *end != 'X') || !isdigit((unsigned char)end[1]))
        return -1;
    long ky = strtol(end + 1, &end, 10);
    if (errno || *end != '\0' || kx < 1 || ky < 1 || kx > INT32_MAX || ky > INT32_MAX)
        return -1;
    *out = MM_TOPO_GHC(kx, ky);
    return 0;
}

int mm_parse_nets(const char *text, int64_t *out)
{
    static const char *const names[] = {MM_NET_NAMES};
    const int known = (int)(sizeof(names) / sizeof(names[0]));
    uint64_t list = 0, seen = 0;
    int n = 0;
    for (const char *p = text;; p++) {
        size_t len = strcspn(p, ",");
        int code = 0;
        for (int i = 0; i < known && code == 0; i++)
            if (strlen(names[i]) == len && strncasecmp(p, names[i], len) == 0)
                code = i + 1;
        if (code == 0 || (seen >> code & 1) || n == 15)
            return -1; /* unknown, empty, named twice, or too many */
        seen |= UINT64_C(1) << code;
        list |= (uint64_t)code << (4 * n++);
        p += len;
        if (*p == '\0')
            break;
    }
    *out = (int64_t)list;
    return 0;
}

static int mm_config_parse(const mm_config_entry_t *e, const char *text, int64_t *out)
{
    char *end;
    switch (e->kind) {
    case MM_KIND_SIZE: return mm_parse_size(text, out);
    case MM_KIND_INT:
        errno = 0;
        *out = strtoll(text, &end, 0);
        return (end == text || *end != '\0' || errno) ? -1 : 0;
    case MM_KIND_BOOL:
        if (!strcmp(text, "1") || !strcasecmp(text, "yes") || !strcasecmp(text, "true") ||
            !strcasecmp(text, "on")) {
            *out = 1;
            return 0;
        }
        if (!strcmp(text, "0") || !strcasecmp(text, "no") || !strcasecmp(text, "false") ||
            !strcasecmp(text, "off")) {
            *out = 0;
            return 0;
        }
        return -1;
    case MM_KIND_TOPO: return mm_parse_topology(text, out);
    case MM_KIND_NETS: return mm_parse_nets(text, out);
    }
    return -1;
}

/* what a list of networks may hold, for the message of a bad one */
static const char *mm_config_nets_syntax(void)
{
    static const char *const names[] = {MM_NET_NAMES};
    static char text[160];
    int n = snprintf(text, sizeof(text), "list of networks (a comma list of");
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && n > 0 && n < 100; i++)
        n += snprintf(text + n, sizeof(text) - (size_t)n, "%s %s", i ? "," : "", names[i]);
    if (n > 0 && n < 100)
        snprintf(text + n, sizeof(text) - (size_t)n, ", each at most once)");
    return text;
}

/* the variable that sets @p e, written into @p var, and its text (NULL: unset or empty) */
static const char *mm_config_source(const mm_config_entry_t *e, char *var, size_t cap)
{
    const char *std = getenv("SHMEM_SYMMETRIC_SIZE");
    if (!strcmp(e->name, "HEAP_SIZE") && std && *std)
        snprintf(var, cap, "SHMEM_SYMMETRIC_SIZE"); /* the standard's name wins */
    else
        snprintf(var, cap, "MESHMEM_%s", e->name);
    const char *text = getenv(var);
    return text && *text ? text : NULL;
}

int mm_config_load(char *why, size_t cap)
{
    char var[64];
    for (size_t i = 0; i < sizeof(mm_config_entries) / sizeof(mm_config_entries[0]); i++) {
        const mm_config_entry_t *e = &mm_config_entries[i];
        int64_t *field = (int64_t *)((char *)&mm_config + e->offset);
        const char *text = mm_config_source(e, var, sizeof(var));
        if (text == NULL)
            text = e->def;
        if (mm_config_parse(e, text, field) != 0) {
            snprintf(why, cap, "%s=\"%.100s\" is not a valid %s", var, text,
                     e->kind == MM_KIND_SIZE   ? "size (such as 64M or 1G)"
                     : e->kind == MM_KIND_INT  ? "integer"
                     : e->kind == MM_KIND_TOPO ? "topology (auto, fullmesh, ghc or ghc:KXxKY)"
                     : e->kind == MM_KIND_NETS ? mm_config_nets_syntax()
                                               : "boolean (0 or 1, no or yes)");
            return -1;
        }
    }
    return 0;
}

/* the MESHMEM_* variables meshmem reads besides the table's: set by its launcher, read by its
 * tools and tests (a user setting one is no mistake) */
static const char *const mm_config_other_names[] = {
    "RANK",      "NRANKS",     "CTL_FD", "RTL_FD", "JOB",        "JOB_CPUS",
    "TRACE_DIR", "PLUGIN_DIR", "BUILD",  "CACHE",  "NO_INSTALL",
};

/* the edit distance between @p a and @p b (insertions, deletions, substitutions), at most
 * 64 characters of each */
static size_t mm_edit_distance(const char *a, const char *b)
{
    size_t la = strnlen(a, 64), lb = strnlen(b, 64), row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (toupper((unsigned char)a[i - 1]) != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

void mm_config_check_names(void)
{
    extern char **environ;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "MESHMEM_", 8) != 0)
            continue;
        char name[64];
        size_t len = strcspn(*e + 8, "=");
        if (len >= sizeof(name))
            continue;
        memcpy(name, *e + 8, len);
        name[len] = '\0';
        const char *nearest = NULL;
        size_t best = SIZE_MAX;
        bool known = !strncmp(name, "TEST_", 5); /* the test suite's own switches */
        size_t ntable = sizeof(mm_config_entries) / sizeof(mm_config_entries[0]);
        size_t nother = sizeof(mm_config_other_names) / sizeof(mm_config_other_names[0]);
        for (size_t i = 0; i < ntable + nother && !known; i++) {
            const char *k =
                i < ntable ? mm_config_entries[i].name : mm_config_other_names[i - ntable];
            size_t d = mm_edit_distance(name, k);
            known = d == 0 && !strcmp(name, k);
            if (i < ntable && d < best) { /* a tunable is what a user means to set */
                best = d;
                nearest = k;
            }
        }
        if (known)
            continue;
        /* a name far from every tunable is no misspelling of one: no suggestion */
        if (nearest && best <= 1 + strlen(nearest) / 3)
            mm_log(MM_LOG_WARN | MM_LOG_ALWAYS,
                   "MESHMEM_%s is not a meshmem variable: ignored "
                   "(did you mean MESHMEM_%s?)",
                   name, nearest);
        else
            mm_log(MM_LOG_WARN | MM_LOG_ALWAYS,
                   "MESHMEM_%s is not a meshmem variable: ignored "
                   "(meshmem info --config lists them)",
                   name);
    }
}

void mm_config_print(FILE *out)
{
    char var[64], name[64];
    fprintf(out, "%-24s %-12s %-8s %s\n", "variable", "value", "default", "meaning");
    for (size_t i = 0; i < sizeof(mm_config_entries) / sizeof(mm_config_entries[0]); i++) {
        const mm_config_entry_t *e = &mm_config_entries[i];
        const char *now = mm_config_source(e, var, sizeof(var));
        snprintf(name, sizeof(name), "MESHMEM_%s", e->name);
        char doc[512];
        /* the value in force names the variable it came from when that is another one */
        if (now && strcmp(var, name) != 0)
            snprintf(doc, sizeof(doc), "%s (from %s)", e->doc, var);
        else
            snprintf(doc, sizeof(doc), "%s", e->doc);
        fprintf(out, "%-24s %-12s %-8s %s\n", name, now ? now : e->def, e->def, doc);
    }
}
