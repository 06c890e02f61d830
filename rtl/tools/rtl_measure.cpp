// mm-rtl-measure: runs the scenarios behind `meshmem rtl validate` on the simulator and prints
// one JSON line per scenario: the cycles it took on the RTL and the configuration's clock. Each
// scenario is named by the published figure it reproduces (python/meshmem/model/published.toml)
// or by an rtl-only row (python/meshmem/cli/rtl.py). Times run from the first descriptor's doorbell to
// the last completion, as the papers time an operation from its command to its end.
//   mm-rtl-measure CONFIG_DIR [SCENARIO...]    (no scenario: all; `list` lists them)
//   mm-rtl-measure CONFIG_DIR --set KEY=VALUE;... SCENARIO...   (overrides, e.g. a latency)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "mm_rtlsim.h"

namespace
{

std::string dir, extra;

struct Sys {
    mm_rtlsim *s;
    int n;
    std::vector<std::vector<mm_rtl_cqe>> cq;
    Sys(const char *cfg, std::string ov)
    {
        char err[512];
        if (!extra.empty())
            ov += (ov.empty() ? "" : ";") + extra;
        s = mm_rtlsim_create((dir + "/" + cfg).c_str(), ov.c_str(), err, sizeof err);
        if (!s) {
            std::fprintf(stderr, "mm-rtl-measure: %s\n", err);
            std::exit(1);
        }
        n = mm_rtlsim_nodes(s);
        cq.resize(n);
    }
    ~Sys()
    {
        mm_rtlsim_destroy(s);
    }
    void submit(int node, const mm_rtl_desc &d)
    {
        mm_rtlsim_submit(s, node, &d);
    }
    void run()
    {
        int r;
        do {
            r = mm_rtlsim_run(s, ~0ull, 0);
            mm_rtl_cqe e;
            for (int i = 0; i < n; i++)
                while (mm_rtlsim_poll(s, i, &e)) {
                    if (e.status) {
                        std::fprintf(stderr, "mm-rtl-measure: node %d op 0x%x status %u\n", i, e.op,
                                     e.status);
                        std::exit(1);
                    }
                    cq[i].push_back(e);
                }
        } while (r == MM_RTLSIM_CYCLE || r == MM_RTLSIM_COMPLETION);
        if (r == MM_RTLSIM_STALLED) {
            std::fprintf(stderr, "mm-rtl-measure: %s", mm_rtlsim_report(s));
            std::exit(1);
        }
    }
    void clear()
    {
        for (auto &q : cq)
            q.clear();
    }
    // first doorbell to last completion, over the completions read since clear()
    uint64_t span() const
    {
        uint64_t a = ~0ull, b = 0;
        for (auto &q : cq)
            for (auto &e : q) {
                a = std::min(a, e.start);
                b = std::max(b, e.end);
            }
        return b - a;
    }
};

mm_rtl_desc D(uint8_t op, int peer, uint32_t id = 0)
{
    mm_rtl_desc d;
    std::memset(&d, 0, sizeof d);
    d.op = op;
    d.peer = (uint16_t)peer;
    d.id = id;
    return d;
}

void emit(const char *id, const Sys &t, uint64_t cycles, const char *note = "")
{
    std::printf(
        "{\"id\": \"%s\", \"cycles\": %llu, \"clock_mhz\": %g, \"nodes\": %d, \"note\": \"%s\"}\n",
        id, (unsigned long long)cycles, mm_rtlsim_clock_mhz(t.s), t.n, note);
    std::fflush(stdout);
}

// a unicast of len bytes from node a to node b (RECV and SEND posted together)
uint64_t unicast(Sys &t, int a, int b, uint64_t len)
{
    t.clear();
    mm_rtl_desc r = D(MM_RTL_OP_RECV, a), s = D(MM_RTL_OP_SEND, b);
    r.dst = 0x800000;
    r.len = len;
    s.src = 0;
    s.len = len;
    t.submit(b, r);
    t.submit(a, s);
    t.run();
    return t.span();
}

// two hops on a GHC: a RECV and a fenced SEND at the node in a's row and b's column
uint64_t two_hops(Sys &t, int kx, int a, int b, uint64_t len)
{
    t.clear();
    const int mid = (a / kx) * kx + b % kx;
    mm_rtl_desc r1 = D(MM_RTL_OP_RECV, a), s1 = D(MM_RTL_OP_SEND, mid);
    mm_rtl_desc r2 = D(MM_RTL_OP_RECV, mid), s2 = D(MM_RTL_OP_SEND, b);
    r1.dst = 0x800000;
    r1.len = len;
    s1.len = len;
    r2.dst = 0x800000;
    r2.len = len;
    s2.src = 0x800000;
    s2.len = len;
    s2.flags = MM_RTL_F_FENCE;
    t.submit(mid, r1);
    t.submit(a, s1);
    t.submit(b, r2);
    t.submit(mid, s2);
    t.run();
    return t.span();
}

uint64_t alltoall(Sys &t, uint64_t per_node, uint8_t flags = 0)
{
    t.clear();
    const uint64_t blk = per_node / t.n;
    for (int i = 0; i < t.n; i++) {
        mm_rtl_desc d = D(MM_RTL_OP_ALLTOALL, 0);
        d.src = 0;
        d.dst = 0x800000;
        d.len = blk;
        d.src_stride = blk;
        d.dst_stride = blk;
        d.flags = flags;
        t.submit(i, d);
    }
    t.run();
    return t.span();
}

// the GHC all-to-all as the paper runs it (§4.B.2): an all-to-all along each row carrying, for
// each row peer, the ky blocks bound for its column, then the blocks exchanged along the columns
uint64_t ghc_alltoall(Sys &t, int kx, int ky, uint64_t per_node)
{
    t.clear();
    const uint64_t blk = per_node / t.n;
    for (int i = 0; i < t.n; i++) {
        mm_rtl_desc d = D(MM_RTL_OP_ALLTOALL, 0);
        d.flags = MM_RTL_F_TEAM_X;
        d.src = 0;
        d.dst = 0x800000;
        d.len = blk * ky;
        d.src_stride = blk * ky;
        d.dst_stride = blk * ky;
        t.submit(i, d);
        for (int x = 0; x < kx; x++) { // the blocks row peer x sent, one to each column peer
            mm_rtl_desc e = D(MM_RTL_OP_ALLTOALL, 0);
            e.flags = MM_RTL_F_TEAM_Y | (x == 0 ? MM_RTL_F_FENCE : 0);
            e.src = 0x800000 + x * blk * ky;
            e.dst = 0xC00000 + x * blk * ky;
            e.len = blk;
            e.src_stride = blk;
            e.dst_stride = blk;
            t.submit(i, e);
        }
    }
    t.run();
    return t.span();
}

// sharing averaged parameters, the aggressive approach (§3.C.2, §4.D.1): the in-flight sum of an
// all-to-all (each node averages its 1/N), then an all-gather of the averages
uint64_t average(Sys &t, uint64_t per_node)
{
    t.clear();
    const uint64_t blk = per_node / t.n;
    for (int i = 0; i < t.n; i++) {
        mm_rtl_desc r = D(MM_RTL_OP_REDUCE_SCATTER, 0);
        r.src = 0;
        r.dst = 0x800000;
        r.len = blk;
        r.src_stride = blk;
        r.flags = MM_RTL_F_AVG;
        t.submit(i, r);
        mm_rtl_desc g = D(MM_RTL_OP_ALLGATHER, 0);
        g.src = 0x800000;
        g.dst = 0x900000;
        g.len = blk;
        g.dst_stride = blk;
        g.flags = MM_RTL_F_FENCE;
        t.submit(i, g);
    }
    t.run();
    return t.span();
}

// the block signal: two nodes' barriers posted in one cycle complete when each one's pulse has
// crossed; a round trip is a second barrier, started when the first ends
uint64_t barrier_rtt(Sys &t)
{
    t.clear();
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 2; i++)
            t.submit(i, D(MM_RTL_OP_BARRIER, 0));
    t.run();
    return t.span();
}

// FSHMEM's latency: from the command to the header's arrival (put) or return (get), the instant
// the completion carries (mm_am)
uint64_t am_latency(Sys &t, uint8_t op, uint64_t len)
{
    t.clear();
    mm_rtl_desc d = D(op, 1);
    d.src = 0x1000;
    d.dst = 0x2000;
    d.len = len;
    t.submit(0, d);
    t.run();
    return t.cq[0].back().value - t.cq[0].back().start;
}

// FSHMEM's bandwidth: a transfer of total bytes in puts of packet bytes each, back to back
// (without completions but the first's, whose start opens the span), then QUIET
uint64_t am_stream(Sys &t, uint64_t total, uint64_t packet)
{
    t.clear();
    for (uint64_t o = 0; o < total; o += packet) {
        mm_rtl_desc d = D(MM_RTL_OP_PUT, 1);
        d.src = o;
        d.dst = 0x800000 + o;
        d.len = packet;
        d.flags = o ? MM_RTL_F_NOCQ : 0;
        t.submit(0, d);
    }
    t.submit(0, D(MM_RTL_OP_QUIET, 0));
    t.run();
    return t.span();
}

struct Scenario {
    const char *id;
    std::function<void()> run;
};

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: mm-rtl-measure CONFIG_DIR [--set K=V;...] [SCENARIO... | list]\n");
        return 2;
    }
    dir = argv[1];
    int first = 2;
    if (argc > 3 && !std::strcmp(argv[2], "--set")) {
        extra = argv[3];
        first = 4;
    }
    const char *fc45 = "optweb-fc8-45g.toml", *fc90 = "optweb-fc8-90g.toml",
               *ghc = "optweb-ghc4x2-45g.toml", *fsh = "fshmem-2node.toml";
    std::vector<Scenario> all = {
        {"unicast-direct-small",
         [&] {
             Sys t(fc45, "");
             emit("unicast-direct-small", t, unicast(t, 0, 1, 128));
         }},
        {"unicast-direct-1m",
         [&] {
             Sys t(fc45, "");
             emit("unicast-direct-1m", t, unicast(t, 0, 1, 1 << 20));
         }},
        {"unicast-indirect-small",
         [&] {
             Sys t(ghc, "");
             emit("unicast-indirect-small", t, two_hops(t, 4, 0, 5, 128));
         }},
        {"unicast-indirect-1m",
         [&] {
             Sys t(ghc, "");
             emit("unicast-indirect-1m", t, two_hops(t, 4, 0, 5, 1 << 20));
         }},
        {"a2a-45g-small-time",
         [&] {
             Sys t(fc45, "");
             emit("a2a-45g-small-time", t, alltoall(t, 1024));
         }},
        {"a2a-45g-64k-time",
         [&] {
             Sys t(fc45, "");
             emit("a2a-45g-64k-time", t, alltoall(t, 65536));
         }},
        {"a2a-90g-1k-time",
         [&] {
             Sys t(fc90, "");
             emit("a2a-90g-1k-time", t, alltoall(t, 1024));
         }},
        {"average-90g-1k-time",
         [&] {
             Sys t(fc90, "");
             emit("average-90g-1k-time", t, average(t, 1024));
         }},
        {"average-90g-32k-time",
         [&] {
             Sys t(fc90, "");
             emit("average-90g-32k-time", t, average(t, 32768));
         }},
        {"block-signal-rtt",
         [&] {
             Sys t(fc45, "topology.nodes=2");
             emit("block-signal-rtt", t, barrier_rtt(t));
         }},
        {"a2a-fc8-2m",
         [&] {
             Sys t(fc45, "");
             emit("a2a-fc8-2m", t, alltoall(t, 2 << 20));
         }},
        {"a2a-ghc4x2-2m",
         [&] {
             Sys t(ghc, "");
             emit("a2a-ghc4x2-2m", t, ghc_alltoall(t, 4, 2, 2 << 20));
         }},
        {"fshmem-put-short-latency",
         [&] {
             Sys t(fsh, "");
             emit("fshmem-put-short-latency", t, am_latency(t, MM_RTL_OP_PUT, 0));
         }},
        {"fshmem-put-long-latency",
         [&] {
             Sys t(fsh, "");
             emit("fshmem-put-long-latency", t, am_latency(t, MM_RTL_OP_PUT, 4));
         }},
        {"fshmem-get-short-latency",
         [&] {
             Sys t(fsh, "");
             emit("fshmem-get-short-latency", t, am_latency(t, MM_RTL_OP_GET, 0));
         }},
        {"fshmem-get-long-latency",
         [&] {
             Sys t(fsh, "");
             emit("fshmem-get-long-latency", t, am_latency(t, MM_RTL_OP_GET, 4));
         }},
        {"fshmem-peak-128",
         [&] {
             Sys t(fsh, "");
             emit("fshmem-peak-128", t, am_stream(t, 1 << 18, 128));
         }},
        {"fshmem-peak-256",
         [&] {
             Sys t(fsh, "");
             emit("fshmem-peak-256", t, am_stream(t, 1 << 18, 256));
         }},
        {"fshmem-peak-512",
         [&] {
             Sys t(fsh, "");
             emit("fshmem-peak-512", t, am_stream(t, 1 << 18, 512));
         }},
        {"fshmem-peak-1024",
         [&] {
             Sys t(fsh, "");
             emit("fshmem-peak-1024", t, am_stream(t, 1 << 18, 1024));
         }},
    };
    if (argc > first && !std::strcmp(argv[first], "list")) {
        for (auto &s : all)
            std::printf("%s\n", s.id);
        return 0;
    }
    for (auto &s : all) {
        bool want = argc == first;
        for (int i = first; i < argc; i++)
            want = want || !std::strcmp(argv[i], s.id);
        if (want)
            s.run();
    }
    for (int i = first; i < argc; i++) {
        bool known = false;
        for (auto &s : all)
            known = known || !std::strcmp(argv[i], s.id);
        if (!known) {
            std::fprintf(stderr, "mm-rtl-measure: no scenario %s (list: mm-rtl-measure DIR list)\n",
                         argv[i]);
            return 2;
        }
    }
    return 0;
}
