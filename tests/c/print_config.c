/* Prints the configuration table (used by `meshmem info --config`). */
#include "meshmem.h"

#include <stdio.h>

int main(void)
{
    meshmem_config_print(stdout);
    return 0;
}
