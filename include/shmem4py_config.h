/**
 * @file shmem4py_config.h
 * @brief What shmem4py (the OpenSHMEM bindings for Python) may use of meshmem's shmem.h.
 *
 * shmem4py recognises the OpenSHMEM implementations it knows by their private macros and
 * otherwise assumes an OpenSHMEM 1.4 without teams, signals or the 1.5 collectives, for which
 * it compiles fallbacks that clash with meshmem's declarations. This header says which
 * OpenSHMEM 1.5 features meshmem's shmem.h has (all that shmem4py asks about). Pre-include it
 * when building shmem4py:
 *
 *     OSHCC="meshcc -include shmem4py_config.h" pip install shmem4py
 *
 * (shmem4py adds the words after the compiler in OSHCC to its compile command).
 */
#ifndef MESHMEM_SHMEM4PY_CONFIG_H
#define MESHMEM_SHMEM4PY_CONFIG_H

#define PySHMEM_HAVE_shmem_malloc_with_hints 1
#define PySHMEM_HAVE_shmem_team_t            1
#define PySHMEM_HAVE_SHMEM_CTX_INVALID       1
#define PySHMEM_HAVE_shmem_amo_nbi           1
#define PySHMEM_HAVE_shmem_put_signal        1
#define PySHMEM_HAVE_shmem_signal_fetch      1
#define PySHMEM_HAVE_shmem_signal_wait_until 1
#define PySHMEM_HAVE_shmem_broadcast         1
#define PySHMEM_HAVE_shmem_collect           1
#define PySHMEM_HAVE_shmem_fcollect          1
#define PySHMEM_HAVE_shmem_alltoall          1
#define PySHMEM_HAVE_shmem_alltoalls         1
#define PySHMEM_HAVE_shmem_broadcastmem      1
#define PySHMEM_HAVE_shmem_collectmem        1
#define PySHMEM_HAVE_shmem_fcollectmem       1
#define PySHMEM_HAVE_shmem_alltoallmem       1
#define PySHMEM_HAVE_shmem_alltoallsmem      1
#define PySHMEM_HAVE_shmem_reduce            1
#define PySHMEM_HAVE_shmem_wait_test_many    1
#define PySHMEM_HAVE_shmem_pcontrol          1

#endif /* MESHMEM_SHMEM4PY_CONFIG_H */
