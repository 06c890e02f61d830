// Random traffic against the scoreboard, and the same run three ways (idle skipping on and off,
// clock gating on and off): every completion's start and end cycle and every byte of memory must
// be equal, so neither speed-up changes what the hardware does. Then full receive buffers and
// back-pressure, and the watchdog naming what waits.
//   test_random CONFIG [OVERRIDES] [SEED] [ROUNDS]
#include <algorithm>
#include <map>
#include <tuple>

#include "rtltest.hpp"

using namespace rt;

namespace
{

// One workload, generated from the seed: rounds of unicasts (each node posts its receives first,
// at most one message per ordered pair and round: docs/rtl.md says why), puts, gets and atomics,
// each into memory of its own so that the prediction does not depend on timing.
void workload(Sys &t, uint64_t seed, int rounds)
{
    const int n = t.n;
    uint32_t id = 1;
    uint64_t next = 0x10000; // bump allocator of source and destination regions
    auto region = [&](uint64_t len) {
        uint64_t a = next;
        next += (len + 64 + 31) & ~31ull;
        return a;
    };
    const uint64_t counter = 0x8000;
    uint64_t adds = 0;
    std::memset(t.mem(0) + counter, 0, 8);
    for (int r = 0; r < rounds; r++) {
        // raw messages: a random set of ordered pairs
        std::vector<std::tuple<int, int, uint64_t, uint64_t, uint64_t>>
            msgs; // from, to, len, src, dst
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                if (a == b || rng(seed) % 3)
                    continue;
                const uint64_t len = rng(seed) % 3 == 0 ? 4096 + rng(seed) % 6000 : rng(seed) % 600;
                const uint64_t src = region(len), dst = region(len);
                t.fill(a, src, len, rng(seed));
                msgs.emplace_back(a, b, len, src, dst);
            }
        for (auto &m : msgs) {
            auto [a, b, len, src, dst] = m;
            mm_rtl_desc d = desc(MM_RTL_OP_RECV, (uint16_t)a, id++);
            d.dst = dst;
            d.len = len;
            t.submit(b, d);
        }
        for (auto &m : msgs) {
            auto [a, b, len, src, dst] = m;
            mm_rtl_desc d = desc(MM_RTL_OP_SEND, (uint16_t)b, id++);
            d.src = src;
            d.len = len;
            t.submit(a, d);
            t.move(a, src, b, dst, len);
        }
        // one-sided: each node a put, a get and an add, to random peers, any alignment
        for (int a = 0; a < n; a++) {
            const int b = (int)(rng(seed) % n);
            const uint64_t len = rng(seed) % 2000 + 1;
            const uint64_t src = region(len) + rng(seed) % 32, dst = region(len) + rng(seed) % 32;
            t.fill(a, src, len, rng(seed));
            mm_rtl_desc p = desc(MM_RTL_OP_PUT, (uint16_t)b, id++);
            p.src = src;
            p.dst = dst;
            p.len = len;
            if (rng(seed) % 2)
                p.flags |= MM_RTL_F_NOCQ;
            // a fence waits for this node's receives, which wait for others' sends: never on a
            // send itself (fenced sends behind receives can wait on one another in a ring)
            if (rng(seed) % 8 == 0)
                p.flags |= MM_RTL_F_FENCE;
            t.submit(a, p);
            t.move(a, src, b, dst, len);
            const int c = (int)(rng(seed) % n);
            const uint64_t glen = rng(seed) % 700 + 1;
            const uint64_t gsrc = region(glen) + rng(seed) % 32,
                           gdst = region(glen) + rng(seed) % 32;
            t.fill(c, gsrc, glen, rng(seed));
            mm_rtl_desc g = desc(MM_RTL_OP_GET, (uint16_t)c, id++);
            g.src = gsrc;
            g.dst = gdst;
            g.len = glen;
            t.submit(a, g);
            t.move(c, gsrc, a, gdst, glen);
            mm_rtl_desc x = desc(MM_RTL_OP_AMO, 0, id++);
            x.dst = counter;
            x.len = 8;
            x.src_stride = MM_RTL_AMO_FADD;
            x.value = (uint64_t)a + 1;
            t.submit(a, x);
            adds += (uint64_t)a + 1;
        }
    }
    for (int a = 0; a < n; a++)
        t.submit(a, desc(MM_RTL_OP_QUIET, 0, id++));
    std::memcpy(&t.expect[0][counter], &adds, 8);
    CHECK(next < t.size, "the workload needs more memory than the nodes have");
}

struct Run {
    std::vector<std::vector<mm_rtl_cqe>> cqes;
    std::vector<std::vector<uint8_t>> mem;
    uint64_t clocked = 0, skipped = 0;
};

Run run_once(const std::string &cfg, const std::string &ov, uint64_t seed, int rounds, bool skip)
{
    Sys t(cfg, ov);
    mm_rtlsim_set_no_skip(t.s, skip ? 0 : 1);
    workload(t, seed, rounds);
    t.run();
    t.verify("random traffic");
    Run r;
    r.cqes = t.cqes;
    for (int i = 0; i < t.n; i++)
        r.mem.emplace_back(t.mem(i), t.mem(i) + t.size);
    mm_rtlsim_stats st;
    mm_rtlsim_get_stats(t.s, &st);
    r.clocked = st.cycles_clocked;
    r.skipped = st.cycles_skipped;
    return r;
}

void same(const Run &a, const Run &b, const char *what)
{
    for (size_t i = 0; i < a.cqes.size(); i++) {
        CHECK(a.cqes[i].size() == b.cqes[i].size(), "%s: node %zu has %zu completions, not %zu",
              what, i, b.cqes[i].size(), a.cqes[i].size());
        for (size_t k = 0; k < a.cqes[i].size(); k++)
            CHECK(std::memcmp(&a.cqes[i][k], &b.cqes[i][k], sizeof(mm_rtl_cqe)) == 0,
                  "%s: node %zu completion %zu differs (id %u: %llu..%llu against %llu..%llu)",
                  what, i, k, a.cqes[i][k].id, (unsigned long long)a.cqes[i][k].start,
                  (unsigned long long)a.cqes[i][k].end, (unsigned long long)b.cqes[i][k].start,
                  (unsigned long long)b.cqes[i][k].end);
        CHECK(a.mem[i] == b.mem[i], "%s: node %zu's memory differs", what, i);
    }
}

// eager messages sent before their receives are posted fill the receive buffer; the sender is
// held by credits, nothing is lost, and every message lands in order once the receives come
void full_buffers(const std::string &cfg, const std::string &ov)
{
    Sys t(cfg, ov);
    const int k = 24;
    const uint64_t len = 4096;
    for (int m = 0; m < k; m++) {
        t.fill(0, 0x10000 + m * len, len, 1000 + m);
        mm_rtl_desc d = desc(MM_RTL_OP_SEND, 1, m);
        d.src = 0x10000 + m * len;
        d.len = len;
        d.flags = MM_RTL_F_EAGER;
        t.submit(0, d);
        t.move(0, 0x10000 + m * len, 1, 0x200000 + m * len, len);
    }
    CHECK(mm_rtlsim_run(t.s, 20000, 0) == MM_RTLSIM_STALLED || mm_rtlsim_cycle(t.s) >= 20000,
          "the senders ran");
    mm_rtl_cqe e;
    int sent = 0;
    while (mm_rtlsim_poll(t.s, 0, &e))
        sent++;
    CHECK(sent < k, "all %d eager messages left with no receive posted: no back-pressure", k);
    std::printf("before the receives: %d of %d sends completed (receive buffer full)\n", sent, k);
    for (int m = 0; m < k; m++) {
        mm_rtl_desc d = desc(MM_RTL_OP_RECV, 0, 100 + m);
        d.dst = 0x200000 + m * len;
        d.len = len;
        t.submit(1, d);
    }
    t.run();
    t.verify("full receive buffer");
}

// a rendezvous send whose receiver posted an eager receive (so it never pulses ready): the
// send waits for the pulse, the receive for the data
void watchdog(const std::string &cfg, const std::string &ov)
{
    Sys t(cfg, ov);
    mm_rtl_desc d = desc(MM_RTL_OP_SEND, 1, 1);
    d.len = 100000;
    t.submit(0, d);
    mm_rtl_desc r = desc(MM_RTL_OP_RECV, 0, 2);
    r.dst = 0x100000;
    r.len = 64;
    t.submit(1, r);
    int rc = mm_rtlsim_run(t.s, ~0ull, 0);
    CHECK(rc == MM_RTLSIM_STALLED, "a send without its receive did not stall (%d)", rc);
    const std::string rep = mm_rtlsim_report(t.s);
    std::printf("watchdog says:\n%s", rep.c_str());
    CHECK(rep.find("R#1 waits for node 1's ready pulse") != std::string::npos,
          "the report does not name the rendezvous wait");
    CHECK(rep.find("W#0 waits for data from node 0") != std::string::npos,
          "the report does not name the receive's wait");
}

} // namespace

int main(int argc, char **argv)
{
    CHECK(argc >= 2, "usage: test_random CONFIG [OVERRIDES] [SEED] [ROUNDS]");
    const std::string cfg = argv[1], ov = argc > 2 ? argv[2] : "";
    const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 2029;
    const int rounds = argc > 4 ? std::atoi(argv[4]) : 6;
    std::printf("seed %llu, %d rounds\n", (unsigned long long)seed, rounds);
    const Run a = run_once(cfg, ov, seed, rounds, true);
    std::printf("skipping, gating: %llu cycles clocked, %llu skipped\n",
                (unsigned long long)a.clocked, (unsigned long long)a.skipped);
    const Run b = run_once(cfg, ov, seed, rounds, false);
    same(a, b, "without idle skipping");
    const Run c =
        run_once(cfg, ov + (ov.empty() ? "" : ";") + "rtl.clock_gating=0", seed, rounds, true);
    same(a, c, "without clock gating");
    std::printf("the same cycles and bytes without skipping (%llu clocked) and without gating\n",
                (unsigned long long)b.clocked);
    // a second thread evaluating half the nodes (MM_RTL_THREADS=2): the same cycles and bytes
    setenv("MM_RTL_THREADS", "2", 1);
    Sys probe(cfg, ov);
    mm_rtlsim_stats st;
    mm_rtlsim_get_stats(probe.s, &st);
    if (st.threads == 2) {
        const Run d = run_once(cfg, ov, seed, rounds, true);
        same(a, d, "with two threads");
        std::printf("the same with two threads\n");
    } else {
        std::printf("two threads not used here (a model under 8 nodes, or one CPU)\n");
    }
    unsetenv("MM_RTL_THREADS");
    full_buffers(cfg, ov);
    watchdog(cfg, ov);
    std::printf("ok\n");
    return 0;
}
