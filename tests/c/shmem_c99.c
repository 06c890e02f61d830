/*
 * A program written for C99 (built with -std=c99: no C11 generic routines): the deprecated C
 * forms that 1.5 keeps for it, shmem_wait_until and shmem_wait on long, are functions it links
 * with. (In C11 the same names are the generic macros.)
 */
#include "shmem_test.h"

static long ready, go;

int main(void)
{
    shmem_init();
    test_neighbours();
    shmem_long_p(&ready, 7, right);
    shmem_wait_until(&ready, SHMEM_CMP_EQ, 7);
    shmem_long_p(&go, 1, left);
    shmem_wait(&go, 0); /* while go == 0 */
    EXPECT(ready == 7 && go == 1, "C99 wait forms");
    shmem_finalize();
    return 0;
}
