# apps/shallow: the shallow-water simulation at small sizes, each run checked by the program
# itself: every owned u, v, p bitwise equal to the serial run's, the mass conserved to 1e-12;
# with -E (the exchange alone) every halo cell equal to its neighbour's value. Grids the ranks
# do not divide (37x29), 1-D and 2-D blocks, blocks as thin as the halo (2 rows), a rank grid
# of one row or column (its own neighbour across the periodic boundary); -C must fail. Bad
# arguments: tests/py/test_shallow.py.
foreach(v buffered streaming)
  mm_app_case(shallow apps_shallow_${v}_1d RANKS 1 2 3 4 5 8 ARGS -v ${v} -d 1 -N 37x29 -t 12 -i 2)
  mm_app_case(shallow apps_shallow_${v}_2d RANKS 1 2 3 4 5 8 ARGS -v ${v} -d 2 -N 37x29 -t 12 -i 2)
  mm_app_case(shallow apps_shallow_${v}_exchange RANKS 1 2 3 5 8 ARGS -v ${v} -d 2 -N 23x19 -t 6 -i 2 -E)
  mm_app_case(shallow apps_shallow_${v}_thin RANKS 8 ARGS -v ${v} -d 1 -N 9x19 -t 8 -i 2)
  mm_app_case(shallow apps_shallow_${v}_row_of_ranks RANKS 3 ARGS -v ${v} -d 2 -g 3 -N 7x5 -t 8 -i 2)
  mm_app_case(shallow apps_shallow_${v}_2x4 RANKS 8 ARGS -v ${v} -d 2 -g 2 -N 20x21 -t 8 -i 2)
  mm_app_case(shallow apps_shallow_${v}_corrupt WILL_FAIL RANKS 1 3 ARGS -v ${v} -N 16x16 -t 4 -i 1 -C)
  mm_app_case(shallow apps_shallow_${v}_exchange_corrupt WILL_FAIL RANKS 4 ARGS -v ${v} -d 2 -N 16x16 -t 4 -i 1 -E -C)
  mm_app_hosts_case(shallow apps_shallow_${v}_2d ARGS -v ${v} -d 2 -N 21x17 -t 6 -i 2)
  mm_app_hosts_case(shallow apps_shallow_${v}_1d ARGS -v ${v} -d 1 -N 21x17 -t 6 -i 2)
endforeach()
