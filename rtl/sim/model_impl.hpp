// The per-cycle loop of one Verilated model (included by a file per model, which defines
// MM_MODEL_CLASS, MM_MODEL_HEADER, MM_MODEL_FACTORY). docs/rtl.md, "The simulator library".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "model.hpp"
#include "verilated.h"
#include MM_MODEL_HEADER

namespace
{

using mmrtl::Core;

// Vector ports are an integer or a VlWide depending on their width: one accessor for both.
template <typename T> inline void set32(T &v, int i, uint32_t x)
{
    v = (T)((v & ~((T)0xffffffffu << (32 * i))) | ((T)x << (32 * i)));
}
template <std::size_t W> inline void set32(VlWide<W> &v, int i, uint32_t x)
{
    v[i] = x;
}
template <typename T> inline uint32_t get32(const T &v, int i)
{
    return (uint32_t)(v >> (32 * i));
}
template <std::size_t W> inline uint32_t get32(const VlWide<W> &v, int i)
{
    return v[i];
}
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

class Impl final : public mmrtl::Model
{
    // the type of a port with a bit per node
    using bits_t = std::remove_reference_t<decltype(std::declval<MM_MODEL_CLASS &>().s_awvalid)>;

  public:
    Impl() : ctx_(), top_(&ctx_, "sys")
    {
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
        return top_.now;
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
            top_.cfg[i] = (uint32_t)(v >> (32 * i));
        top_.nodes = (uint8_t)g.nodes;
        top_.ghc = (uint8_t)g.ghc;
        top_.gate = (uint8_t)g.clock_gating;
        zero(top_.xy);
        for (int i = 0; i < g.nodes; i++)
            set8(top_.xy, i, (uint8_t)(((i / g.kx) << 4) | (i % g.kx)));
        top_.skip = 0;
        top_.s_awvalid = 0;
        top_.s_wvalid = 0;
        top_.s_arvalid = 0;
        top_.s_bready = (bits_t)~0u;
        top_.s_rready = (bits_t)~0u;
        top_.rst = 1;
        for (int i = 0; i < 3; i++)
            tick();
        top_.rst = 0;
        tick();
        // the cycle counter starts at 0 with the system out of reset
        top_.skip = 1;
        top_.skip_to = 0;
        tick();
        top_.skip = 0;
    }

    void debug_words(int node, uint32_t out[4]) const override
    {
        for (int k = 0; k < 4; k++)
            out[k] = get32(top_.dbg, node * 4 + k);
    }

    int run(Core &c, uint64_t until, bool stop) override
    {
        mmrtl::current = &c;
        const int n = c.cfg.nodes;
        for (;;) {
            const uint64_t t = top_.now;
            if (t >= until)
                return MM_RTLSIM_CYCLE;
            if (stop && c.new_cqes)
                return MM_RTLSIM_COMPLETION;
            // the hosts' AXI4-Lite signals for this cycle (both channels always accepted:
            // B and R ready are held high, mm_host_if takes a write or read every cycle)
            bool any = false;
            bits_t aw = 0, ar = 0;
            for (int i = 0; i < n; i++) {
                mmrtl::Host &h = c.host[i];
                if (!h.busy() && !(irq_bit(i) && h.cq_rd_issued < 0))
                    continue;
                any = true;
                if (irq_bit(i))
                    mmrtl::host_irq(c, i);
                bool w = false, r = false;
                uint32_t wa = 0, wd = 0, ra = 0;
                mmrtl::host_drive(c, i, w, wa, wd, r, ra);
                if (w) {
                    aw |= (bits_t)(1u << i);
                    set32(top_.s_awaddr, i, wa);
                    set32(top_.s_wdata, i, wd);
                }
                if (r) {
                    ar |= (bits_t)(1u << i);
                    set32(top_.s_araddr, i, ra);
                }
                if (trace_ && (w || r))
                    std::fprintf(stderr, "[%llu] node %d:%s%s\n", (unsigned long long)t, i,
                                 w ? (" W " + std::to_string(wa) + "=" + std::to_string(wd)).c_str()
                                   : "",
                                 r ? (" R " + std::to_string(ra)).c_str() : "");
            }
            top_.s_awvalid = aw;
            top_.s_wvalid = aw;
            top_.s_arvalid = ar;
            // nothing moves: jump to the next due time, or stop
            if (!any && !top_.act) {
                const uint64_t w = top_.wake;
                if (w == ~0ull) {
                    if (c.pending) {
                        mmrtl::stall_report(c, *this, "nothing can move");
                        return MM_RTLSIM_STALLED;
                    }
                    return MM_RTLSIM_IDLE;
                }
                const uint64_t to = w < until ? w : until;
                if (!c.no_skip && to > t + 1) {
                    top_.skip = 1;
                    top_.skip_to = to;
                    tick();
                    top_.skip = 0;
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
                                     (unsigned long long)top_.now, i, d[0], d[1], d[2], d[3],
                                     (int)top_.act, (unsigned long long)top_.wake);
                        std::memcpy(last_dbg_[i], d, sizeof d);
                    }
                }
            // reads answer one cycle after they are accepted
            const auto rv = top_.s_rvalid;
            if (rv)
                for (int i = 0; i < n; i++)
                    if ((rv >> i) & 1)
                        mmrtl::host_read(c, i, get32(top_.s_rdata, i));
            if (c.pending && top_.now - c.last_progress > c.watchdog) {
                mmrtl::stall_report(c, *this, "no completion for the watchdog's cycles");
                return MM_RTLSIM_STALLED;
            }
        }
    }

  private:
    bool irq_bit(int i) const
    {
        return (top_.irq >> i) & 1;
    }
    void tick()
    {
        top_.clk = 1;
        top_.eval();
        top_.clk = 0;
        top_.eval();
    }
    VerilatedContext ctx_;
    MM_MODEL_CLASS top_;
    bool trace_ = std::getenv("MM_RTL_TRACE") != nullptr;
    uint32_t last_dbg_[16][4] = {};
};

} // namespace

extern "C" mmrtl::Model *MM_MODEL_FACTORY()
{
    return new Impl();
}
