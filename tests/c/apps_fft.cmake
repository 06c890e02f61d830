# apps/fft: the distributed 3-D FFT at small sizes, each run checked by the program itself
# against serial FFTW (relative L2 error <= 1e-10 in double, 1e-5 in float) and by the round
# trip. Odd sizes, sizes the ranks do not divide, fewer planes than ranks (ranks with nothing),
# every chunking; -C damages the result and must fail. Bad arguments: tests/py/test_fft.py.
if(NOT TARGET fft) # FFTW missing
  return()
endif()
mm_app_case(fft apps_fft_slab RANKS 1 2 3 4 5 8 ARGS -v slab -N 12x10x7 -i 2 -f estimate)
mm_app_case(fft apps_fft_slab_float RANKS 1 3 8 ARGS -v slab -N 9x16x5 -p float -i 2 -f estimate)
mm_app_case(fft apps_fft_slab_chunk3 RANKS 2 3 ARGS -v slab -N 13x11x6 -k 3 -i 3 -f estimate)
mm_app_case(fft apps_fft_slab_bulk RANKS 2 5 ARGS -v slab -N 13x11x6 -k 0 -i 2 -f estimate)
mm_app_case(fft apps_fft_slab_measure RANKS 2 ARGS -v slab -N 16 -i 3)
mm_app_case(fft apps_fft_slab_few_planes RANKS 5 8 ARGS -v slab -N 3x4x5 -i 2 -f estimate)
mm_app_case(fft apps_fft_slab_line RANKS 3 ARGS -v slab -N 1x1x9 -i 2 -f estimate)
mm_app_case(fft apps_fft_pencil RANKS 1 2 3 4 5 8 ARGS -v pencil -N 12x10x7 -i 2 -f estimate)
mm_app_case(fft apps_fft_pencil_float RANKS 4 6 ARGS -v pencil -N 10x9x8 -p float -i 2 -f estimate)
mm_app_case(fft apps_fft_pencil_2x4 RANKS 8 ARGS -v pencil -g 4 -N 11x7x13 -k 2 -i 3 -f estimate)
mm_app_case(fft apps_fft_pencil_thin RANKS 8 ARGS -v pencil -g 4 -N 5x6x3 -i 2 -f estimate)
mm_app_case(fft apps_fft_serial RANKS 1 ARGS -v serial -N 12x10x7 -i 2)
mm_app_case(fft apps_fft_slab_corrupt WILL_FAIL RANKS 1 3 ARGS -v slab -N 8 -i 1 -f estimate -C)
mm_app_case(fft apps_fft_pencil_corrupt WILL_FAIL RANKS 4 ARGS -v pencil -N 8 -i 1 -f estimate -C)
mm_app_case(fft apps_fft_serial_corrupt WILL_FAIL RANKS 1 ARGS -v serial -N 8 -i 1 -f estimate -C)
