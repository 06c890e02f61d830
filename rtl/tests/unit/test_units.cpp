// Unit tests of the node engine's blocks, each on its own in mm_unit_tb.sv: every test drives a
// block's handshakes with random stalls (a seeded generator) and checks what comes out against
// what went in.
//   test_units [TEST...]   (no argument: all; each prints "ok: NAME")
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "Vunit.h"
#include "verilated.h"

namespace
{

[[noreturn]] void fail(const char *test, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fail(const char *test, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "FAIL %s: ", test);
    std::vfprintf(stderr, fmt, ap);
    std::fprintf(stderr, "\n");
    va_end(ap);
    std::exit(1);
}
#define EXPECT(c, ...)                                                                             \
    do {                                                                                           \
        if (!(c))                                                                                  \
            fail(name, __VA_ARGS__);                                                               \
    } while (0)

uint64_t rng_s = 12345;
uint64_t rng()
{
    uint64_t z = (rng_s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
bool coin(int pct)
{
    return (int)(rng() % 100) < pct;
}

// 64-bit lanes of wide ports
template <std::size_t W> void put64(VlWide<W> &v, int k, uint64_t x)
{
    v[2 * k] = (uint32_t)x;
    v[2 * k + 1] = (uint32_t)(x >> 32);
}
template <std::size_t W> uint64_t get64(const VlWide<W> &v, int k)
{
    return (uint64_t)v[2 * k] | ((uint64_t)v[2 * k + 1] << 32);
}
// AW = 20-bit fields packed in a wide port
template <std::size_t W> uint32_t field(const VlWide<W> &v, int lo, int bits)
{
    uint64_t x = 0;
    for (int b = 0; b < bits; b++)
        x |= (uint64_t)((v[(lo + b) / 32] >> ((lo + b) % 32)) & 1) << b;
    return (uint32_t)x;
}

struct Tb {
    VerilatedContext ctx;
    Vunit t{&ctx, "tb"};
    Tb()
    {
        t.rd_lat = 6;
        t.wr_lat = 4;
        t.pc_sel = 9;
        t.rate = 45 * 256;
        t.lat = 7;
        t.x_wsel = 0b11100100; // identity: W#k takes lane k
        t.rst = 1;
        for (int i = 0; i < 4; i++)
            tick();
        t.rst = 0;
        tick();
    }
    // the cycle's inputs are set; evaluate them, call f to sample the handshakes, then clock
    void tick()
    {
        t.clk = 0;
        t.eval();
        t.clk = 1;
        t.eval();
    }
    void settle()
    {
        t.clk = 0;
        t.eval();
    }
};

// ------------------------------------------------------------------ the memory channel
// W#n writes messages of random lengths with random gaps to random places, R#n reads them back
// with random stalls; both against a byte model, with the end-of-packet counts and overflow.
void channel()
{
    const char *name = "channel";
    Tb b;
    auto &t = b.t;
    std::vector<uint8_t> mem(32768, 0);
    for (int iter = 0; iter < 60; iter++) {
        const uint32_t addr = (uint32_t)(rng() % 3000) * 8;
        const uint32_t len = iter == 0 ? 0 : (uint32_t)(rng() % 400);
        const uint32_t cap = iter % 7 == 3 ? len / 2 : len + (uint32_t)(rng() % 64);
        std::vector<uint8_t> msg(len);
        for (auto &x : msg)
            x = (uint8_t)rng();
        // write
        t.w_start = 1;
        t.w_addr = addr;
        t.w_cap = cap;
        t.w_cnt_en = 1;
        t.w_cnt_addr = 30000;
        b.tick();
        t.w_start = 0;
        const uint32_t beats = len ? (len + 7) / 8 : 1;
        uint32_t k = 0, guard = 0;
        while (!t.w_done) {
            t.w_valid = k < beats && coin(70);
            uint64_t d = 0;
            for (int i = 0; i < 8 && 8 * k + i < len; i++)
                d |= (uint64_t)msg[8 * k + i] << (8 * i);
            t.w_data = d;
            t.w_last = k == beats - 1;
            t.w_bytes = k == beats - 1 ? (len - 8 * (beats - 1)) : 8;
            b.settle();
            const bool go = t.w_valid && t.w_ready;
            b.tick();
            if (go)
                k++;
            EXPECT(++guard < 10000, "write of %u bytes never finished", len);
        }
        t.w_valid = 0;
        const uint32_t kept = len <= cap ? len : (cap / 8) * 8; // whole beats that fit
        EXPECT(t.w_nbytes == len, "W reports %u bytes of %u", t.w_nbytes, len);
        EXPECT(t.w_err == (len > cap ? 1 : 0), "W err %u, len %u cap %u", t.w_err, len, cap);
        std::memcpy(&mem[addr], msg.data(), kept);
        std::memcpy(&mem[30000], &len, 4); // the received count, written last
        b.tick();
        // read back the bytes that were kept, with random stalls
        t.r_start = 1;
        t.r_addr = addr;
        t.r_len = kept;
        const uint64_t t0 = t.now;
        b.tick();
        t.r_start = 0;
        std::vector<uint8_t> got;
        bool first = true, last = false;
        guard = 0;
        while (!last) {
            t.r_ready = coin(75);
            b.settle();
            if (t.r_valid && t.r_ready) {
                if (first)
                    EXPECT(t.now - t0 >= 6,
                           "first beat %llu cycles after the start: under the read latency",
                           (unsigned long long)(t.now - t0));
                first = false;
                const uint64_t d = t.r_data;
                for (uint32_t i = 0; i < t.r_bytes; i++)
                    got.push_back((uint8_t)(d >> (8 * i)));
                last = t.r_last;
            }
            b.tick();
            EXPECT(++guard < 10000, "read of %u bytes never finished", kept);
        }
        EXPECT(got.size() == kept, "read %zu bytes of %u", got.size(), kept);
        EXPECT(std::memcmp(got.data(), &mem[addr], kept) == 0, "read back differs (addr %u len %u)",
               addr, kept);
        while (t.r_busy)
            b.tick();
    }
    // the count table: read the u32 the last write left
    t.r_start = 1;
    t.r_addr = 30000 & ~7u;
    t.r_len = 8;
    b.tick();
    t.r_start = 0;
    t.r_ready = 1;
    while (!t.r_valid)
        b.tick();
    b.settle();
    uint32_t cnt;
    std::memcpy(&cnt, &mem[30000], 4);
    EXPECT((uint32_t)(t.r_data >> (8 * (30000 % 8))) == cnt, "count table holds %u, not %u",
           (uint32_t)(t.r_data >> (8 * (30000 % 8))), cnt);
    std::printf("ok: %s\n", name);
}

// ------------------------------------------------------------------ the lane pair
// raw and active-message messages from A to B, B's consumers stalling at random: both arrive
// whole and in order, each on its own buffer; the sender never exceeds the rate, nor B's buffers
// (credits); pulses arrive once each; the link's latency is exact.
void lanes()
{
    const char *name = "lanes";
    Tb b;
    auto &t = b.t;
    struct Msg {
        bool user;
        std::vector<uint64_t> beats;
    };
    std::deque<Msg> todo;
    std::deque<uint64_t> want_raw, want_am;
    for (int i = 0; i < 80; i++) {
        Msg m{coin(30), {}};
        const int n = 1 + (int)(rng() % 12);
        for (int k = 0; k < n; k++)
            m.beats.push_back(rng());
        for (auto x : m.beats)
            (m.user ? want_am : want_raw).push_back(x);
        todo.push_back(m);
    }
    size_t k = 0;
    uint64_t cycles = 0, beats = 0;
    int guard = 0;
    while ((!want_raw.empty() || !want_am.empty())) {
        t.a_valid = !todo.empty() && coin(90);
        if (!todo.empty()) {
            t.a_user = todo.front().user;
            t.a_data = todo.front().beats[k];
            t.a_last = k + 1 == todo.front().beats.size();
        }
        t.b_ready = coin(60);
        t.b_aready = coin(60);
        b.settle();
        if (t.b_valid && t.b_ready) {
            EXPECT(!want_raw.empty() && t.b_data == want_raw.front(),
                   "raw beat out of order or wrong");
            want_raw.pop_front();
        }
        if (t.b_avalid && t.b_aready) {
            EXPECT(!want_am.empty() && t.b_adata == want_am.front(),
                   "active-message beat out of order or wrong");
            want_am.pop_front();
        }
        if (t.a_valid && t.a_ready && ++k == todo.front().beats.size()) {
            todo.pop_front();
            k = 0;
        }
        cycles++;
        beats += t.ab_beat;
        b.tick();
        EXPECT(++guard < 100000, "the lane stalled");
    }
    EXPECT((double)beats / (double)cycles <= 45.0 / 64 + 0.02,
           "%llu beats in %llu cycles: over the rate", (unsigned long long)beats,
           (unsigned long long)cycles);
    // credits: with B taking nothing, A gets 16 raw beats and 8 active-message beats through
    t.b_ready = 0;
    t.b_aready = 0;
    for (int user = 0; user < 2; user++) {
        int sent = 0;
        t.a_user = user;
        t.a_last = 0;
        for (int c = 0; c < 400; c++) {
            t.a_valid = 1;
            b.settle();
            sent += t.a_ready;
            b.tick();
        }
        EXPECT(sent == (user ? 8 : 16), "%d beats left with no credit back (buffer %d)", sent,
               user ? 8 : 16);
    }
    t.a_valid = 0;
    // drain, then the full rate: a beat per 64/45 cycles
    t.b_ready = 1;
    t.b_aready = 1;
    for (int c = 0; c < 200; c++)
        b.tick();
    t.a_valid = 1;
    t.a_user = 0;
    beats = 0;
    for (int c = 0; c < 2000; c++) {
        b.settle();
        beats += t.ab_beat;
        b.tick();
    }
    EXPECT(beats > 2000 * 45 / 64 - 5 && beats <= 2000 * 45 / 64 + 2,
           "%llu beats in 2000 cycles at 45 of 64 bits a cycle", (unsigned long long)beats);
    t.a_valid = 0;
    for (int c = 0; c < 200; c++)
        b.tick();
    // pulses: 5 barrier pulses and 3 ready pulses in a row, each seen once, after the latency
    int bars = 0, rdys = 0;
    const uint64_t t0 = t.now;
    uint64_t first = 0;
    for (int c = 0; c < 60; c++) {
        t.a_bar = c < 5;
        t.a_rdy = c < 3;
        b.settle();
        t.b_bar_take = t.b_bar_avail;
        t.b_rdy_take = t.b_rdy_avail;
        b.settle();
        if (t.b_bar_take && !first)
            first = t.now;
        bars += t.b_bar_take;
        rdys += t.b_rdy_take;
        b.tick();
    }
    t.b_bar_take = 0;
    t.b_rdy_take = 0;
    EXPECT(bars == 5 && rdys == 3, "%d barrier and %d ready pulses arrived, of 5 and 3", bars,
           rdys);
    EXPECT(first - t0 >= 7, "a pulse arrived %llu cycles after it was sent, under the latency",
           (unsigned long long)(first - t0));
    std::printf("ok: %s\n", name);
}

// ------------------------------------------------------------------ distributor and selectors
void switches()
{
    const char *name = "switches";
    Tb b;
    auto &t = b.t;
    // a broadcast: source lane 2's message to lanes 0, 1, 3, each stalling on its own
    t.d_src = 2;
    t.d_mask = 0b1011;
    t.d_use = 0b1011;
    std::vector<uint64_t> msg;
    for (int i = 0; i < 20; i++)
        msg.push_back(rng());
    size_t k = 0;
    std::vector<size_t> got(4, 0);
    int guard = 0;
    while (got[0] < msg.size() || got[1] < msg.size() || got[3] < msg.size()) {
        t.s_valid = k < msg.size() && coin(80) ? 0b0100 : 0;
        put64(t.s_data, 2, k < msg.size() ? msg[k] : 0);
        t.s_last = k + 1 == msg.size() ? 0b0100 : 0;
        t.o_ready = (uint8_t)(rng() & 0xf);
        b.settle();
        for (int l = 0; l < 4; l++)
            if ((t.o_valid >> l) & (t.o_ready >> l) & 1) {
                EXPECT(l != 2, "the source's own lane got the broadcast");
                EXPECT(get64(t.o_data, l) == msg[got[l]], "lane %d beat %zu wrong", l, got[l]);
                got[l]++;
            }
        if ((t.s_valid & t.s_ready) & 0b0100)
            k++;
        b.tick();
        EXPECT(++guard < 10000, "the broadcast stalled");
    }
    t.s_valid = 0;
    // direct, with an active message interleaved at message boundaries only
    t.d_mask = 0;
    t.d_use = 0;
    int raw_beats = 0, am_beats = 0, in_msg = -1;
    size_t rk = 0, ak = 0;
    guard = 0;
    while (raw_beats < 30 || am_beats < 12) {
        t.s_valid = rk < 30 && coin(70) ? 0b0001 : 0;
        put64(t.s_data, 0, 1000 + rk);
        t.s_last = (rk % 10 == 9) ? 1 : 0;
        t.am_valid = ak < 12 && coin(50) ? 0b0001 : 0;
        put64(t.am_data, 0, 5000 + ak);
        t.am_last = (ak % 4 == 3) ? 1 : 0;
        t.o_ready = coin(70) ? 1 : 0;
        b.settle();
        if (t.o_valid & t.o_ready & 1) {
            const int u = t.o_user & 1;
            EXPECT(in_msg < 0 || in_msg == u, "a message was interleaved with another");
            const uint64_t d = get64(t.o_data, 0);
            if (u) {
                EXPECT(d == 5000 + (uint64_t)am_beats, "active-message beat wrong");
                am_beats++;
            } else {
                EXPECT(d == 1000 + (uint64_t)raw_beats, "raw beat wrong");
                raw_beats++;
            }
            in_msg = (t.o_last & 1) ? -1 : u;
        }
        if (t.s_valid & t.s_ready & 1)
            rk++;
        if (t.am_valid & t.am_ready & 1)
            ak++;
        b.tick();
        EXPECT(++guard < 10000, "the selector stalled");
    }
    t.s_valid = 0;
    t.am_valid = 0;
    std::printf("ok: %s\n", name);
}

// ------------------------------------------------------------------ N x N switch and core
void xbar_core()
{
    const char *name = "xbar_core";
    Tb b;
    auto &t = b.t;
    // W#k takes lane perm[k]
    const int perm[4] = {2, 0, 3, 1};
    t.x_wsel = (uint8_t)(perm[0] | perm[1] << 2 | perm[2] << 4 | perm[3] << 6);
    std::vector<uint64_t> cnt(4, 0), sent(4, 0);
    int guard = 0;
    while (cnt[0] < 20 || cnt[1] < 20 || cnt[2] < 20 || cnt[3] < 20) {
        uint8_t v = 0;
        for (int l = 0; l < 4; l++) {
            if (sent[l] < 20 && coin(70))
                v |= (uint8_t)(1 << l);
            put64(t.x_data, l, (uint64_t)l << 32 | sent[l]);
        }
        t.x_valid = v;
        t.x_last = 0;
        t.xw_ready = (uint8_t)(rng() & 0xf);
        b.settle();
        for (int k = 0; k < 4; k++)
            if ((t.xw_valid >> k) & (t.xw_ready >> k) & 1) {
                const uint64_t d = get64(t.xw_data, k);
                EXPECT((int)(d >> 32) == perm[k] && (d & 0xffffffff) == cnt[k],
                       "W#%d got lane %d beat %llu", k, (int)(d >> 32),
                       (unsigned long long)(d & 0xffffffff));
                cnt[k]++;
            }
        for (int l = 0; l < 4; l++)
            if ((t.x_valid & t.x_ready) >> l & 1)
                sent[l]++;
        b.tick();
        EXPECT(++guard < 10000, "the switch stalled");
    }
    t.x_valid = 0;
    t.x_wsel = 0b11100100;
    // active messages: lanes 1 and 3 both hold one; the engine gets one whole, then the other
    int taken = 0, lane = -1;
    guard = 0;
    uint8_t left = 0b1010;
    int beats[4] = {0, 0, 0, 0};
    while (left) {
        t.xa_valid = left;
        t.xa_last = 0;
        for (int l = 0; l < 4; l++)
            if (beats[l] == 2)
                t.xa_last |= (uint8_t)(1 << l);
        t.xam_ready = coin(70);
        b.settle();
        if (t.xam_valid && t.xam_ready) {
            EXPECT(lane < 0 || lane == t.xam_lane, "packets from two lanes interleaved");
            lane = t.xam_lane;
            if (beats[lane]++ == 2) {
                left &= (uint8_t) ~(1 << lane);
                lane = -1;
                taken++;
            }
        }
        b.tick();
        EXPECT(++guard < 1000, "the active-message arbiter stalled");
    }
    t.xa_valid = 0;
    EXPECT(taken == 2, "%d packets", taken);
    // the core: every lane's beats summed in 32-bit lanes, averaged by 4, into W#1
    t.x_to_core = 0b1111;
    t.x_core_w_en = 1;
    t.x_core_w = 1;
    t.c_start = 1;
    t.c_mask = 0b1111;
    t.c_shift = 2;
    b.tick();
    t.c_start = 0;
    std::vector<uint64_t> lanes_data[4];
    for (int l = 0; l < 4; l++)
        for (int k = 0; k < 8; k++)
            lanes_data[l].push_back(rng() & 0x00ffffff00ffffffull);
    size_t s[4] = {0, 0, 0, 0}, out = 0;
    guard = 0;
    while (out < 8) {
        uint8_t v = 0;
        for (int l = 0; l < 4; l++) {
            if (s[l] < 8 && coin(60))
                v |= (uint8_t)(1 << l);
            put64(t.x_data, l, s[l] < 8 ? lanes_data[l][s[l]] : 0);
            if (s[l] == 7)
                t.x_last |= (uint8_t)(1 << l);
            else
                t.x_last &= (uint8_t) ~(1 << l);
        }
        t.x_valid = v;
        t.xw_ready = coin(70) ? 0b0010 : 0;
        b.settle();
        if ((t.xw_valid & t.xw_ready) & 0b0010) {
            uint64_t want = 0;
            for (int h = 0; h < 2; h++) {
                uint32_t sum = 0;
                for (int l = 0; l < 4; l++)
                    sum += (uint32_t)(lanes_data[l][out] >> (32 * h));
                want |= (uint64_t)(uint32_t)((int32_t)sum >> 2) << (32 * h);
            }
            EXPECT(get64(t.xw_data, 1) == want, "core sum %zu wrong", out);
            out++;
        }
        for (int l = 0; l < 4; l++)
            if ((t.x_valid & t.x_ready) >> l & 1)
                s[l]++;
        b.tick();
        EXPECT(++guard < 10000, "the core stalled");
    }
    t.x_valid = 0;
    for (int c = 0; c < 4; c++)
        b.tick();
    EXPECT(!t.c_busy && !t.c_err, "core busy %d err %d after its last sum", t.c_busy, t.c_err);
    std::printf("ok: %s\n", name);
}

// ------------------------------------------------------------------ host interface
void host()
{
    const char *name = "host";
    Tb b;
    auto &t = b.t;
    auto wr = [&](uint32_t a, uint32_t d) {
        t.h_awvalid = 1;
        t.h_wvalid = 1;
        t.h_awaddr = a;
        t.h_wdata = d;
        b.settle();
        EXPECT(t.h_awready, "a write was not taken at once");
        b.tick();
        t.h_awvalid = 0;
        t.h_wvalid = 0;
    };
    auto rd = [&](uint32_t a) {
        t.h_arvalid = 1;
        t.h_araddr = a;
        b.tick();
        t.h_arvalid = 0;
        EXPECT(t.h_rvalid, "a read was not answered in the next cycle");
        return (uint32_t)t.h_rdata;
    };
    EXPECT(rd(0x000) == 0x4F505457u, "ID register");
    EXPECT(rd(0x004) == (8u << 16 | 3u), "NODE register");
    EXPECT((rd(0x008) & 0xff) == 16, "16 free descriptor slots");
    // 17 descriptors without taking any: 16 fit, the 17th sets the sticky bit
    t.h_take = 0;
    for (int i = 0; i < 17; i++) {
        for (int w = 0; w < 16; w++)
            wr(0x040 + 4 * w, (uint32_t)(i * 100 + w));
        wr(0x080, 1);
    }
    const uint32_t st = rd(0x008);
    EXPECT((st & 0xff) == 0 && (st >> 16 & 1), "full queue: status 0x%x", st);
    EXPECT(rd(0x040 + 4 * 5) == 1605, "staging register read back");
    // take them: each completes in order; read and pop each completion
    t.h_take = 1;
    for (int i = 0; i < 16; i++) {
        int guard = 0;
        while (!t.h_irq) {
            b.tick();
            EXPECT(++guard < 100, "no completion");
        }
        uint32_t w[8];
        for (int k = 0; k < 8; k++)
            w[k] = rd(0x0C0 + 4 * k);
        EXPECT(w[0] == (uint32_t)(i * 100 + 1), "completion %d: id %u", i, w[0]);
        EXPECT((w[1] >> 8 & 0xff) == (uint32_t)((i * 100) & 0xff), "completion %d: op", i);
        uint64_t sum = 0;
        for (int k = 2; k < 16; k += 2)
            sum += ((uint64_t)(i * 100 + k + 1) << 32) + (uint64_t)(i * 100 + k);
        EXPECT(((uint64_t)w[7] << 32 | w[6]) == sum, "completion %d: the descriptor's words", i);
        EXPECT(((uint64_t)w[5] << 32 | w[4]) >= ((uint64_t)w[3] << 32 | w[2]), "end before start");
        wr(0x0E0, 1);
    }
    b.tick();
    b.tick();
    EXPECT(!t.h_irq, "a completion was left over");
    EXPECT(rd(0x100) == 5 && rd(0x104) == 6, "status registers");
    std::printf("ok: %s\n", name);
}

// ------------------------------------------------------------------ M_DMAC
void mdmac()
{
    const char *name = "mdmac";
    Tb b;
    auto &t = b.t;
    const uint32_t base = 0x1000, stride = 0x140;
    const int pos[4] = {2, 0, 3, 1};
    t.m_pvalid = 1;
    t.m_pos = (uint16_t)(pos[0] | pos[1] << 4 | pos[2] << 8 | pos[3] << 12);
    t.m_rmask = 0b1111;
    t.m_wmask = 0b0110;
    t.m_rwait = 0b1010;
    t.m_rdist = 0;
    t.m_base = base;
    t.m_stride = stride;
    t.m_rdy_avail = 0;
    b.tick();
    t.m_pvalid = 0;
    b.settle();
    EXPECT(t.m_rstart == 0b0101, "read sections without a wait start at once (0x%x)", t.m_rstart);
    EXPECT(t.m_wstart == 0b0110, "write sections start at once (0x%x)", t.m_wstart);
    for (int c = 0; c < 4; c++) {
        EXPECT(field(t.m_raddr, 20 * c, 20) == base + pos[c] * stride, "R#%d address", c);
        if ((0b0110 >> c) & 1)
            EXPECT(field(t.m_waddr, 20 * c, 20) == base + 0x10000 + pos[c] * stride, "W#%d address",
                   c);
    }
    b.tick();
    for (int c = 0; c < 5; c++) {
        b.settle();
        EXPECT(t.m_rstart == 0, "a section started without its pulse");
        b.tick();
    }
    t.m_rdy_avail = 0b1000;
    b.settle();
    EXPECT(t.m_rstart == 0b1000 && t.m_rdy_take == 0b1000, "R#3 starts on its pulse and takes it");
    b.tick();
    t.m_rdy_avail = 0b0010;
    b.settle();
    EXPECT(t.m_rstart == 0b0010 && t.m_rdy_take == 0b0010, "R#1 starts on its pulse");
    b.tick();
    t.m_rdy_avail = 0;
    // the distributor's section waits for every lane of its set
    t.m_pvalid = 1;
    t.m_rmask = 0b0001;
    t.m_wmask = 0;
    t.m_rwait = 0b1110;
    t.m_rdist = 1;
    b.tick();
    t.m_pvalid = 0;
    t.m_rdy_avail = 0b0110;
    b.settle();
    EXPECT(t.m_rstart == 0, "started before every pulse of its set");
    b.tick();
    t.m_rdy_avail = 0b1110;
    b.settle();
    EXPECT(t.m_rstart == 1 && t.m_rdy_take == 0b1110, "starts on the last pulse and takes all");
    b.tick();
    std::printf("ok: %s\n", name);
}

} // namespace

int main(int argc, char **argv)
{
    struct {
        const char *name;
        void (*fn)();
    } tests[] = {{"channel", channel},     {"lanes", lanes}, {"switches", switches},
                 {"xbar_core", xbar_core}, {"host", host},   {"mdmac", mdmac}};
    for (auto &x : tests) {
        bool want = argc < 2;
        for (int i = 1; i < argc; i++)
            want = want || !std::strcmp(argv[i], x.name);
        if (want)
            x.fn();
    }
    return 0;
}
