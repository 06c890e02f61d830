/* The configuration loader (mm_rtlcfg.h). */
#include "mm_rtlcfg.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES 256

typedef struct entry {
    char section[48];
    char key[48];
    char value[256];
    int line;
} entry;

typedef struct table {
    const char *path;
    entry e[MAX_ENTRIES];
    int n;
} table;

static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* cut a comment: a '#' outside a string */
static void uncomment(char *s)
{
    int in = 0;
    for (char *p = s; *p; p++) {
        if (*p == '"')
            in = !in;
        else if (*p == '#' && !in) {
            *p = '\0';
            return;
        }
    }
}

static int set(table *t, const char *sec, const char *key, const char *val, int line, char *err,
               size_t n)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->e[i].section, sec) && !strcmp(t->e[i].key, key)) {
            snprintf(t->e[i].value, sizeof t->e[i].value, "%s", val);
            t->e[i].line = line;
            return 0;
        }
    if (t->n == MAX_ENTRIES)
        return fail(err, n, "%s: more than %d settings", t->path, MAX_ENTRIES);
    if (strlen(sec) >= sizeof t->e[0].section || strlen(key) >= sizeof t->e[0].key ||
        strlen(val) >= sizeof t->e[0].value)
        return fail(err, n, "%s:%d: a name or value is too long", t->path, line);
    entry *e = &t->e[t->n++];
    snprintf(e->section, sizeof e->section, "%s", sec);
    snprintf(e->key, sizeof e->key, "%s", key);
    snprintf(e->value, sizeof e->value, "%s", val);
    e->line = line;
    return 0;
}

static int parse(const char *path, table *t, char *err, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, n, "%s: %s", path, strerror(errno));
    t->path = path;
    t->n = 0;
    char buf[1024], sec[48] = "";
    int line = 0, rc = 0;
    while (rc == 0 && fgets(buf, sizeof buf, f)) {
        line++;
        if (!strchr(buf, '\n') && !feof(f)) {
            rc = fail(err, n, "%s:%d: line too long: not a configuration file", path, line);
            break;
        }
        uncomment(buf);
        char *s = trim(buf);
        if (!*s)
            continue;
        if (*s == '[') {
            char *e = strchr(s, ']');
            if (!e || s[1] == '[') {
                rc = fail(err, n, "%s:%d: a section is [name]: not a configuration file", path,
                          line);
                break;
            }
            *e = '\0';
            snprintf(sec, sizeof sec, "%s", trim(s + 1));
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = fail(err, n, "%s:%d: expected key = value: not a configuration file", path, line);
            break;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        if (!*key || !*val) {
            rc = fail(err, n, "%s:%d: expected key = value: not a configuration file", path, line);
            break;
        }
        size_t vl = strlen(val);
        if (val[0] == '"') {
            if (vl < 2 || val[vl - 1] != '"') {
                rc = fail(err, n, "%s:%d: unterminated string", path, line);
                break;
            }
            val[vl - 1] = '\0';
            val++;
        }
        rc = set(t, sec, key, val, line, err, n);
    }
    if (rc == 0 && ferror(f))
        rc = fail(err, n, "%s: read error", path);
    fclose(f);
    return rc;
}

/* ":LINE", or " (override)" for a value given as an override (line 0) */
static const char *where(const entry *e)
{
    static char buf[32];
    if (e->line)
        snprintf(buf, sizeof buf, ":%d", e->line);
    else
        snprintf(buf, sizeof buf, " (override)");
    return buf;
}

static const entry *find(const table *t, const char *sec, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->e[i].section, sec) && !strcmp(t->e[i].key, key))
            return &t->e[i];
    return NULL;
}

static int get_num(const table *t, const char *sec, const char *key, double *out, int required,
                   char *err, size_t n)
{
    const entry *e = find(t, sec, key);
    if (!e) {
        if (required)
            return fail(err, n, "%s: [%s] %s is missing", t->path, sec, key);
        return 1;
    }
    char *end;
    errno = 0;
    double v = strtod(e->value, &end);
    if (end == e->value || *trim(end) || errno || !isfinite(v))
        return fail(err, n, "%s%s: [%s] %s = %s is not a number", t->path, where(e), sec, key,
                    e->value);
    *out = v;
    return 0;
}

static int get_uint(const table *t, const char *sec, const char *key, uint64_t lo, uint64_t hi,
                    uint64_t *out, int required, char *err, size_t n)
{
    double v;
    int r = get_num(t, sec, key, &v, required, err, n);
    if (r)
        return r;
    const entry *e = find(t, sec, key);
    if (v != floor(v) || v < (double)lo || v > (double)hi)
        return fail(err, n, "%s%s: [%s] %s = %s must be a whole number in %llu..%llu", t->path,
                    where(e), sec, key, e->value, (unsigned long long)lo, (unsigned long long)hi);
    *out = (uint64_t)v;
    return 0;
}

/* "section.key=value;..." onto the rtl table (sections rtl, timing) or the fabric's */
static int apply_overrides(const char *ov, table *rtl, table *fab, char *err, size_t n)
{
    if (!ov)
        return 0;
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", ov);
    for (char *save = NULL, *tok = strtok_r(buf, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save)) {
        char *s = trim(tok);
        if (!*s)
            continue;
        char *eq = strchr(s, '='), *dot = strchr(s, '.');
        if (!eq || !dot || dot > eq)
            return fail(err, n, "override '%s' is not section.key=value", s);
        *eq = '\0';
        *dot = '\0';
        const char *sec = trim(s), *key = trim(dot + 1);
        char *val = trim(eq + 1);
        size_t vl = strlen(val);
        if (vl >= 2 && val[0] == '"' && val[vl - 1] == '"') { /* a string, as in the file */
            val[vl - 1] = '\0';
            val++;
        }
        table *t = (!strcmp(sec, "rtl") || !strcmp(sec, "timing")) ? rtl : fab;
        if (set(t, sec, key, val, 0, err, n))
            return -1;
    }
    return 0;
}

int mm_rtl_config_load(const char *path, const char *overrides, mm_rtl_config *c, char *err,
                       size_t n)
{
    static table rtl, fab; /* large; the loader is not re-entrant (mm_rtlsim.h: one thread) */
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    if (parse(path, &rtl, err, n))
        return -1;
    const entry *fe = find(&rtl, "rtl", "fabric");
    if (!fe)
        return fail(err, n, "%s: not an rtl configuration (no [rtl] fabric = \"FILE\")", path);
    /* the fabric file, relative to the configuration's directory */
    if (fe->value[0] == '/')
        snprintf(c->fabric, sizeof c->fabric, "%s", fe->value);
    else {
        const char *slash = strrchr(path, '/');
        int dl = slash ? (int)(slash - path + 1) : 0;
        snprintf(c->fabric, sizeof c->fabric, "%.*s%s", dl, path, fe->value);
    }
    if (parse(c->fabric, &fab, err, n))
        return -1;
    if (apply_overrides(overrides, &rtl, &fab, err, n))
        return -1;
    fab.path = c->fabric;

    const entry *name = find(&fab, "fabric", "name");
    if (!name)
        return fail(err, n, "%s: not a fabric file (no [fabric] name)", c->fabric);
    snprintf(c->name, sizeof c->name, "%.63s", name->value);
    const entry *kind = find(&fab, "topology", "kind");
    if (!kind)
        return fail(err, n, "%s: [topology] kind is missing", c->fabric);
    uint64_t u;
    int r;
    if (!strcmp(kind->value, "full_mesh")) {
        if (get_uint(&fab, "topology", "nodes", 1, 16, &u, 1, err, n))
            return -1;
        c->nodes = (int)u;
        c->kx = c->nodes;
        c->ky = 1;
    } else if (!strcmp(kind->value, "ghc")) {
        uint64_t kx, ky;
        if (get_uint(&fab, "topology", "kx", 1, 16, &kx, 1, err, n) ||
            get_uint(&fab, "topology", "ky", 1, 16, &ky, 1, err, n))
            return -1;
        if (kx * ky > 16)
            return fail(err, n, "%s: a %llux%llu GHC has more than 16 nodes", c->fabric,
                        (unsigned long long)kx, (unsigned long long)ky);
        const entry *d = find(&fab, "topology", "doubled");
        if (d && strcmp(d->value, "none"))
            return fail(err, n, "%s: [topology] doubled = \"%s\": the RTL has one link per pair",
                        c->fabric, d->value);
        c->ghc = 1;
        c->kx = (int)kx;
        c->ky = (int)ky;
        c->nodes = (int)(kx * ky);
    } else
        return fail(err, n, "%s: [topology] kind = \"%s\": the RTL builds full_mesh or ghc",
                    c->fabric, kind->value);

    double bw, eff, clk, wb;
    if (get_num(&fab, "link", "bandwidth_gbps", &bw, 1, err, n) ||
        get_num(&fab, "link", "efficiency", &eff, 1, err, n) ||
        get_num(&fab, "memory", "clock_mhz", &clk, 1, err, n) ||
        get_num(&fab, "memory", "channel_width_bytes", &wb, 1, err, n))
        return -1;
    if (wb != 32 && wb != 16)
        return fail(err, n,
                    "%s: [memory] channel_width_bytes = %g: the RTL has 256- and 128-bit "
                    "lanes",
                    c->fabric, wb);
    if (bw <= 0 || eff <= 0 || eff > 1 || clk <= 0)
        return fail(err, n, "%s: link bandwidth, efficiency and clock must be positive", c->fabric);
    c->width = (int)wb * 8;
    c->clock_mhz = clk;
    c->link_gbps = bw * eff;
    double bits = c->link_gbps * 1e3 / clk; /* bits per cycle */
    if (bits * 256 > 1048575)
        bits = 1048575.0 / 256;
    c->link_rate_q8 = (uint32_t)llround(bits * 256);
    /* the rtl file may set its own (the RTL's receive buffer), else the fabric's */
    r = get_uint(&rtl, "rtl", "eager_threshold_bytes", 0, 0xffffffffu, &u, 0, err, n);
    if (r < 0)
        return -1;
    if (r && get_uint(&fab, "protocol", "eager_threshold_bytes", 0, 0xffffffffu, &u, 1, err, n))
        return -1;
    c->eager_thr = (uint32_t)u;

    if (get_uint(&rtl, "timing", "link_latency_cycles", 1, 250, &u, 1, err, n))
        return -1;
    c->link_lat = (uint32_t)u;
    if (get_uint(&rtl, "timing", "loopback_latency_cycles", 0, 250, &u, 1, err, n))
        return -1;
    c->loop_lat = (uint32_t)u;
    if (get_uint(&rtl, "timing", "hbm_read_latency_cycles", 0, 255, &u, 1, err, n))
        return -1;
    c->rd_lat = (uint32_t)u;
    if (get_uint(&rtl, "timing", "hbm_write_latency_cycles", 0, 255, &u, 1, err, n))
        return -1;
    c->wr_lat = (uint32_t)u;
    if (get_uint(&rtl, "timing", "pc_select_bit", 9, 39, &u, 1, err, n))
        return -1;
    c->pc_sel = (uint32_t)u;
    c->loop_rate_q8 = (uint32_t)c->width * 256; /* the loopback moves a lane's beat per cycle */
    c->memory_bytes = 16u << 20;
    r = get_uint(&rtl, "rtl", "memory_bytes", 4096, 1ull << 36, &u, 0, err, n);
    if (r < 0)
        return -1;
    if (r == 0)
        c->memory_bytes = u;
    c->clock_gating = 1;
    r = get_uint(&rtl, "rtl", "clock_gating", 0, 1, &u, 0, err, n);
    if (r < 0)
        return -1;
    if (r == 0)
        c->clock_gating = (int)u;
    const entry *m = find(&rtl, "rtl", "model");
    if (m)
        snprintf(c->model, sizeof c->model, "%.31s", m->value);
    return 0;
}
