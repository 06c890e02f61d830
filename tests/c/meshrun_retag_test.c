/*
 * meshrun_retag (tools/meshrun_retag.h): mpirun's marks become meshrun's whatever the reads
 * that cut them, and what is no mark passes unchanged.
 */
#include "meshrun_retag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* @p in fed in pieces of @p piece bytes, then the end of the stream */
static void check(const char *in, const char *want, size_t piece)
{
    meshrun_retag_t t = {0};
    char got[4096] = "", out[MESHRUN_RETAG_CHUNK + MESHRUN_RETAG_HELD];
    size_t len = strlen(in), used = 0;
    for (size_t off = 0; off < len; off += piece) {
        size_t n = len - off < piece ? len - off : piece;
        size_t w = meshrun_retag(&t, in + off, n, out);
        memcpy(got + used, out, w);
        used += w;
    }
    used += meshrun_retag(&t, "", 0, got + used);
    got[used] = '\0';
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "meshrun_retag_test: pieces of %zu: \"%s\" gave \"%s\", not \"%s\"\n",
                piece, in, got, want);
        failures++;
    }
}

int main(void)
{
    static const char *const cases[][2] = {
        {"[1,0]<stdout>:hello\n[1,12]<stderr>:x\n", "[0] hello\n[12] x\n"},
        {"a[1,3]<stdout>:b", "a[3] b"},                        /* a mark inside a line */
        {"[1,0]<stdin>:a [x] [1,2] [1,2]<stdou", "[1,0]<stdin>:a [x] [1,2] [1,2]<stdou"},
        {"[12345678901,1]<stdout>:long", "[12345678901,1]<stdout>:long"}, /* 11 digits */
        {"no marks at all\n", "no marks at all\n"},
        {"[[1,0]<stdout>:z", "[[0] z"},
        {"", ""},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
        for (size_t piece = 1; piece <= 40; piece++)
            check(cases[c][0], cases[c][1], piece);
    if (failures == 0)
        printf("meshrun_retag_test: all cases pass, whatever the pieces\n");
    return failures ? 1 : 0;
}
