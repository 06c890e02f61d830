/* meshrun across hosts: mpirun's --tag-output stream split at its marks (meshrun_demux.h). */
#include "meshrun_demux.h"

#include <string.h>

enum { MARK_NO = 0, MARK_YES = 1, MARK_CUT = -1 };

/* Does a mark start at @p p (@p len bytes available)? MARK_YES with its rank, stream and
 * length, MARK_NO, or MARK_CUT when the bytes so far fit a mark that goes on past them. */
static int mark_at(const char *p, size_t len, long *rank, int *kind, size_t *mark_len)
{
    static const char *const kinds[] = {"<stdout>:", "<stderr>:", "<stddiag>:"};
    size_t i = 0;
    if (p[i++] != '[')
        return MARK_NO;
    for (int field = 0; field < 2; field++) {
        size_t start = i;
        long v = 0;
        for (; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
            if (i - start >= 10)
                return MARK_NO;
            v = v * 10 + (p[i] - '0');
        }
        if (i == len)
            return MARK_CUT;
        if (i == start || p[i] != (field == 0 ? ',' : ']'))
            return MARK_NO;
        i++;
        *rank = v;
    }
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        size_t klen = strlen(kinds[k]), avail = len - i < klen ? len - i : klen;
        if (memcmp(p + i, kinds[k], avail) != 0)
            continue;
        if (avail < klen)
            return MARK_CUT;
        *kind = k == 0 ? 0 : 1; /* diagnostics go with stderr */
        *mark_len = i + klen;
        return MARK_YES;
    }
    return MARK_NO;
}

void meshrun_demux_init(meshrun_demux_t *d)
{
    *d = (meshrun_demux_t){.rank = -1};
}

void meshrun_demux(meshrun_demux_t *d, const char *in, size_t n, meshrun_demux_fn fn, void *ctx)
{
    /* the held bytes and the new ones, scanned as one */
    char work[MESHRUN_DEMUX_HELD + MESHRUN_DEMUX_CHUNK];
    memcpy(work, d->held, d->nheld);
    memcpy(work + d->nheld, in, n);
    size_t len = d->nheld + n, seg = 0, i = 0;
    d->nheld = 0;
    while (i < len) {
        long rank = 0;
        int kind = 0;
        size_t mark_len = 0;
        int m = work[i] == '[' ? mark_at(work + i, len - i, &rank, &kind, &mark_len) : MARK_NO;
        if (m == MARK_YES || (m == MARK_CUT && n > 0)) {
            if (i > seg)
                fn(ctx, d->rank, d->kind, work + seg, i - seg);
            if (m == MARK_CUT) {
                d->nheld = len - i; /* less than a mark: it fits */
                memcpy(d->held, work + i, d->nheld);
                return;
            }
            d->rank = (int)rank;
            d->kind = kind;
            i += mark_len;
            seg = i;
        } else if (work[i++] == '\n') {
            /* a piece ends at its newline: what no mark follows is mpirun's own */
            fn(ctx, d->rank, d->kind, work + seg, i - seg);
            seg = i;
            d->rank = -1;
            d->kind = 0;
        }
    }
    if (len > seg)
        fn(ctx, d->rank, d->kind, work + seg, len - seg);
}
