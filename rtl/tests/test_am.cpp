// meshmem's one-sided extension (mm_am): put, get, atomics, put-with-signal, acknowledgements
// counted by QUIET, at any byte alignment at either end, against the scoreboard.
//   test_am CONFIG [OVERRIDES]
#include "rtltest.hpp"

using namespace rt;

namespace
{

constexpr uint64_t A = 0x100000, B = 0x300000, CNT = 0x20000;

void put(Sys &t, int from, int to, uint64_t src, uint64_t dst, uint64_t len, uint32_t id,
         uint8_t flags = 0)
{
    mm_rtl_desc d = desc(MM_RTL_OP_PUT, (uint16_t)to, id);
    d.src = src;
    d.dst = dst;
    d.len = len;
    d.flags = flags;
    t.submit(from, d);
    t.move(from, src, to, dst, len);
}

uint64_t rd64(Sys &t, int node, uint64_t a)
{
    uint64_t v;
    std::memcpy(&v, t.mem(node) + a, 8);
    return v;
}

} // namespace

int main(int argc, char **argv)
{
    CHECK(argc >= 2, "usage: test_am CONFIG [OVERRIDES]");
    Sys t(argv[1], argc > 2 ? argv[2] : "");
    const int n = t.n;
    uint64_t seed = 7;
    // puts of every alignment and a few sizes, each node to the next
    uint32_t id = 1;
    for (uint64_t len : {1ull, 7ull, 31ull, 32ull, 33ull, 100ull, 1000ull, 5000ull})
        for (uint64_t so : {0ull, 3ull, 31ull})
            for (uint64_t dof : {0ull, 5ull, 17ull}) {
                for (int i = 0; i < n; i++) {
                    const uint64_t src = A + so, dst = B + dof + 0x4000 * (uint64_t)i;
                    t.fill(i, src, len, rng(seed));
                    put(t, i, (i + 1) % n, src, dst, len, id++);
                }
                t.run();
                char w[64];
                std::snprintf(w, sizeof w, "put %llu B, offsets %llu/%llu", (unsigned long long)len,
                              (unsigned long long)so, (unsigned long long)dof);
                t.verify(w);
            }
    std::printf("puts ok\n");
    // gets: each node reads from the previous one
    for (uint64_t len : {1ull, 45ull, 64ull, 3000ull}) {
        for (int i = 0; i < n; i++) {
            const int from = (i + n - 1) % n;
            t.fill(from, A + 9 + 0x8000 * (uint64_t)i, len, rng(seed));
            mm_rtl_desc d = desc(MM_RTL_OP_GET, (uint16_t)from, id++);
            d.src = A + 9 + 0x8000 * (uint64_t)i;
            d.dst = B + 0x1000 * (uint64_t)i + 3;
            d.len = len;
            t.submit(i, d);
            t.move(from, d.src, i, d.dst, len);
        }
        t.run();
        t.verify("get");
    }
    std::printf("gets ok\n");
    // a stream of puts without completions to one place, then QUIET: the last one wins (order
    // per peer), and QUIET returns only when every put is acknowledged
    for (int k = 0; k < 20; k++) {
        t.fill(0, A + 0x100 * (uint64_t)k, 64, rng(seed));
        put(t, 0, 1 % n, A + 0x100 * (uint64_t)k, B + 0x50000, 64, id++, MM_RTL_F_NOCQ);
    }
    t.submit(0, desc(MM_RTL_OP_QUIET, 0, id++));
    t.run();
    CHECK(t.last(0).op == MM_RTL_OP_QUIET, "the last completion of node 0 is not QUIET's");
    t.verify("puts then quiet");
    std::printf("quiet ok\n");
    // atomics: every node adds to one counter on node 0, 10 times; each also runs every other op
    // on a word of its own there
    std::memset(t.mem(0) + CNT, 0, 8 * 64);
    std::memset(&t.expect[0][CNT], 0, 8 * 64);
    for (int r = 0; r < 10; r++)
        for (int i = 0; i < n; i++) {
            mm_rtl_desc d = desc(MM_RTL_OP_AMO, 0, id++);
            d.dst = CNT;
            d.len = 8;
            d.src_stride = MM_RTL_AMO_FADD;
            d.value = (uint64_t)i + 1;
            t.submit(i, d);
        }
    t.run();
    uint64_t want = 0;
    for (int i = 0; i < n; i++)
        want += 10 * ((uint64_t)i + 1);
    CHECK(rd64(t, 0, CNT) == want, "counter %llu, expected %llu",
          (unsigned long long)rd64(t, 0, CNT), (unsigned long long)want);
    std::memcpy(&t.expect[0][CNT], &want, 8);
    struct {
        uint8_t op;
        uint64_t init, operand, cmp, result;
        unsigned len;
    } cases[] = {
        {MM_RTL_AMO_SWAP, 5, 9, 0, 9, 8},          {MM_RTL_AMO_CSWAP, 5, 9, 5, 9, 8},
        {MM_RTL_AMO_CSWAP, 5, 9, 4, 5, 8},         {MM_RTL_AMO_FAND, 0xf0f0, 0xff00, 0, 0xf000, 8},
        {MM_RTL_AMO_FOR, 0xf0, 0x0f, 0, 0xff, 8},  {MM_RTL_AMO_FXOR, 0xff, 0x0f, 0, 0xf0, 8},
        {MM_RTL_AMO_FETCH, 77, 0, 0, 77, 8},       {MM_RTL_AMO_SET, 77, 12, 0, 12, 8},
        {MM_RTL_AMO_FADD, 0xfffffffe, 3, 0, 1, 4}, {MM_RTL_AMO_CSWAP, 6, 1, 6, 1, 4}};
    int k = 0;
    for (auto &c : cases) {
        const int who = 1 % n;
        const uint64_t a = CNT + 8 + 8 * (uint64_t)k + (c.len == 4 && (k & 1) ? 4 : 0);
        std::memcpy(t.mem(0) + a, &c.init, c.len);
        std::memcpy(&t.expect[0][a], &c.result, c.len);
        mm_rtl_desc d = desc(MM_RTL_OP_AMO, 0, id++);
        d.dst = a;
        d.len = c.len;
        d.src_stride = c.op;
        d.value = c.operand;
        d.aux = c.cmp;
        t.submit(who, d);
        t.run();
        CHECK(t.last(who).value == c.init, "AMO %u: old value %llu, expected %llu", c.op,
              (unsigned long long)t.last(who).value, (unsigned long long)c.init);
        k++;
    }
    t.verify("atomics");
    std::printf("atomics ok\n");
    // put with signal: the signal must never be seen before the whole payload; checked at every
    // cycle while it runs
    {
        const int to = 1 % n;
        const uint64_t len = 3000, dst = B + 0x60000, sig = B + 0x70000;
        t.fill(0, A, len, rng(seed));
        std::memset(t.mem(to) + sig, 0, 8);
        std::memset(&t.expect[to][sig], 0, 8);
        mm_rtl_desc d = desc(MM_RTL_OP_PUT_SIGNAL, (uint16_t)to, id++);
        d.src = A;
        d.dst = dst;
        d.len = len;
        d.aux = sig;
        d.value = 1;
        d.src_stride = MM_RTL_SIG_ADD;
        for (int r = 0; r < 2; r++)
            t.submit(0, d); // two: the second adds to the first
        t.move(0, A, to, dst, len);
        const uint64_t two = 2;
        std::memcpy(&t.expect[to][sig], &two, 8);
        int seen = 0;
        while (mm_rtlsim_pending(t.s)) {
            CHECK(mm_rtlsim_run(t.s, mm_rtlsim_cycle(t.s) + 1, 0) != MM_RTLSIM_STALLED, "%s",
                  mm_rtlsim_report(t.s));
            const uint64_t s = rd64(t, to, sig);
            if (s && !seen) {
                CHECK(std::memcmp(t.mem(to) + dst, &t.expect[to][dst], len) == 0,
                      "the signal was written before the data");
                seen = 1;
            }
            mm_rtl_cqe e;
            while (mm_rtlsim_poll(t.s, 0, &e))
                CHECK(e.status == 0, "put-signal status %u", e.status);
        }
        t.run();
        t.verify("put with signal");
    }
    std::printf("put-signal ok\n");
    // what must fail, fails, and says why
    {
        mm_rtl_desc d = desc(MM_RTL_OP_AMO, 0, id++);
        d.dst = CNT + 3;
        d.len = 8;
        t.submit(1 % n, d);
        mm_rtl_desc p = desc(MM_RTL_OP_PUT, 0, id++);
        p.src = A;
        p.dst = B;
        p.len = 8;
        p.peer = 99;
        t.submit(1 % n, p);
        t.run(false);
        CHECK(t.cqes[1 % n].size() >= 2, "no completions for the bad requests");
        const auto &q = t.cqes[1 % n];
        CHECK(q[q.size() - 2].status == MM_RTL_ST_EINVAL, "misaligned AMO: status %u",
              q[q.size() - 2].status);
        CHECK(q.back().status == MM_RTL_ST_EROUTE, "put to node 99: status %u", q.back().status);
    }
    std::printf("ok: %d nodes\n", n);
    return 0;
}
