/*
 * meshrun --tag-output across hosts: mpirun's marks "[JOB,RANK]<stdout>:" become "[RANK] "
 * (meshrun_retag.h).
 */
#include "meshrun_retag.h"

#include <stdio.h>
#include <string.h>

enum { MARK_NO = 0, MARK_YES = 1, MARK_CUT = -1 };

/* Does a mark start at @p p (@p len bytes available)? MARK_YES with its rank and length,
 * MARK_NO, or MARK_CUT when the bytes so far fit a mark that goes on past them. */
static int mark_at(const char *p, size_t len, long *rank, size_t *mark_len)
{
    static const char *const kinds[] = {"<stdout>:", "<stderr>:"};
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
        *mark_len = i + klen;
        return MARK_YES;
    }
    return MARK_NO;
}

size_t meshrun_retag(meshrun_retag_t *t, const char *in, size_t n, char *out)
{
    /* the held bytes and the new ones, scanned as one; a rewritten mark is shorter than
     * mpirun's, so @p out never holds more than they */
    char work[MESHRUN_RETAG_HELD + MESHRUN_RETAG_CHUNK];
    memcpy(work, t->held, t->nheld);
    memcpy(work + t->nheld, in, n);
    size_t len = t->nheld + n, done = 0;
    t->nheld = 0;
    for (size_t i = 0; i < len;) {
        long rank = 0;
        size_t mark_len = 0;
        int m = work[i] == '[' ? mark_at(work + i, len - i, &rank, &mark_len) : MARK_NO;
        if (m == MARK_YES) {
            done += (size_t)sprintf(out + done, "[%ld] ", rank);
            i += mark_len;
        } else if (m == MARK_CUT && n > 0) {
            t->nheld = len - i; /* less than a mark: it fits */
            memcpy(t->held, work + i, t->nheld);
            break;
        } else {
            out[done++] = work[i++];
        }
    }
    return done;
}
