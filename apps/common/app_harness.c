/*
 * The application harness (app_harness.h): option table, timed runs, verdict, result line.
 * Runtime-independent: every call into the runtime goes through the app_rt_t table.
 */
#include "app_harness.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the common options, after the program's own */
static const char COMMON_KEYS[] = "iwsCh";

/* Rank 0 of the job before the runtime starts: meshrun and mpirun name each process's rank in
 * its environment, so that a bad option is reported once, not once per rank. */
static int launcher_rank0(void)
{
    const char *vars[] = {"MESHMEM_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v)
            return atoi(v) == 0;
    }
    return 1;
}

static void usage(const app_t *h, const char *synopsis, const app_opt_t *opts)
{
    printf("usage: %s\n", synopsis);
    for (const app_opt_t *o = opts; o->key; o++)
        printf("  -%c %-10s %s\n", o->key, o->kind == APP_FLAG ? "" : o->meta, o->help);
    printf("  -i %-10s timed runs (default %d)\n", "ITERS", h->iters);
    if (h->warmup < 0)
        printf("  -w %-10s untimed runs first (default: the program's choice)\n", "WARMUP");
    else
        printf("  -w %-10s untimed runs first (default %d)\n", "WARMUP", h->warmup);
    printf("  -s %-10s input seed (default %llu)\n", "SEED", (unsigned long long)h->seed);
    printf("  -C %-10s corrupt the result before verifying (tests that the verifier fails)\n", "");
    printf("  -h %-10s this text\n", "");
}

/* "PROG: message" on stderr, one line */
static void say(const char *prog, const char *who, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: %s", prog, who);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
}

void app_bad_option(const app_t *h, const char *fmt, ...)
{
    if (launcher_rank0()) {
        va_list ap;
        va_start(ap, fmt);
        say(h->prog, "", fmt, ap);
        va_end(ap);
    } else {
        /* the launcher stops the job at the first rank that fails: let rank 0, which finds the
           same fault, say what it is before that */
        nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = 500000000}, NULL);
    }
    exit(2);
}

static void set_value(const app_t *h, const app_opt_t *o, const char *arg)
{
    char *end = NULL;
    switch (o->kind) {
    case APP_INT: {
        long v = strtol(arg, &end, 10);
        if (end == arg || *end || v < o->min || v > 1 << 30)
            app_bad_option(h, "-%c %s: %s must be an integer of at least %lld", o->key, arg,
                           o->meta, o->min);
        *(int *)o->value = (int)v;
        break;
    }
    case APP_COUNT: {
        int64_t v;
        if (mm_parse_size(arg, &v) != 0 || v < o->min)
            app_bad_option(h, "-%c %s: %s must be a count of at least %lld (e.g. 1000, 16M, 2^24)",
                           o->key, arg, o->meta, o->min);
        *(long long *)o->value = v;
        break;
    }
    case APP_U64: {
        unsigned long long v = strtoull(arg, &end, 0);
        if (end == arg || *end || arg[0] == '-')
            app_bad_option(h, "-%c %s: %s must be a non-negative integer", o->key, arg, o->meta);
        *(uint64_t *)o->value = v;
        break;
    }
    case APP_DOUBLE: {
        double v = strtod(arg, &end);
        if (end == arg || *end || !(v >= (double)o->min))
            app_bad_option(h, "-%c %s: %s must be a number of at least %lld", o->key, arg, o->meta,
                           o->min);
        *(double *)o->value = v;
        break;
    }
    case APP_STR: *(const char **)o->value = arg; break;
    case APP_FLAG: *(int *)o->value = 1; break;
    }
}

void app_parse(app_t *h, const char *synopsis, const app_opt_t *opts, int argc, char **argv)
{
    char optstring[128];
    size_t k = 0;
    optstring[k++] = ':'; /* a missing value is reported as such, not as an unknown option */
    for (const app_opt_t *o = opts; o->key && k + 3 < sizeof(optstring); o++) {
        if (strchr(COMMON_KEYS, o->key))
            app_bad_option(h, "option table: -%c is a common option", o->key);
        optstring[k++] = o->key;
        if (o->kind != APP_FLAG)
            optstring[k++] = ':';
    }
    snprintf(optstring + k, sizeof(optstring) - k, "i:w:s:Ch");
    const app_opt_t common[] = {
        {'i', APP_INT, &h->iters, 1, "ITERS", ""}, {'w', APP_INT, &h->warmup, 0, "WARMUP", ""},
        {'s', APP_U64, &h->seed, 0, "SEED", ""},   {'C', APP_FLAG, &h->corrupt, 0, "", ""},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    opterr = 0;
    int c;
    while ((c = getopt(argc, argv, optstring)) != -1) {
        if (c == 'h') {
            if (launcher_rank0())
                usage(h, synopsis, opts);
            exit(0);
        }
        if (c == '?')
            app_bad_option(h, "unknown option -%c (-h lists the options)", optopt);
        if (c == ':')
            app_bad_option(h, "option -%c needs a value (-h lists the options)", optopt);
        const app_opt_t *o = NULL;
        for (const app_opt_t *t = opts; t->key && !o; t++)
            o = t->key == c ? t : NULL;
        for (const app_opt_t *t = common; t->key && !o; t++)
            o = t->key == c ? t : NULL;
        set_value(h, o, optarg);
    }
    if (optind < argc)
        app_bad_option(h, "unexpected argument %s (options only; -h lists them)", argv[optind]);
}

void app_check_choice(const app_t *h, char key, const char *value, const char *choices)
{
    size_t n = strlen(value);
    for (const char *c = choices; n > 0 && *c; c += strcspn(c, ","), c += *c == ',')
        if (strcspn(c, ",") == n && strncmp(c, value, n) == 0)
            return;
    app_bad_option(h, "-%c %s: one of %s", key, value, choices);
}

void app_start(app_t *h, const app_rt_t *rt)
{
    h->rt = rt;
    if (rt->init() != 0) {
        fprintf(stderr, "%s: %s did not start\n", h->prog, rt->name);
        exit(1);
    }
    h->me = rt->rank();
    h->nranks = rt->nranks();
    rt->phase("setup");
}

void app_arg_error(app_t *h, const char *fmt, ...)
{
    if (h->me == 0) {
        va_list ap;
        va_start(ap, fmt);
        say(h->prog, "", fmt, ap);
        va_end(ap);
    }
    h->rt->finalize();
    exit(2);
}

void app_fatal(app_t *h, const char *fmt, ...)
{
    char who[32];
    snprintf(who, sizeof(who), "rank %d: ", h->me);
    va_list ap;
    va_start(ap, fmt);
    say(h->prog, who, fmt, ap);
    va_end(ap);
    if (h->rt)
        h->rt->abort(1);
    exit(1);
}

void *app_alloc(app_t *h, size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        app_fatal(h, "out of memory: %zu bytes for %s", bytes, what);
    return p;
}

void app_time_runs(app_t *h, const app_runs_t *r)
{
    const app_rt_t *rt = h->rt;
    int iters = r->iters > 0 ? r->iters : h->iters;
    int warmup = r->warmup >= 0 ? r->warmup : h->warmup < 0 ? 1 : h->warmup;
    int each = r->timing == APP_TIME_EACH;
    free(h->t.times);
    h->t.n = each ? iters : 1;
    h->t.runs = iters;
    h->t.times = app_alloc(h, (size_t)h->t.n * sizeof(double), "timings");
    double sum = 0;
    for (int it = 0; it < warmup + iters; it++) {
        if (r->prepare)
            r->prepare(r->ctx, it);
        if (each || r->barrier)
            rt->barrier();
        if (r->phase)
            rt->phase(r->phase);
        double t0 = rt->now();
        r->run(r->ctx, it);
        double t = rt->now() - t0;
        rt->phase("setup");
        if (each) {
            rt->allreduce(&t, 1, APP_MAX);
            if (it >= warmup)
                h->t.times[it - warmup] = t;
        } else if (it >= warmup) {
            sum += t;
        }
        if (r->check)
            r->check(r->ctx, it);
    }
    if (!each) {
        h->t.times[0] = sum / iters;
        rt->allreduce(h->t.times, 1, APP_MAX);
    }
    h->t.best = app_min(h->t.times, h->t.n);
    double *sorted = app_alloc(h, (size_t)h->t.n * sizeof(double), "timings");
    memcpy(sorted, h->t.times, (size_t)h->t.n * sizeof(double));
    h->t.median = app_median(sorted, h->t.n);
    free(sorted);
}

int app_verdict(app_t *h, uint64_t bad, double err, const char *what)
{
    /* NaN is carried as infinity: MAX over ranks must not lose it */
    double v[2] = {(double)bad, isnan(err) ? INFINITY : err};
    h->rt->allreduce(v, 1, APP_SUM);
    h->rt->allreduce(v + 1, 1, APP_MAX);
    h->bad = (uint64_t)v[0];
    h->max_err = v[1];
    h->verified = h->bad == 0 && !isinf(h->max_err);
    if (!h->verified) {
        h->failed = 1;
        if (h->me == 0) {
            fprintf(stderr, "%s: verification FAILED: %s (%llu failures, largest error %.3g)\n",
                    h->prog, what, (unsigned long long)h->bad, h->max_err);
            fflush(stderr);
        }
    }
    return h->verified;
}

void app_report(app_t *h, const char *fmt, ...)
{
    if (h->me != 0)
        return;
    char fields[1024], times[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fields, sizeof(fields), fmt, ap);
    va_end(ap);
    app_times_list(h->t.times, h->t.n, times, sizeof(times));
    printf("@%s %s runtime=%s ranks=%d seconds=%.9f best=%.9f iters=%d times=%s verified=%d "
           "max_err=%.3g\n",
           h->tag, fields, h->rt->name, h->nranks, h->t.median, h->t.best, h->t.runs,
           times[0] ? times : "0", h->verified, h->max_err);
    fflush(stdout);
}

int app_finish(app_t *h)
{
    free(h->t.times);
    h->t.times = NULL;
    h->rt->finalize();
    return h->failed ? 1 : 0;
}

int app_parse_counts(const char *s, long long *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        char buf[32];
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= sizeof(buf))
            return -1;
        memcpy(buf, s, len);
        buf[len] = 0;
        int64_t v;
        if (mm_parse_size(buf, &v) != 0)
            return -1;
        out[n++] = v;
        s += len;
        if (*s == ',')
            s++;
    }
    return *s ? -1 : n;
}
