/*
 * libFuzzer target: the parsers of the environment (mm_config.c): every MESHMEM_* variable and
 * SHMEM_SYMMETRIC_SIZE through mm_config_load, and the size and topology parsers directly.
 * Input: values separated by newlines; value i goes to variable (first byte + i) of the table.
 * Invariants: a size parses to a value >= 0 that mm_format_size writes back to within a
 * twentieth; a topology is auto, fullmesh, ghc or KX, KY >= 1; nothing crashes or is undefined.
 */
#include "mm_config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the runtime's logger: errors of bad values are expected here, and quiet */
void mm_log(int level, const char *fmt, ...)
{
    (void)level, (void)fmt;
}

#define MM_FUZZ_NAME(name, field, kind, def, doc) "MESHMEM_" #name,
static const char *const names[] = {MM_CONFIG_TABLE(MM_FUZZ_NAME) "SHMEM_SYMMETRIC_SIZE"};
#define NNAMES (sizeof(names) / sizeof(names[0]))

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

static void check_parsers(const char *s)
{
    int64_t v, w;
    if (mm_parse_size(s, &v) == 0) {
        EXPECT(v >= 0);
        char buf[32];
        mm_format_size(buf, sizeof(buf), (uint64_t)v);
        EXPECT(mm_parse_size(buf, &w) == 0);
        EXPECT((double)w >= (double)v * 0.95 && (double)w <= (double)v * 1.05 + 1);
    }
    if (mm_parse_topology(s, &v) == 0)
        EXPECT(v == MM_TOPO_FULLMESH || v == MM_TOPO_GHC_AUTO || v == MM_TOPO_HOSTS ||
               ((v >> 32) >= 1 && (v & 0xffffffff) >= 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 4096)
        return 0;
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';
    check_parsers(s);
    size_t first = (unsigned char)s[0], i = 0;
    for (char *save = NULL, *v = strtok_r(s + 1, "\n", &save); v; v = strtok_r(NULL, "\n", &save))
        setenv(names[(first + i++) % NNAMES], v, 1);
    char why[256];
    if (mm_config_load(why, sizeof(why)) != 0)
        EXPECT(strstr(why, "is not a valid") != NULL);
    for (size_t k = 0; k < NNAMES; k++)
        unsetenv(names[k]);
    free(s);
    return 0;
}
