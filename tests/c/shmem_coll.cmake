# OpenSHMEM teams and collectives (src/shmem/shmem_team.c, shmem_coll*.c)
mm_rank_test(shmem_coll_types SOURCES shmem_coll_types.c RANKS 1 2 3 4 5 8 LABELS coll)
mm_rank_test(shmem_coll_teams SOURCES shmem_coll_teams.c RANKS 1 2 3 4 5 8 LABELS coll)
mm_rank_test(shmem_coll_aset SOURCES shmem_coll_aset.c RANKS 1 2 3 4 5 8 LABELS coll)
mm_rank_test(shmem_coll_random SOURCES shmem_coll_random.c RANKS 1 2 3 4 5 8 LABELS coll)

# misuse ends the job with one line naming the routine and the argument: MODE|expected output
mm_rank_test(shmem_coll_errors SOURCES shmem_coll_errors.c RANKS)
set(SHMEM_COLL_ERRORS
    "root|shmem_int_broadcast: PE_root argument [(]2[)]"
    "nreduce|shmem_int_sum_reduce: nreduce argument .* is negative or too large"
    "dest|shmem_int_fcollect: dest argument .* is not in symmetric memory"
    "team|shmem_long_max_reduce: team argument is SHMEM_TEAM_INVALID"
    "stride|shmem_int_alltoalls: dst argument [(]0[)] must be at least 1"
    "aset|shmem_broadcast32: PE_size argument [(]3[)]")
foreach(err IN LISTS SHMEM_COLL_ERRORS)
  string(FIND "${err}" "|" bar)
  string(SUBSTRING "${err}" 0 ${bar} mode)
  math(EXPR bar "${bar} + 1")
  string(SUBSTRING "${err}" ${bar} -1 expect)
  add_test(NAME shmem_coll_err_${mode}
           COMMAND ${MESHRUN} -n 2 --heap ${MESHMEM_TEST_HEAP} --timeout 20
                   $<TARGET_FILE:shmem_coll_errors> ${mode})
  set_tests_properties(shmem_coll_err_${mode} PROPERTIES LABELS "sanitize;coll" TIMEOUT 20
                       PASS_REGULAR_EXPRESSION "${expect}")
endforeach()
