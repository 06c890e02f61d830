# The soak test: RMA, AMOs, collectives and active messages at once, every value checked, for
# 10 s in `make test` (a bound of seconds keeps CI short); longer by hand:
#   build/bin/meshrun -n 8 build/tests/soak 3600
mm_rank_test(soak SOURCES soak.c RANKS 4 ARGS 10 TIMEOUT 120 LABELS soak)
set_tests_properties(soak.n4 PROPERTIES PASS_REGULAR_EXPRESSION "soak: 4 PEs, [0-9]+ rounds, .* 0 mismatches")
