// Every collective of the command sequencer on one system, against the scoreboard:
// broadcast, scatter, gather (every root), all-gather, all-to-all, all-to-all-v (the receivers
// learn each length from the end-of-packet mark), the in-flight reduce-scatter of the averaging
// core, and barrier; eager and rendezvous sizes; several collectives in flight at once. On a GHC
// each runs per row and per column (MM_RTL_F_TEAM_X / _Y), and the two-hop unicast (through the
// node at the destination's column in the source's row) is a RECV and a fenced SEND there.
//   test_coll CONFIG [OVERRIDES] [SEED]
#include <algorithm>

#include "rtltest.hpp"

using namespace rt;

namespace
{

struct Ctx {
    Sys &t;
    int kx, ky;
    bool ghc;
    uint32_t id = 1;
    uint64_t seed;
};

// the members of node me's team (all nodes, its row or its column), in order
std::vector<int> team(const Ctx &c, int me, uint8_t flags)
{
    std::vector<int> m;
    for (int i = 0; i < c.t.n; i++) {
        if ((flags & MM_RTL_F_TEAM_X) && i / c.kx != me / c.kx)
            continue;
        if ((flags & MM_RTL_F_TEAM_Y) && i % c.kx != me % c.kx)
            continue;
        m.push_back(i);
    }
    return m;
}
int pos(const std::vector<int> &m, int node)
{
    return (int)(std::find(m.begin(), m.end(), node) - m.begin());
}

constexpr uint64_t SRC0 = 0x100000, DST0 = 0x400000, TBL = 0x40000, TBL2 = 0x80000;

// one collective on every node of every team of the given kind; data and prediction
void coll(Ctx &c, uint8_t op, uint8_t flags, uint64_t len, int root_pos, uint64_t off = 0)
{
    Sys &t = c.t;
    const uint64_t SRC = SRC0 + off, DST = DST0 + off;
    const uint64_t stride = (len + 31) & ~31ull;
    const uint64_t blk = stride ? stride : 32;
    for (int me = 0; me < t.n; me++) {
        const std::vector<int> m = team(c, me, flags);
        const int k = (int)m.size();
        const int root = m[root_pos % k];
        t.fill(me, SRC, blk * k, rng(c.seed));
        mm_rtl_desc d = desc(op, (uint16_t)root, c.id);
        d.flags = flags;
        d.src = SRC;
        d.dst = DST;
        d.len = len;
        d.src_stride = blk;
        d.dst_stride = blk;
        if (op == MM_RTL_OP_ALLTOALLV) {
            d.value = TBL;
            d.aux = TBL2;
            d.len = blk;                  // len: each block's capacity
            for (int j = 0; j < k; j++) { // this node's send lengths
                const uint32_t l = (uint32_t)(rng(c.seed) % (blk + 1));
                std::memcpy(t.mem(me) + TBL + 4 * j, &l, 4);
                std::memcpy(&t.expect[me][TBL + 4 * j], &l, 4);
            }
        }
        t.submit(me, d);
    }
    // the prediction, team by team (each node is in exactly one team of this kind)
    for (int me = 0; me < t.n; me++) {
        const std::vector<int> m = team(c, me, flags);
        const int k = (int)m.size(), p = pos(m, me), root = m[root_pos % k];
        switch (op) {
        case MM_RTL_OP_BCAST:
            if (me != root)
                t.move(root, SRC, me, DST, len);
            break;
        case MM_RTL_OP_SCATTER: t.move(root, SRC + p * blk, me, DST, len); break;
        case MM_RTL_OP_GATHER:
            if (me == root)
                for (int j = 0; j < k; j++)
                    t.move(m[j], SRC, me, DST + j * blk, len);
            break;
        case MM_RTL_OP_ALLGATHER:
            for (int j = 0; j < k; j++)
                t.move(m[j], SRC, me, DST + j * blk, len);
            break;
        case MM_RTL_OP_ALLTOALL:
            for (int j = 0; j < k; j++)
                t.move(m[j], SRC + p * blk, me, DST + j * blk, len);
            break;
        case MM_RTL_OP_ALLTOALLV:
            for (int j = 0; j < k; j++) {
                uint32_t l;
                std::memcpy(&l, &t.expect[m[j]][TBL + 4 * p], 4);
                t.move(m[j], SRC + p * blk, me, DST + j * blk, l);
                std::memcpy(&t.expect[me][TBL2 + 4 * j], &l, 4);
            }
            break;
        case MM_RTL_OP_REDUCE_SCATTER: {
            const int shift = (flags & MM_RTL_F_AVG) ? __builtin_ctz((unsigned)k) : 0;
            for (uint64_t w = 0; w < len; w += 4) {
                uint32_t s = 0;
                for (int j = 0; j < k; j++) {
                    uint32_t v;
                    std::memcpy(&v, &t.expect[m[j]][SRC + p * blk + w], 4);
                    s += v;
                }
                const int32_t a = (int32_t)s >> shift;
                std::memcpy(&t.expect[me][DST + w], &a, std::min<uint64_t>(4, len - w));
            }
            break;
        }
        }
    }
    c.id++;
}

void all_ops(Ctx &c, uint8_t flags, const char *what)
{
    const uint64_t eager = 8192; // the configurations' threshold: the receive buffer
    const uint64_t sizes[] = {0, 1, 32, 100, 4096, eager, eager + 32};
    const uint8_t ops[] = {MM_RTL_OP_BCAST,         MM_RTL_OP_SCATTER,  MM_RTL_OP_GATHER,
                           MM_RTL_OP_ALLGATHER,     MM_RTL_OP_ALLTOALL, MM_RTL_OP_ALLTOALLV,
                           MM_RTL_OP_REDUCE_SCATTER};
    const int k = (int)team(c, 0, flags).size();
    for (uint8_t op : ops)
        for (uint64_t len : sizes) {
            if (op == MM_RTL_OP_REDUCE_SCATTER && (len % 4))
                continue;
            const bool rooted = op <= MM_RTL_OP_GATHER;
            // every root of a small team; of a large one the first, a middle and the last
            std::vector<int> roots;
            for (int r = 0; r < (rooted ? k : 1); r++)
                if (k <= 8 || r == 0 || r == k / 2 || r == k - 1)
                    roots.push_back(r);
            for (int r : roots) {
                coll(c, op, flags, len, r);
                c.t.run();
                char w[96];
                std::snprintf(w, sizeof w, "%s op 0x%x len %llu root %d", what, op,
                              (unsigned long long)len, r);
                c.t.verify(w);
            }
        }
    // averaging: a power-of-two team divides
    if ((k & (k - 1)) == 0) {
        coll(c, MM_RTL_OP_REDUCE_SCATTER, flags | MM_RTL_F_AVG, 1024, 0);
        c.t.run();
        c.t.verify("average");
    }
    // three collectives in flight at once on every node, then a barrier
    // (each from its own source and into its own destination: the fills happen before any runs)
    coll(c, MM_RTL_OP_ALLTOALL, flags, 512, 0, 0);
    coll(c, MM_RTL_OP_ALLGATHER, flags | MM_RTL_F_FENCE, 200, 0, 0x80000);
    coll(c, MM_RTL_OP_BCAST, flags | MM_RTL_F_FENCE, 5000, 1, 0x100000);
    for (int i = 0; i < c.t.n; i++) {
        mm_rtl_desc b = desc(MM_RTL_OP_BARRIER, 0, c.id);
        b.flags = flags & (MM_RTL_F_TEAM_X | MM_RTL_F_TEAM_Y);
        c.t.submit(i, b);
    }
    c.t.run();
    c.t.verify("back to back");
}

} // namespace

int main(int argc, char **argv)
{
    CHECK(argc >= 2, "usage: test_coll CONFIG [OVERRIDES] [SEED]");
    Sys t(argv[1], argc > 2 ? argv[2] : "");
    Ctx c{t, 0, 1, false, 1, argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 29};
    const std::string d = mm_rtlsim_describe(t.s);
    c.ghc = d.find("topology = ghc") != std::string::npos;
    if (c.ghc)
        std::sscanf(d.c_str() + d.find("topology = ghc") + 15, "%dx%d", &c.kx, &c.ky);
    else
        c.kx = t.n;
    std::printf("%s: %d nodes%s, seed %llu\n", argv[1], t.n, c.ghc ? " (GHC)" : "",
                (unsigned long long)c.seed);
    if (!c.ghc) {
        all_ops(c, 0, "full mesh");
    } else {
        all_ops(c, MM_RTL_F_TEAM_X, "rows");
        all_ops(c, MM_RTL_F_TEAM_Y, "columns");
        // a team of the whole GHC is not one step: refused
        mm_rtl_desc d0 = desc(MM_RTL_OP_ALLTOALL, 0, 999);
        t.submit(0, d0);
        t.run(false);
        CHECK(t.last(0).status == MM_RTL_ST_EROUTE, "a whole-GHC all-to-all gave status %u",
              t.last(0).status);
        // two hops: from node 0 to the last node, through the node in 0's row at its column
        const int dst = t.n - 1, mid = dst % c.kx;
        if (mid != 0 && mid != dst) {
            const uint64_t SRC = SRC0, DST = DST0;
            t.fill(0, SRC, 3000, 77);
            mm_rtl_desc r1 = desc(MM_RTL_OP_RECV, 0, 1000),
                        s1 = desc(MM_RTL_OP_SEND, (uint16_t)mid, 1001);
            r1.dst = DST;
            r1.len = 3000;
            s1.src = SRC;
            s1.len = 3000;
            mm_rtl_desc r2 = desc(MM_RTL_OP_RECV, (uint16_t)mid, 1002),
                        s2 = desc(MM_RTL_OP_SEND, (uint16_t)dst, 1003);
            r2.dst = DST;
            r2.len = 3000;
            s2.src = DST;
            s2.len = 3000;
            s2.flags = MM_RTL_F_FENCE;
            t.submit(mid, r1);
            t.submit(0, s1);
            t.submit(dst, r2);
            t.submit(mid, s2);
            t.move(0, SRC, mid, DST, 3000);
            t.move(mid, DST, dst, DST, 3000);
            t.run();
            t.verify("two hops");
            std::printf("two hops, 3000 B: %llu cycles\n",
                        (unsigned long long)(t.last(dst).end - t.cqes[0].back().start));
        }
    }
    mm_rtlsim_stats st;
    mm_rtlsim_get_stats(t.s, &st);
    std::printf("ok: %llu completions, %llu cycles (%llu clocked)\n",
                (unsigned long long)st.completions, (unsigned long long)mm_rtlsim_cycle(t.s),
                (unsigned long long)st.cycles_clocked);
    return 0;
}
