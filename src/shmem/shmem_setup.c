/*
 * OpenSHMEM setup, exit and query routines (1.5 section 9.2), their deprecated names, and the
 * out-of-line error paths of the point-to-point layer (shmem_internal.h).
 */
#include "shmem_internal.h"

#include <stdarg.h>
#include <stdio.h>

void shmemi_ctx_fatal(const char *call, shmem_ctx_t ctx, int pe)
{
    MM_CHECK_INIT(call);
    if (ctx == SHMEM_CTX_INVALID)
        mm_fatal("%s: ctx argument is SHMEM_CTX_INVALID", call);
    if (!shmemi_ctx_readable(ctx) || ctx->team == NULL)
        mm_fatal("%s: ctx argument (%p) is not a context: never made by shmem_ctx_create or "
                 "shmem_team_create_ctx",
                 call, (void *)ctx);
    if (ctx->options == SHMEMI_CTX_DEAD)
        mm_fatal("%s: ctx argument (%p) is a context shmem_ctx_destroy destroyed already", call,
                 (void *)ctx);
    mm_fatal("%s: PE argument (%d) is invalid: the context's team has PEs 0..%d", call, pe,
             ctx->size - 1);
}

void shmemi_cmp_fatal(const char *call, int cmp)
{
    mm_fatal("%s: cmp argument (%d) is not one of SHMEM_CMP_EQ/NE/GT/LE/LT/GE", call, cmp);
}

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        mm_fatal("shmem_init_thread: requested argument (%d) is not a SHMEM_THREAD_* level",
                 requested);
    int status = meshmem_init(requested, provided);
    if (status == MESHMEM_OK)
        shmemi_ctx_default_init();
    return status;
}
SHMEMI_PROFILED(shmem_init_thread)

void shmem_init(void)
{
    shmem_init_thread(SHMEM_THREAD_SINGLE, NULL);
}
SHMEMI_PROFILED(shmem_init)

void shmem_query_thread(int *provided)
{
    MM_CHECK_INIT("shmem_query_thread");
    if (provided)
        *provided = meshmem_query_thread();
}
SHMEMI_PROFILED(shmem_query_thread)

void shmem_finalize(void)
{
    meshmem_finalize();
    shmemi_ctx_fini();
}
SHMEMI_PROFILED(shmem_finalize)

void shmem_global_exit(int status)
{
    meshmem_global_exit(status);
}
SHMEMI_PROFILED(shmem_global_exit)

int shmem_my_pe(void)
{
    MM_CHECK_INIT("shmem_my_pe");
    return mm_g.rank;
}
SHMEMI_PROFILED(shmem_my_pe)

int shmem_n_pes(void)
{
    MM_CHECK_INIT("shmem_n_pes");
    return mm_g.nranks;
}
SHMEMI_PROFILED(shmem_n_pes)

int shmem_pe_accessible(int pe)
{
    MM_CHECK_INIT("shmem_pe_accessible");
    return meshmem_rank_accessible(pe);
}
SHMEMI_PROFILED(shmem_pe_accessible)

int shmem_addr_accessible(const void *addr, int pe)
{
    MM_CHECK_INIT("shmem_addr_accessible");
    return meshmem_addr_accessible(addr, pe);
}
SHMEMI_PROFILED(shmem_addr_accessible)

void *shmem_ptr(const void *dest, int pe)
{
    MM_CHECK_INIT("shmem_ptr");
    return meshmem_ptr(dest, pe);
}
SHMEMI_PROFILED(shmem_ptr)

void shmem_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}
SHMEMI_PROFILED(shmem_info_get_version)

void shmem_info_get_name(char *name)
{
    if (name)
        snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}
SHMEMI_PROFILED(shmem_info_get_name)

void shmem_pcontrol(const int level, ...)
{
    (void)level;
}
SHMEMI_PROFILED(shmem_pcontrol)

/* ---- deprecated names (OpenSHMEM 1.5 Annex) ---- */

void start_pes(int npes)
{
    (void)npes; /* the job's size comes from meshrun */
    shmem_init();
}
SHMEMI_PROFILED(start_pes)

int _my_pe(void)
{
    return shmem_my_pe();
}
SHMEMI_PROFILED(_my_pe)

int _num_pes(void)
{
    return shmem_n_pes();
}
SHMEMI_PROFILED(_num_pes)

/* memory is cache coherent: nothing to invalidate or flush */
void shmem_clear_cache_inv(void)
{
}
void shmem_set_cache_inv(void)
{
}
void shmem_clear_cache_line_inv(void *dest)
{
    (void)dest;
}
void shmem_set_cache_line_inv(void *dest)
{
    (void)dest;
}
void shmem_udcflush(void)
{
}
void shmem_udcflush_line(void *dest)
{
    (void)dest;
}
SHMEMI_PROFILED(shmem_clear_cache_inv)
SHMEMI_PROFILED(shmem_set_cache_inv)
SHMEMI_PROFILED(shmem_clear_cache_line_inv)
SHMEMI_PROFILED(shmem_set_cache_line_inv)
SHMEMI_PROFILED(shmem_udcflush)
SHMEMI_PROFILED(shmem_udcflush_line)
