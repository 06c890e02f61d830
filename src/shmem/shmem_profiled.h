/**
 * @file shmem_profiled.h
 * @brief The OpenSHMEM profiling interface (1.5 Annex "Profiling Interface"): every routine is
 * also reachable by a shifted name, pshmem_put for shmem_put (pstart_pes for start_pes, and so
 * on), so that a tool can define shmem_put itself, count or time the call and pass it on to
 * pshmem_put.
 *
 * SHMEMI_PROFILED(NAME), placed after the definition of routine NAME, defines pNAME as a second
 * name of the same code and makes NAME weak. The shifted name is strong and the plain one weak so
 * that a tool's own NAME wins in both kinds of link: against libmeshmem.so the program's
 * definition interposes on the library's (the library's own calls stay inside it:
 * -Bsymbolic-functions), and against libmeshmem.a the library's weak NAME gives way instead of
 * clashing. tests/py/test_exports.py checks that every exported routine has its pNAME, and the
 * spec's own profiling example (tests/spec) that a wrapper sees the calls. The library is built
 * with hidden visibility: the second name is exported explicitly, as the headers export the first.
 */
#ifndef SHMEM_PROFILED_H
#define SHMEM_PROFILED_H

#define SHMEMI_STR_(x) #x
#define SHMEMI_STR(x)  SHMEMI_STR_(x)

/* the second name carries the first one's attributes (noreturn for shmem_global_exit) */
#if defined(__has_attribute)
#if __has_attribute(copy)
#define SHMEMI_COPY_ATTRS(NAME) , copy(NAME)
#endif
#endif
#ifndef SHMEMI_COPY_ATTRS
#define SHMEMI_COPY_ATTRS(NAME)
#endif

#define SHMEMI_PROFILED(NAME)                                                                      \
    _Pragma(SHMEMI_STR(weak NAME)) extern __typeof__(NAME) p##NAME                                 \
        __attribute__((alias(#NAME), visibility("default") SHMEMI_COPY_ATTRS(NAME)));

#endif /* SHMEM_PROFILED_H */
