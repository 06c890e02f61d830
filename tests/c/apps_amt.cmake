# apps/amt: the 8-byte all-to-all (puts, active messages) and the message-driven kernel with its
# termination detection, on 1..8 ranks, each run checked by the program (every slot holds its
# message; the tasks run and their checksum equal the precomputed ones). Message counts that
# the peers do not divide, zero messages, zero tasks; -C must fail. Bad arguments:
# tests/py/test_amt.py.
mm_app_case(amt apps_amt_put RANKS 1 2 3 4 5 8 ARGS -v put -m 0,1,7,100,1001 -i 3)
mm_app_case(amt apps_amt_am RANKS 1 2 3 4 5 8 ARGS -v am -m 0,1,7,100,1001 -i 3)
mm_app_case(amt apps_amt_kernel RANKS 1 2 3 4 5 8 ARGS -v kernel -t 50 -d 8 -i 3)
mm_app_case(amt apps_amt_kernel_deep RANKS 3 ARGS -v kernel -t 3 -d 40 -i 2)
mm_app_case(amt apps_amt_kernel_empty RANKS 2 ARGS -v kernel -t 0 -i 2)
mm_app_case(amt apps_amt_put_corrupt WILL_FAIL RANKS 1 3 ARGS -v put -m 100 -i 1 -C)
mm_app_case(amt apps_amt_am_corrupt WILL_FAIL RANKS 3 ARGS -v am -m 100 -i 1 -C)
mm_app_case(amt apps_amt_kernel_corrupt WILL_FAIL RANKS 2 ARGS -v kernel -t 10 -i 1 -C)
