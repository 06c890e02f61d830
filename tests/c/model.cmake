# The programs of the virtual-clock tests (tests/py/test_fabric_run.py runs them under
# meshrun --fabric with answers worked by hand). Here they run without a fabric: each checks
# its own results.
mm_rank_test(model_prog SOURCES model_prog.c RANKS 1 2 4 ARGS all)
