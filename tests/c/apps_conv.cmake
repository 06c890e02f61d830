# apps/conv: the distributed convolution at small shapes, each run checked by the program
# itself against the one-rank forward pass (relative 1e-5 in single, 1e-12 in double). Maps
# the blocks do not divide, chained layers (the next layer's blocks waiting only for the rows
# they read), even kernels (padding after the map), kernels wider than the maps, more ranks
# than kernels (ranks with nothing to compute), one-row blocks under a 7 x 7 kernel; -C must
# fail. Bad arguments: tests/py/test_conv.py.
if(NOT TARGET conv) # OpenBLAS missing
  return()
endif()
mm_app_case(conv apps_conv_stream RANKS 1 2 3 4 5 8 ARGS -m 13x11 -k 12x3x3x12 -l 3 -b 3 -i 2)
mm_app_case(conv apps_conv_double RANKS 1 3 ARGS -m 9 -k 7x5x5x7 -l 2 -b 2 -p double -i 2)
mm_app_case(conv apps_conv_even RANKS 2 5 ARGS -m 10x7 -k 5x4x2x5 -l 2 -b 4 -i 2)
mm_app_case(conv apps_conv_wide RANKS 3 ARGS -m 3x5 -k 4x7x7x4 -l 2 -b 1 -i 2)
mm_app_case(conv apps_conv_rows1 RANKS 2 4 ARGS -m 12 -k 6x7x7x6 -l 3 -b 1 -i 2)
mm_app_case(conv apps_conv_fewkernels RANKS 8 ARGS -m 6 -k 3x3x3x3 -l 3 -b 2 -i 2)
mm_app_case(conv apps_conv_oneblock RANKS 2 ARGS -m 9x17 -k 16x3x3x5 -b 100 -i 2)
mm_app_case(conv apps_conv_serial RANKS 1 ARGS -v serial -m 13x11 -k 12x3x3x12 -l 3 -b 3 -i 2)
mm_app_case(conv apps_conv_corrupt WILL_FAIL RANKS 1 3 ARGS -m 8 -k 4x3x3x4 -l 2 -i 1 -C)
mm_app_hosts_case(conv apps_conv_stream ARGS -m 13x11 -k 12x3x3x12 -l 3 -b 3 -i 2)
