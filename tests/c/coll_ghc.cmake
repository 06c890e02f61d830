# GHC (r = 2) topology: every collective per dimension against serial references, the full mesh
# and the reference symmetric collectives (coll_ghc.c)
foreach(part shapes sym concurrent errors)
  mm_rank_test(coll_ghc_${part} SOURCES coll_ghc.c coll_reference.c RANKS 1 2 3 4 5 6 8 ARGS ${part} TIMEOUT 300
               LABELS coll INTERNAL) # the mm_ref_* references are internal
endforeach()

# a test run with MESHMEM_TOPOLOGY in its environment: NAME TOPOLOGY RANKS PROGRAM ARGS...
function(mm_ghc_env_test name topo ranks prog)
  add_test(NAME ${name}
           COMMAND ${MESHRUN} -n ${ranks} --heap ${MESHMEM_TEST_HEAP} --timeout 300
                   $<TARGET_FILE:${prog}> ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "MESHMEM_TOPOLOGY=${topo}"
                       LABELS "sanitize;coll" TIMEOUT 300 PROCESSORS 1)
endfunction()

# the world team on a GHC through the environment: its shape, then every collective on it
foreach(shape "8;4;2" "8;2;4" "8;1;8" "8;8;1" "4;2;2" "6;3;2" "2;2;1")
  list(GET shape 0 n)
  list(GET shape 1 kx)
  list(GET shape 2 ky)
  mm_ghc_env_test(coll_ghc_env_${kx}x${ky} ghc:${kx}x${ky} ${n} coll_ghc_shapes env ${kx} ${ky})
endforeach()
mm_ghc_env_test(coll_ghc_env_auto8 ghc 8 coll_ghc_shapes env 4 2)
mm_ghc_env_test(coll_ghc_env_auto5 ghc 5 coll_ghc_shapes env 5 1)

# the existing collective suites, unchanged, with the world team on a GHC
foreach(n 4 8)
  foreach(part rooted gather v reduce teams mix)
    mm_ghc_env_test(coll_mpi_${part}_ghc.n${n} ghc ${n} coll_mpi_${part} ${part})
  endforeach()
  foreach(t types teams aset random)
    mm_ghc_env_test(shmem_coll_${t}_ghc.n${n} ghc ${n} shmem_coll_${t})
  endforeach()
endforeach()
mm_ghc_env_test(coll_mpi_mix_ghc2x4.n8 ghc:2x4 8 coll_mpi_mix mix)
mm_ghc_env_test(shmem_coll_random_ghc1x8.n8 ghc:1x8 8 shmem_coll_random)

# a shape that does not factor the job, and a malformed one: a clear error, no hang
mm_ghc_env_test(coll_ghc_env_bad_shape ghc:3x3 8 coll_ghc_shapes env 3 3)
set_tests_properties(coll_ghc_env_bad_shape PROPERTIES TIMEOUT 30
  PASS_REGULAR_EXPRESSION "MESHMEM_TOPOLOGY=ghc:3x3: a GHC of 3 x 3 does not factor the team's 8 ranks")
mm_ghc_env_test(coll_ghc_env_bad_text ghc:4by2 2 coll_ghc_shapes env 4 2)
set_tests_properties(coll_ghc_env_bad_text PROPERTIES TIMEOUT 30
  PASS_REGULAR_EXPRESSION "MESHMEM_TOPOLOGY=\"ghc:4by2\" is not a valid topology")
