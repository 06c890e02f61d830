mm_rank_test(test_core SOURCES test_core.c RANKS 1 2 3 4 5 8)
