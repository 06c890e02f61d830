/*
 * meshrun_demux (tools/meshrun_demux.h): mpirun's tagged stream is split into the ranks'
 * pieces and mpirun's own bytes whatever the reads that cut it, and nothing is lost or added.
 */
#include "meshrun_demux.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* the pieces as text: "R/K:bytes|" per piece, consecutive pieces of one owner joined */
typedef struct {
    char text[4096];
    size_t len;
    int rank, kind;
} got_t;

static void collect(void *ctx, int rank, int kind, const char *p, size_t n)
{
    got_t *g = ctx;
    if (n == 0)
        return;
    if (g->len == 0 || rank != g->rank || kind != g->kind)
        g->len += (size_t)snprintf(g->text + g->len, sizeof(g->text) - g->len,
                                   "%s%d/%d:", g->len ? "|" : "", rank, kind);
    memcpy(g->text + g->len, p, n);
    g->len += n;
    g->text[g->len] = '\0';
    g->rank = rank;
    g->kind = kind;
}

/* @p in fed in pieces of @p piece bytes, then the end of the stream */
static void check(const char *in, const char *want, size_t piece)
{
    meshrun_demux_t d;
    meshrun_demux_init(&d);
    got_t g = {.rank = -2};
    size_t len = strlen(in);
    for (size_t off = 0; off < len; off += piece)
        meshrun_demux(&d, in + off, len - off < piece ? len - off : piece, collect, &g);
    meshrun_demux(&d, "", 0, collect, &g);
    if (strcmp(g.text, want) != 0) {
        fprintf(stderr, "meshrun_demux_test: pieces of %zu: \"%s\" gave \"%s\", not \"%s\"\n",
                piece, in, g.text, want);
        failures++;
    }
}

int main(void)
{
    static const char *const cases[][2] = {
        {"[1,0]<stdout>:hello\n[1,12]<stderr>:x\n", "0/0:hello\n|12/1:x\n"},
        /* a piece without a newline, another rank's piece after it */
        {"[1,2]<stdout>:ran[1,3]<stdout>:rank 3\n[1,2]<stdout>:k 2\n",
         "2/0:ran|3/0:rank 3\n|2/0:k 2\n"},
        /* mpirun's own lines between pieces */
        {"----\n[1,1]<stderr>:e\nmpirun noticed\n", "-1/0:----\n|1/1:e\n|-1/0:mpirun noticed\n"},
        {"[1,0]<stddiag>:d\n", "0/1:d\n"},
        {"[1,0]<stdin>:a [x] [1,2] [1,2]<stdou", "-1/0:[1,0]<stdin>:a [x] [1,2] [1,2]<stdou"},
        {"[12345678901,1]<stdout>:long", "-1/0:[12345678901,1]<stdout>:long"}, /* 11 digits */
        {"no marks at all\n", "-1/0:no marks at all\n"},
        {"[[1,0]<stdout>:z", "-1/0:[|0/0:z"},
        {"", ""},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
        for (size_t piece = 1; piece <= 40; piece++)
            check(cases[c][0], cases[c][1], piece);
    if (failures == 0)
        printf("meshrun_demux_test: all cases pass, whatever the pieces\n");
    return failures ? 1 : 0;
}
