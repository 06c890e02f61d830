# The case-study apps (apps/sort, apps/average) at small sizes: every variant on 1..8 ranks and
# their edge cases (all keys equal, sorted, skewed, zero records, a single key type), each
# checked by the app's own verifier (exit status 0 only when the output is a sorted, stable
# permutation of the input, or the mean is within tolerance). The -C cases damage the output on
# purpose and must fail: the verifiers can fail.
#
# mm_rank_test builds each app's test executable (from the app's own main) and its default
# cases; mm_app_case adds more cases of the same executable with the same launch line.
set(MM_APP_HEAP 256M)

function(mm_app_case exe name)
  cmake_parse_arguments(T "WILL_FAIL" "" "RANKS;ARGS" ${ARGN})
  foreach(n ${T_RANKS})
    add_test(NAME ${name}.n${n}
             COMMAND ${MESHRUN} -n ${n} --heap ${MM_APP_HEAP} --timeout 120
                     $<TARGET_FILE:${exe}> ${T_ARGS})
    set_tests_properties(${name}.n${n} PROPERTIES LABELS "apps" TIMEOUT 120 PROCESSORS 1)
    if(T_WILL_FAIL)
      set_tests_properties(${name}.n${n} PROPERTIES WILL_FAIL TRUE)
    endif()
  endforeach()
endfunction()

# --- sort: records not divisible by any rank count, two timed runs, uniform keys -------------
mm_rank_test(apps_sort SOURCES ../../apps/sort/sort_main.c RANKS 1 2 3 4 5 8 HEAP ${MM_APP_HEAP}
             LABELS apps ARGS -v a1 -n 10007 -i 2)
target_link_libraries(apps_sort PRIVATE mm_sort_engine mm_app_harness)
set(SORT_RANKS 1 2 3 4 5 6 7 8)
mm_app_case(apps_sort apps_sort_a11 RANKS ${SORT_RANKS} ARGS -v a11 -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_a6 RANKS ${SORT_RANKS} ARGS -v a6 -k -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_a3 RANKS ${SORT_RANKS} ARGS -v a3 -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_a2 RANKS ${SORT_RANKS} ARGS -v a2 -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_a1 RANKS 6 7 ARGS -v a1 -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_a1_keys RANKS 1 3 8 ARGS -v a1 -k -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_a3_keys RANKS 1 3 8 ARGS -v a3 -k -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_ghc RANKS ${SORT_RANKS} ARGS -v ghc -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_ghc_2x4 RANKS 8 ARGS -v ghc -g 2 -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_radix32 RANKS 1 2 3 4 5 8 ARGS -v radix -b 32 -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_radix64 RANKS 1 2 3 4 5 8 ARGS -v radix -b 64 -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_radix32_keys RANKS 3 ARGS -v radix -b 32 -k -n 10007 -i 2)
mm_app_case(apps_sort apps_sort_radix64_skew RANKS 4 ARGS -v radix -b 64 -d skew -c 4 -n 10007)
mm_app_case(apps_sort apps_sort_serial RANKS 1 ARGS -v serial -n 10007 -K 100)
mm_app_case(apps_sort apps_sort_serial_keys RANKS 1 ARGS -v serial -k -n 10007 -K 100)
mm_app_case(apps_sort apps_sort_serial_radix RANKS 1 ARGS -v serial -b 64 -n 10007 -d skew)
# K = 1 (a single key type) and K = every channel (ranks x channels with small channels)
foreach(v a11 a3 a2 a1 ghc)
  mm_app_case(apps_sort apps_sort_${v}_K1 RANKS 1 3 4 ARGS -v ${v} -K 1 -n 5003)
  mm_app_case(apps_sort apps_sort_${v}_Kmax RANKS 3 4 ARGS -v ${v} -c 3 -n 5003)
endforeach()
# all keys equal, already sorted, reverse sorted, skewed, everything to one rank, zero records
foreach(v a11 a3 a2 a1 ghc radix)
  set(b "")
  if(v STREQUAL "radix")
    set(b -b 32)
  endif()
  mm_app_case(apps_sort apps_sort_${v}_equal RANKS 3 4 ARGS -v ${v} ${b} -d equal -n 5003)
  mm_app_case(apps_sort apps_sort_${v}_sorted RANKS 3 ARGS -v ${v} ${b} -d sorted -n 5003)
  mm_app_case(apps_sort apps_sort_${v}_reverse RANKS 3 ARGS -v ${v} ${b} -d reverse -n 5003)
  mm_app_case(apps_sort apps_sort_${v}_skew RANKS 4 ARGS -v ${v} ${b} -d skew -n 5003)
  mm_app_case(apps_sort apps_sort_${v}_top RANKS 2 5 ARGS -v ${v} ${b} -d top -n 5003)
  mm_app_case(apps_sort apps_sort_${v}_zero RANKS 1 3 ARGS -v ${v} ${b} -n 0)
  mm_app_case(apps_sort apps_sort_${v}_tiny RANKS 5 ARGS -v ${v} ${b} -n 3)
endforeach()
mm_app_case(apps_sort apps_sort_a6_equal RANKS 3 ARGS -v a6 -k -d equal -n 5003)
mm_app_case(apps_sort apps_sort_a6_zero RANKS 3 ARGS -v a6 -k -n 0)
# the verifier must reject damaged output
foreach(v a11 a3 a1 radix)
  set(b "")
  if(v STREQUAL "radix")
    set(b -b 64)
  endif()
  mm_app_case(apps_sort apps_sort_${v}_corrupt WILL_FAIL RANKS 1 3 ARGS -v ${v} ${b} -n 5003 -C)
endforeach()
mm_app_case(apps_sort apps_sort_equal_corrupt WILL_FAIL RANKS 2 ARGS -v a1 -d equal -n 5003 -C)

# --- average: naive and aggressive, full mesh and GHC, several sizes (padding included) -------
mm_rank_test(apps_average SOURCES ../../apps/average/average_main.c ../../apps/average/average.c
             RANKS 1 2 3 4 5 8 LABELS apps ARGS -a aggressive -S 4,100,1K,64K -i 20 -I 5)
target_link_libraries(apps_average PRIVATE mm_app_harness m)
mm_app_case(apps_average apps_average_naive RANKS 1 2 3 4 5 6 7 8
            ARGS -a naive -S 4,100,1K,64K -i 20 -I 5)
mm_app_case(apps_average apps_average_aggr RANKS 6 7 ARGS -a aggressive -S 4,100,1K -i 20)
mm_app_case(apps_average apps_average_ghc_naive RANKS 4 6 8 ARGS -a naive -g 2 -S 4,100,1K,64K -i 20 -I 5)
mm_app_case(apps_average apps_average_ghc_aggr RANKS 4 6 8 ARGS -a aggressive -g 2 -S 4,100,1K,64K -i 20 -I 5)
mm_app_case(apps_average apps_average_ghc_4x2 RANKS 8 ARGS -a aggressive -g 4 -S 100,64K -i 20 -I 5)
mm_app_case(apps_average apps_average_corrupt WILL_FAIL RANKS 1 3 ARGS -a aggressive -S 1K -i 5 -C)
# the aggressive approach's one-step form (vectors up to -T x ranks/2 bytes, -T 2 KiB by
# default): empty, one element, odd counts, and both sides of the threshold at 2, 4 and 8
# ranks; -T 0 never takes it
mm_app_case(apps_average apps_average_onestep RANKS 1 2 3 4 5 6 7 8
            ARGS -a aggressive -S 0,4,12,100,1K,2044,2K,2052,4K,4100,8K,8196 -i 5)
mm_app_case(apps_average apps_average_threshold RANKS 2 3 8
            ARGS -a aggressive -T 1K -S 4,1020,1K,1028,1536,1540,4K,4100 -i 5)
mm_app_case(apps_average apps_average_sliced_small RANKS 1 2 3 8
            ARGS -a aggressive -T 0 -S 0,4,12,100,1K -i 5)
mm_app_case(apps_average apps_average_naive_small RANKS 2 3 8 ARGS -a naive -S 0,4,12 -i 5)
mm_app_case(apps_average apps_average_ghc_onestep RANKS 4 6 8
            ARGS -a aggressive -g 2 -S 0,4,12,2K,2052 -i 5)
# fresh input and a check after every run, no barrier in between, naive and aggressive in
# turn (one-step and sliced forms following each other): the buffers' reuse is safe
mm_app_case(apps_average apps_average_reuse RANKS 1 2 3 4 5 8
            ARGS -a alternate -V -S 0,4,12,1K,2K,2052,64K -i 12 -I 4)
mm_app_case(apps_average apps_average_reuse_ghc RANKS 4 6 8
            ARGS -a alternate -V -g 2 -S 4,100,1K,2052,64K -i 12 -I 4)
mm_app_case(apps_average apps_average_reuse_aggr RANKS 2 3 8
            ARGS -a aggressive -V -S 4,1K,2052 -i 12)

# --- between hosts on this machine (2 hosts of 2 ranks, UCX over TCP; tests/CMakeLists.txt):
# every streaming variant of the sort stages and puts to the other host (A=1 and radix: a
# flush per destination into the source's slice there), the average's sliced forms read the
# other host's members by get and its one-step form pushes to them (put with signal)
function(mm_app_hosts_case exe name)
  cmake_parse_arguments(T "" "" "ARGS" ${ARGN})
  add_test(NAME ${name}.hosts2x2
           COMMAND ${MESHRUN} -n 4 --heap ${MM_APP_HEAP} --timeout 600 $<TARGET_FILE:${exe}> ${T_ARGS})
  set_tests_properties(${name}.hosts2x2 PROPERTIES LABELS "apps;net" TIMEOUT 600 PROCESSORS 1
                       ENVIRONMENT "MESHMEM_HOST_RANKS=2;UCX_TLS=tcp,self")
endfunction()
mm_app_hosts_case(apps_sort apps_sort_a1 ARGS -v a1 -n 100007 -i 1)
mm_app_hosts_case(apps_sort apps_sort_a2 ARGS -v a2 -k -n 100007 -i 1)
mm_app_hosts_case(apps_sort apps_sort_radix ARGS -v radix -b 64 -n 100007 -i 1)
# a pass's input is not the rank's share (skewed digits): the slices follow each pass's input
mm_app_hosts_case(apps_sort apps_sort_radix_skew ARGS -v radix -b 32 -d skew -c 4 -n 20011 -i 2)
mm_app_hosts_case(apps_sort apps_sort_a1_keys ARGS -v a1 -k -d top -n 20011 -i 2)
mm_app_hosts_case(apps_sort apps_sort_a11 ARGS -v a11 -n 100007 -i 1)
mm_app_hosts_case(apps_sort apps_sort_ghc ARGS -v ghc -n 100007 -i 1)
mm_app_hosts_case(apps_average apps_average_naive ARGS -a naive -S 4,1K,33K -i 3)
mm_app_hosts_case(apps_average apps_average_aggr ARGS -a aggressive -S 0,4,1K,4K,33K -i 3)
mm_app_hosts_case(apps_average apps_average_ghc ARGS -a aggressive -g 2 -S 4,1K,33K -i 3)
# fresh input and a check after every run, no barrier in between: the pushes' inbox slots are
# rewritten only once their reader is done with them
mm_app_hosts_case(apps_average apps_average_reuse ARGS -a alternate -V -S 0,4,12,1K,2K,2052,64K
                  -i 12 -I 4)
mm_app_hosts_case(apps_average apps_average_reuse_ghc ARGS -a alternate -V -g 2 -S 4,1K,2052
                  -i 12 -I 4)
