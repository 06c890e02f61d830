// The per-cycle loop of one model (included by a file per model, which defines MM_NODE_CLASS,
// MM_NODE_HEADER, MM_FABRIC_CLASS, MM_FABRIC_HEADER, MM_MODEL_FACTORY). docs/rtl.md, "The
// simulator library". The model is mm_system (rtl/hdl/mm_system.sv) as two Verilated models, the
// node (N of them) and mm_fabric, wired here as mm_system wires them (build_model.sh says why).
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sched.h>
#include <string>
#include <thread>

#include "model.hpp"
#include "verilated.h"
#include MM_FABRIC_HEADER
#include MM_NODE_HEADER

namespace
{

using mmrtl::Core;

// Vector ports are an integer or a VlWide depending on their width: one accessor for both.
template <typename T> inline void set8(T &v, int i, uint8_t x)
{
    v = (T)((v & ~((T)0xffu << (8 * i))) | ((T)x << (8 * i)));
}
template <std::size_t W> inline void set8(VlWide<W> &v, int i, uint8_t x)
{
    v[i / 4] = (v[i / 4] & ~(0xffu << (8 * (i % 4)))) | ((uint32_t)x << (8 * (i % 4)));
}
template <typename T> inline void zero(T &v)
{
    v = 0;
}
template <std::size_t W> inline void zero(VlWide<W> &v)
{
    for (std::size_t i = 0; i < W; i++)
        v[i] = 0;
}

// A field of up to 32 bits at bit `lo` of a port, integer or VlWide.
template <typename T> inline uint32_t getf(const T &v, int lo, int n)
{
    return (uint32_t)(((uint64_t)v >> lo) & ((1ull << n) - 1));
}
template <std::size_t W> inline uint32_t getf(const VlWide<W> &v, int lo, int n)
{
    const int w = lo >> 5, off = lo & 31;
    uint64_t x = v[w] >> off;
    if (off + n > 32)
        x |= (uint64_t)v[w + 1] << (32 - off);
    return (uint32_t)(x & ((1ull << n) - 1));
}
template <typename T> inline void setf(T &v, int lo, int n, uint32_t x)
{
    const uint64_t m = ((1ull << n) - 1) << lo;
    v = (T)(((uint64_t)v & ~m) | (((uint64_t)x << lo) & m));
}
template <std::size_t W> inline void setf(VlWide<W> &v, int lo, int n, uint32_t x)
{
    const int w = lo >> 5, off = lo & 31;
    const uint64_t m = ((1ull << n) - 1) << off;
    uint64_t cur = v[w];
    if (off + n > 32)
        cur |= (uint64_t)v[w + 1] << 32;
    cur = (cur & ~m) | (((uint64_t)x << off) & m);
    v[w] = (uint32_t)cur;
    if (off + n > 32)
        v[w + 1] = (uint32_t)(cur >> 32);
}
// copy n bits from src at slo to dst at dlo (a node's slice of a fabric port, or back)
template <typename D, typename S> inline void copyf(D &dst, int dlo, const S &src, int slo, int n)
{
    for (int k = 0; k < n; k += 32) {
        const int m = n - k < 32 ? n - k : 32;
        setf(dst, dlo + k, m, getf(src, slo + k, m));
    }
}
template <std::size_t WD, std::size_t WS>
inline void copyf(VlWide<WD> &dst, int dlo, const VlWide<WS> &src, int slo, int n)
{
    if (((dlo | slo | n) & 31) == 0) {
        std::memcpy(&dst[dlo >> 5], &src[slo >> 5], (std::size_t)n / 8);
        return;
    }
    for (int k = 0; k < n; k += 32) {
        const int m = n - k < 32 ? n - k : 32;
        setf(dst, dlo + k, m, getf(src, slo + k, m));
    }
}

class Impl final : public mmrtl::Model
{
    static constexpr int N = MM_MODEL_LANES;
    static constexpr int DW = MM_MODEL_WIDTH;
    static constexpr int BWB = __builtin_ctz(DW / 8) + 1; // $clog2(DW/8) + 1

  public:
    Impl() : ctx_(), fab_(&ctx_, "sys.fabric")
    {
        for (int i = 0; i < N; i++) {
            const std::string nm = "sys.node" + std::to_string(i);
            node_[i] = std::make_unique<MM_NODE_CLASS>(&ctx_, nm.c_str());
            node_[i]->me_i = (uint8_t)i;
        }
        // MM_RTL_THREADS=2: a second thread evaluates nodes split_..N-1 at each rising edge while
        // this one evaluates the fabric and the other nodes (no more threads than CPUs to run
        // them; not below 8 nodes, where the edge is too little work to share)
        const char *e = std::getenv("MM_RTL_THREADS");
        cpu_set_t cpus;
        const int ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
        if (e && std::atoi(e) >= 2 && ncpu >= 2 && N >= 8) {
            split_ = N / 2 - N / 16; // measured best: 4 of 8 here, 7 of 16 (the fabric grows as N²)
            worker_ = std::thread([this] { work(); });
        }
    }
    ~Impl() override
    {
        if (worker_.joinable()) {
            stop_.store(true);
            go_.fetch_add(1);
            {
                std::lock_guard<std::mutex> l(mu_);
                cv_.notify_one();
            }
            worker_.join();
        }
    }
    int lanes() const override
    {
        return MM_MODEL_LANES;
    }
    int width() const override
    {
        return MM_MODEL_WIDTH;
    }
    uint64_t now() const override
    {
        return fab_.now;
    }

    void reset(Core &c) override
    {
        const mm_rtl_config &g = c.cfg;
        // cfg_t (mm_pkg): eager_thr, link_rate, link_lat, loop_rate, loop_lat, rd_lat, wr_lat,
        // pc_sel, most significant first: 32+20+16+20+16+8+8+8 = 128 bits
        unsigned __int128 v = 0;
        v = (v << 32) | g.eager_thr;
        v = (v << 20) | (g.link_rate_q8 & 0xfffff);
        v = (v << 16) | (g.link_lat & 0xffff);
        v = (v << 20) | (g.loop_rate_q8 & 0xfffff);
        v = (v << 16) | (g.loop_lat & 0xffff);
        v = (v << 8) | (g.rd_lat & 0xff);
        v = (v << 8) | (g.wr_lat & 0xff);
        v = (v << 8) | (g.pc_sel & 0xff);
        for (int i = 0; i < 4; i++)
            fab_.cfg[i] = (uint32_t)(v >> (32 * i));
        fab_.nodes = (uint8_t)g.nodes;
        fab_.ghc = (uint8_t)g.ghc;
        fab_.gate = (uint8_t)g.clock_gating;
        zero(fab_.xy);
        for (int i = 0; i < g.nodes; i++)
            set8(fab_.xy, i, (uint8_t)(((i / g.kx) << 4) | (i % g.kx)));
        for (auto &n : node_) {
            n->gate_i = (uint8_t)g.clock_gating;
            n->s_awvalid = 0;
            n->s_wvalid = 0;
            n->s_arvalid = 0;
            n->s_bready = 1;
            n->s_rready = 1;
        }
        c.stats.threads = worker_.joinable() ? 2 : 1;
        set_skip(0, 0);
        set_rst(1);
        for (int i = 0; i < 3; i++)
            tick();
        set_rst(0);
        tick();
        // the cycle counter starts at 0 with the system out of reset
        set_skip(1, 0);
        tick();
        set_skip(0, 0);
    }

    void debug_words(int node, uint32_t out[4]) const override
    {
        for (int k = 0; k < 4; k++)
            out[k] = node_[node]->dbg[k];
    }

    int run(Core &c, uint64_t until, bool stop) override
    {
        mmrtl::current = &c;
        const int n = c.cfg.nodes;
        for (;;) {
            const uint64_t t = fab_.now;
            if (t >= until)
                return MM_RTLSIM_CYCLE;
            if (stop && c.new_cqes)
                return MM_RTLSIM_COMPLETION;
            // the hosts' AXI4-Lite signals for this cycle (both channels always accepted:
            // B and R ready are held high, mm_host_if takes a write or read every cycle)
            bool any = false;
            for (int i = 0; i < n; i++) {
                MM_NODE_CLASS &nd = *node_[i];
                nd.s_awvalid = nd.s_wvalid = nd.s_arvalid = 0;
                mmrtl::Host &h = c.host[i];
                if (!h.busy() && !(nd.irq && h.cq_rd_issued < 0))
                    continue;
                any = true;
                if (nd.irq)
                    mmrtl::host_irq(c, i);
                bool w = false, r = false;
                uint32_t wa = 0, wd = 0, ra = 0;
                mmrtl::host_drive(c, i, w, wa, wd, r, ra);
                if (w) {
                    nd.s_awvalid = nd.s_wvalid = 1;
                    nd.s_awaddr = (uint16_t)(wa & 0xfff);
                    nd.s_wdata = wd;
                }
                if (r) {
                    nd.s_arvalid = 1;
                    nd.s_araddr = (uint16_t)(ra & 0xfff);
                }
                if (trace_ && (w || r))
                    std::fprintf(stderr, "[%llu] node %d:%s%s\n", (unsigned long long)t, i,
                                 w ? (" W " + std::to_string(wa) + "=" + std::to_string(wd)).c_str()
                                   : "",
                                 r ? (" R " + std::to_string(ra)).c_str() : "");
            }
            // nothing moves: jump to the next due time, or stop
            if (!any && !act()) {
                const uint64_t w = wake();
                if (w == ~0ull) {
                    if (c.pending) {
                        mmrtl::stall_report(c, *this, "nothing can move");
                        return MM_RTLSIM_STALLED;
                    }
                    return MM_RTLSIM_IDLE;
                }
                const uint64_t to = w < until ? w : until;
                if (!c.no_skip && to > t + 1) {
                    set_skip(1, to);
                    tick();
                    set_skip(0, 0);
                    c.stats.cycles_clocked++;
                    c.stats.cycles_skipped += to - t - 1;
                    c.stats.skips++;
                    continue;
                }
            }
            tick();
            c.stats.cycles_clocked++;
            if (trace_)
                for (int i = 0; i < n; i++) {
                    uint32_t d[4];
                    debug_words(i, d);
                    if (std::memcmp(d, last_dbg_[i], sizeof d)) {
                        std::fprintf(stderr,
                                     "[%llu] node %d dbg %08x %08x %08x %08x act %d wake %llu\n",
                                     (unsigned long long)fab_.now, i, d[0], d[1], d[2], d[3],
                                     (int)act(), (unsigned long long)wake());
                        std::memcpy(last_dbg_[i], d, sizeof d);
                    }
                }
            // reads answer one cycle after they are accepted
            for (int i = 0; i < n; i++)
                if (node_[i]->s_rvalid)
                    mmrtl::host_read(c, i, node_[i]->s_rdata);
            if (c.pending && fab_.now - c.last_progress > c.watchdog) {
                mmrtl::stall_report(c, *this, "no completion for the watchdog's cycles");
                return MM_RTLSIM_STALLED;
            }
        }
    }

  private:
    // mm_system's act and wake: the fabric's and every node's
    bool act() const
    {
        bool a = fab_.act;
        for (const auto &n : node_)
            a = a || n->act;
        return a;
    }
    uint64_t wake() const
    {
        uint64_t w = fab_.wake;
        for (const auto &n : node_)
            if (n->wake < w)
                w = n->wake;
        return w;
    }
    void set_rst(uint8_t r)
    {
        fab_.rst = r;
        for (auto &n : node_)
            n->rst = r;
    }
    void set_skip(uint8_t s, uint64_t to)
    {
        fab_.skip = s;
        fab_.skip_to = to;
        for (auto &n : node_) {
            n->skip = s;
            n->skip_to = to;
        }
    }
    // mm_system's wiring between the nodes and the fabric: node i's lane j is the fabric's
    // i*N + j both ways (mm_fabric), and the configuration's registers feed every node.
    void wire_lanes_out()
    {
        for (int i = 0; i < N; i++) {
            const MM_NODE_CLASS &nd = *node_[i];
            copyf(fab_.t_valid, i * N, nd.t_valid, 0, N);
            copyf(fab_.t_data, i * N * DW, nd.t_data, 0, N * DW);
            copyf(fab_.t_last, i * N, nd.t_last, 0, N);
            copyf(fab_.t_bytes, i * N * BWB, nd.t_bytes, 0, N * BWB);
            copyf(fab_.t_user, i * N, nd.t_user, 0, N);
            copyf(fab_.t_sb, i * N * 8, nd.t_sb, 0, N * 8);
        }
    }
    void wire_in()
    {
        // cfg_t's fields, as in reset(): bit offsets from the least significant
        const auto &cf = fab_.c;
        for (int i = 0; i < N; i++) {
            MM_NODE_CLASS &nd = *node_[i];
            copyf(nd.r_valid_i, 0, fab_.r_valid, i * N, N);
            copyf(nd.r_data_i, 0, fab_.r_data, i * N * DW, N * DW);
            copyf(nd.r_last_i, 0, fab_.r_last, i * N, N);
            copyf(nd.r_bytes_i, 0, fab_.r_bytes, i * N * BWB, N * BWB);
            copyf(nd.r_user_i, 0, fab_.r_user, i * N, N);
            copyf(nd.r_sb_i, 0, fab_.r_sb, i * N * 8, N * 8);
            nd.eager_thr_i = getf(cf, 96, 32);
            nd.link_rate_i = getf(cf, 76, 20);
            nd.loop_rate_i = getf(cf, 40, 20);
            nd.rd_lat_i = (uint8_t)getf(cf, 16, 8);
            nd.wr_lat_i = (uint8_t)getf(cf, 8, 8);
            nd.pc_sel_i = (uint8_t)getf(cf, 0, 6);
            nd.nodes_i = fab_.nodes_q;
            copyf(nd.xy_i, 0, fab_.xy_q, 0, N * 8);
            copyf(nd.lane_ok_i, 0, fab_.link_on, i * N, N);
        }
    }
    // One cycle of mm_system: at the rising edge every model sees the others' outputs as they
    // were before it (no path crosses between the nodes and the fabric without a register); at
    // the falling edge the fabric's clock gates see the lanes as the edge left them (mm_cg).
    void tick()
    {
        wire_lanes_out();
        wire_in();
        edge(1);
        for (int i = 0; i < N; i++) {
            copyf(fab_.t_valid, i * N, node_[i]->t_valid, 0, N);
            copyf(fab_.t_sb, i * N * 8, node_[i]->t_sb, 0, N * 8);
        }
        edge(0);
    }
    // Every model evaluated at one clock edge: the models share nothing within an edge (their
    // inputs were copied before it; each node's DPI memory is its own), so with a second thread
    // the order does not matter and the cycles are the same.
    void edge(uint8_t clk)
    {
        fab_.clk = clk;
        for (auto &n : node_)
            n->clk = clk;
        if (!worker_.joinable()) {
            fab_.eval();
            for (auto &n : node_)
                n->eval();
            return;
        }
        core_ = mmrtl::current;
        const uint32_t g = go_.fetch_add(1) + 1;
        if (sleeping_.load()) {
            std::lock_guard<std::mutex> l(mu_);
            cv_.notify_one();
        }
        fab_.eval();
        for (int i = 0; i < split_; i++)
            node_[i]->eval();
        for (unsigned k = 0; done_.load(std::memory_order_acquire) != g; k++)
            relax(k);
    }
    static void relax(unsigned k)
    {
        if (k < 4096)
            __builtin_ia32_pause();
        else
            std::this_thread::yield(); // its thread was preempted (a loaded machine)
    }
    void work()
    {
        uint32_t seen = 0;
        for (;;) {
            uint32_t g;
            unsigned k = 0;
            while ((g = go_.load(std::memory_order_acquire)) == seen) {
                if (++k < 1u << 16) {
                    relax(k);
                    continue;
                }
                // nothing to do for a while (the host's own work between runs): sleep
                std::unique_lock<std::mutex> l(mu_);
                sleeping_.store(true);
                cv_.wait(l, [&] { return go_.load() != seen; });
                sleeping_.store(false);
            }
            seen = g;
            if (stop_.load())
                return;
            mmrtl::current = core_;
            for (int i = split_; i < N; i++)
                node_[i]->eval();
            done_.store(g, std::memory_order_release);
        }
    }
    VerilatedContext ctx_;
    MM_FABRIC_CLASS fab_;
    std::unique_ptr<MM_NODE_CLASS> node_[N];
    // the second thread (MM_RTL_THREADS=2): an edge's number in go_, done_ when its part is done
    std::thread worker_;
    int split_ = N;
    std::atomic<uint32_t> go_{0}, done_{0};
    std::atomic<bool> stop_{false}, sleeping_{false};
    std::mutex mu_;
    std::condition_variable cv_;
    mmrtl::Core *core_ = nullptr;
    bool trace_ = std::getenv("MM_RTL_TRACE") != nullptr;
    uint32_t last_dbg_[16][4] = {};
};

} // namespace

extern "C" mmrtl::Model *MM_MODEL_FACTORY()
{
    return new Impl();
}
