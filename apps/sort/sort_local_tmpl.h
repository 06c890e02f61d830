/*
 * Key-width template of sort_local.c: included once per key type with KEY_T and SFX defined
 * (the C11 way to write the pass once for uint32_t and uint64_t keys).
 */
#define SL_CAT2(a, b) a##b
#define SL_CAT(a, b)  SL_CAT2(a, b)
#define SL_FN(name)   SL_CAT(name, SFX)

void SL_FN(sl_classify)(const KEY_T *keys, const uint32_t *vals, size_t n, int shift, uint64_t mask,
                        const uint32_t *field, uint64_t *hist, KEY_T *dst_keys, uint32_t *dst_vals,
                        size_t cap, size_t *fill)
{
    if (vals) {
        for (size_t i = 0; i < n; i++) {
            KEY_T k = keys[i];
            uint64_t d = (uint64_t)(k >> shift) & mask;
            hist[d]++;
            size_t at = field[d] * cap + fill[field[d]]++;
            dst_keys[at] = k;
            dst_vals[at] = vals[i];
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            KEY_T k = keys[i];
            uint64_t d = (uint64_t)(k >> shift) & mask;
            hist[d]++;
            dst_keys[field[d] * cap + fill[field[d]]++] = k;
        }
    }
}

void SL_FN(sl_place)(const KEY_T *keys, const uint32_t *vals, size_t n, int shift, uint64_t mask,
                     const uint32_t *field, size_t *cursor, KEY_T *out_keys, uint32_t *out_vals)
{
    if (vals) {
        for (size_t i = 0; i < n; i++) {
            KEY_T k = keys[i];
            size_t at = cursor[field[(uint64_t)(k >> shift) & mask]]++;
            out_keys[at] = k;
            out_vals[at] = vals[i];
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            KEY_T k = keys[i];
            out_keys[cursor[field[(uint64_t)(k >> shift) & mask]]++] = k;
        }
    }
}

int SL_FN(sl_serial_radix)(KEY_T *keys, uint32_t *vals, KEY_T *tmp_keys, uint32_t *tmp_vals,
                           size_t n)
{
    enum { BITS = 11, RADIX = 1 << BITS, PASSES = (int)((sizeof(KEY_T) * 8 + BITS - 1) / BITS) };
    static size_t count[PASSES][RADIX];
    memset(count, 0, sizeof(count));
    for (size_t i = 0; i < n; i++) { /* every digit's histogram in one pass */
        KEY_T k = keys[i];
        for (int p = 0; p < PASSES; p++)
            count[p][(k >> (p * BITS)) & (RADIX - 1)]++;
    }
    KEY_T *sk = keys, *dk = tmp_keys;
    uint32_t *sv = vals, *dv = tmp_vals;
    int in_tmp = 0;
    for (int p = 0; p < PASSES; p++) {
        size_t *c = count[p], sum = 0;
        int trivial = 0;
        for (int d = 0; d < RADIX; d++) {
            if (c[d] == n)
                trivial = 1;
            size_t t = c[d];
            c[d] = sum;
            sum += t;
        }
        if (trivial || n == 0)
            continue; /* every key has the same digit: the pass would copy */
        int sh = p * BITS;
        if (sv) {
            for (size_t i = 0; i < n; i++) {
                size_t at = c[(sk[i] >> sh) & (RADIX - 1)]++;
                dk[at] = sk[i];
                dv[at] = sv[i];
            }
        } else {
            for (size_t i = 0; i < n; i++)
                dk[c[(sk[i] >> sh) & (RADIX - 1)]++] = sk[i];
        }
        KEY_T *tk = sk;
        sk = dk;
        dk = tk;
        uint32_t *tv = sv;
        sv = dv;
        dv = tv;
        in_tmp = !in_tmp;
    }
    return in_tmp;
}

#undef SL_FN
#undef SL_CAT
#undef SL_CAT2
