// The simulation-speed benchmark (not a test): simulated cycles per second of wall time, at a
// given node count, under sustained traffic that keeps every lane busy (back-to-back all-to-alls,
// every cycle clocked: idle skipping has nothing to skip there), and under a latency-bound
// mix (small unicasts and barriers, where skipping does the work).
//   rtl_speed CONFIG NODES [SECONDS]      prints one JSON line per load
// (MM_RTL_THREADS=2 in the environment: two threads where the library uses them, rtl/sim)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mm_rtlsim.h"

static double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static mm_rtl_desc d0(uint8_t op, uint16_t peer)
{
    mm_rtl_desc d;
    std::memset(&d, 0, sizeof d);
    d.op = op;
    d.peer = peer;
    return d;
}

static int drain(mm_rtlsim *s, int n)
{
    int r;
    do {
        r = mm_rtlsim_run(s, ~0ull, 0);
        mm_rtl_cqe e;
        for (int i = 0; i < n; i++)
            while (mm_rtlsim_poll(s, i, &e))
                if (e.status) {
                    std::fprintf(stderr, "status %u\n", e.status);
                    return -1;
                }
    } while (r == MM_RTLSIM_CYCLE || r == MM_RTLSIM_COMPLETION);
    if (r == MM_RTLSIM_STALLED) {
        std::fprintf(stderr, "%s", mm_rtlsim_report(s));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: rtl_speed CONFIG NODES [SECONDS]\n");
        return 2;
    }
    const int nodes = std::atoi(argv[2]);
    const double secs = argc > 3 ? std::atof(argv[3]) : 3.0;
    char err[512], ov[64];
    std::snprintf(ov, sizeof ov, "topology.nodes=%d", nodes);
    for (int load = 0; load < 2; load++) {
        mm_rtlsim *s = mm_rtlsim_create(argv[1], ov, err, sizeof err);
        if (!s) {
            std::fprintf(stderr, "%s\n", err);
            return 1;
        }
        const int n = mm_rtlsim_nodes(s);
        const double t0 = now_s();
        uint64_t ops = 0;
        while (now_s() - t0 < secs) {
            if (load == 0) { // all-to-all of 4 KiB blocks (eager), every node, back to back
                for (int i = 0; i < n; i++) {
                    mm_rtl_desc d = d0(MM_RTL_OP_ALLTOALL, 0);
                    d.src = 0;
                    d.dst = 1 << 20;
                    d.len = 4096;
                    d.src_stride = 4096;
                    d.dst_stride = 4096;
                    mm_rtlsim_submit(s, i, &d);
                }
            } else { // a 128-byte unicast around a ring, then a barrier
                for (int i = 0; i < n; i++) {
                    mm_rtl_desc r = d0(MM_RTL_OP_RECV, (uint16_t)((i + n - 1) % n));
                    r.dst = 1 << 20;
                    r.len = 128;
                    mm_rtlsim_submit(s, i, &r);
                    mm_rtl_desc d = d0(MM_RTL_OP_SEND, (uint16_t)((i + 1) % n));
                    d.len = 128;
                    mm_rtlsim_submit(s, i, &d);
                    mm_rtlsim_submit(s, i, &(const mm_rtl_desc &)d0(MM_RTL_OP_BARRIER, 0));
                }
            }
            if (drain(s, n))
                return 1;
            ops++;
        }
        const double dt = now_s() - t0;
        mm_rtlsim_stats st;
        mm_rtlsim_get_stats(s, &st);
        const uint64_t cyc = mm_rtlsim_cycle(s);
        std::printf("{\"nodes\": %d, \"load\": \"%s\", \"seconds\": %.2f, \"rounds\": %llu, "
                    "\"cycles\": %llu, \"cycles_clocked\": %llu, \"cycles_per_s\": %.0f, "
                    "\"clocked_per_s\": %.0f, \"threads\": %llu}\n",
                    n, load == 0 ? "alltoall-4k" : "unicast-barrier", dt, (unsigned long long)ops,
                    (unsigned long long)cyc, (unsigned long long)st.cycles_clocked, cyc / dt,
                    st.cycles_clocked / dt, (unsigned long long)st.threads);
        mm_rtlsim_destroy(s);
    }
    return 0;
}
