/**
 * @file meshrun_retag.h
 * @brief meshrun --tag-output across hosts: mpirun's marks turned into meshrun's.
 *
 * Under mpirun --tag-output every piece of a rank's output starts with "[JOB,RANK]<stdout>:"
 * (or "<stderr>:"); on one machine meshrun marks a line "[RANK] " (meshrun_output.h). The
 * stream from mpirun is rewritten mark by mark, so that a job's output reads the same across
 * hosts. mpirun marks pieces, not lines: a line that a rank writes in pieces may be cut by
 * another rank's output, each piece marked (on one machine meshrun keeps lines whole).
 */
#ifndef MESHRUN_RETAG_H
#define MESHRUN_RETAG_H

#include <stddef.h>

/** The longest mark mpirun writes ("[J,R]<stderr>:" with two 10-digit numbers), with room. */
#define MESHRUN_RETAG_HELD 48
/** The most bytes one call rewrites. */
#define MESHRUN_RETAG_CHUNK 4096

/** One stream's state: the start of a mark cut off by the end of the last read. */
typedef struct {
    char   held[MESHRUN_RETAG_HELD];
    size_t nheld;
} meshrun_retag_t;

/**
 * @brief Rewrite the @p n bytes at @p in (at most MESHRUN_RETAG_CHUNK) into @p out (room for
 * @p n + MESHRUN_RETAG_HELD bytes): every mark "[J,R]<stdout>:" or "[J,R]<stderr>:" becomes
 * "[R] "; what may be the start of a mark at the end is held back for the next call. @p n 0
 * marks the end of the stream: what was held back is written as it is.
 * @return the bytes written to @p out.
 */
size_t meshrun_retag(meshrun_retag_t *t, const char *in, size_t n, char *out);

#endif /* MESHRUN_RETAG_H */
