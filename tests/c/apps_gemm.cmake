# apps/gemm: the distributed GEMM at small sizes, each run checked by the program itself
# against the one-rank product of the same rows and columns (relative 1e-12). Shapes the ranks
# and the chunk do not divide, more ranks than rows or than K (ranks with nothing to do),
# SUMMA panels of every width; -C must fail. Bad arguments: tests/py/test_gemm.py.
if(NOT TARGET gemm) # OpenBLAS missing
  return()
endif()
mm_app_case(gemm apps_gemm_stream RANKS 1 2 3 4 5 8 ARGS -v stream -N 67x45x31 -b 7 -i 2)
mm_app_case(gemm apps_gemm_stream_whole RANKS 3 ARGS -v stream -N 50 -b 100 -i 2)
mm_app_case(gemm apps_gemm_stream_tiny RANKS 8 ARGS -v stream -N 5x10x3 -b 1 -i 2)
mm_app_case(gemm apps_gemm_summa RANKS 1 2 3 4 5 8 ARGS -v summa -N 67x45x31 -i 2)
mm_app_case(gemm apps_gemm_summa_panels RANKS 4 6 ARGS -v summa -N 33x29x41 -k 5 -i 2)
mm_app_case(gemm apps_gemm_summa_tiny RANKS 8 ARGS -v summa -N 3x5x2 -i 2)
mm_app_case(gemm apps_gemm_serial RANKS 1 ARGS -v serial -N 67x45x31 -i 2)
mm_app_case(gemm apps_gemm_stream_corrupt WILL_FAIL RANKS 1 3 ARGS -v stream -N 40 -i 1 -C)
mm_app_case(gemm apps_gemm_summa_corrupt WILL_FAIL RANKS 4 ARGS -v summa -N 40 -i 1 -C)
mm_app_hosts_case(gemm apps_gemm_stream ARGS -v stream -N 67x45x31 -b 7 -i 2)
mm_app_hosts_case(gemm apps_gemm_summa ARGS -v summa -N 67x45x31 -k 8 -i 2)
