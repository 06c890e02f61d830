// First system test: unicast, barrier and all-to-all on a full mesh, end to end through the
// host interface, the sequencer and the DMACs, every byte checked.
#include "rtltest.hpp"

using namespace rt;

int main(int argc, char **argv)
{
    CHECK(argc >= 2, "usage: test_smoke CONFIG [OVERRIDES]");
    Sys t(argv[1], argc > 2 ? argv[2] : "");
    const int n = t.n;
    // unicast: node 0 sends 300 bytes to node 1
    t.fill(0, 0x1000, 300, 1);
    {
        mm_rtl_desc r = desc(MM_RTL_OP_RECV, 0, 1);
        r.dst = 0x8000;
        r.len = 4096;
        t.submit(1, r);
        mm_rtl_desc s = desc(MM_RTL_OP_SEND, 1, 2);
        s.src = 0x1000;
        s.len = 300;
        t.submit(0, s);
        t.move(0, 0x1000, 1, 0x8000, 300);
        t.run();
        t.verify("unicast");
        CHECK(t.last(1).value == 300, "RECV reports %llu bytes",
              (unsigned long long)t.last(1).value);
        std::printf("unicast 300 B: %llu cycles\n",
                    (unsigned long long)(t.last(1).end - t.last(0).start));
    }
    // barrier
    for (int i = 0; i < n; i++)
        t.submit(i, desc(MM_RTL_OP_BARRIER, 0, 10));
    t.run();
    // all-to-all, 256 bytes per block
    const uint64_t blk = 256, src = 0x10000, dst = 0x20000;
    for (int i = 0; i < n; i++)
        t.fill(i, src, blk * n, 100 + i);
    for (int i = 0; i < n; i++) {
        mm_rtl_desc d = desc(MM_RTL_OP_ALLTOALL, 0, 20);
        d.src = src;
        d.dst = dst;
        d.len = blk;
        d.src_stride = blk;
        d.dst_stride = blk;
        t.submit(i, d);
        for (int j = 0; j < n; j++)
            t.move(i, src + j * blk, j, dst + i * blk, blk);
    }
    t.run();
    t.verify("all-to-all");
    mm_rtlsim_stats st;
    mm_rtlsim_get_stats(t.s, &st);
    std::printf("ok: %d nodes; %llu cycles clocked, %llu skipped\n", n,
                (unsigned long long)st.cycles_clocked, (unsigned long long)st.cycles_skipped);
    return 0;
}
