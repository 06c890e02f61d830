// The simulator library (mm_rtlsim.h): host drivers, node memories, the watchdog's report, and
// the C API over the Verilated models (model_impl.hpp).
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>

#include "model.hpp"
#include "svdpi.h"

namespace mmrtl
{

thread_local Core *current = nullptr;

static bool expects_cqe(const mm_rtl_desc &d)
{
    const bool one_sided = d.op == MM_RTL_OP_PUT || d.op == MM_RTL_OP_GET ||
                           d.op == MM_RTL_OP_AMO || d.op == MM_RTL_OP_PUT_SIGNAL;
    return !(one_sided && (d.flags & MM_RTL_F_NOCQ));
}

// This cycle's AXI4-Lite write (a staging word, the doorbell or CQ_POP) and read (a completion
// word or STATUS) of node @p i's host.
void host_drive(Core &c, int i, bool &aw, uint32_t &awaddr, uint32_t &wdata, bool &ar,
                uint32_t &araddr)
{
    Host &h = c.host[i];
    // read channel: the completion's words, else STATUS when the queue looked full
    if (h.cq_rd_issued >= 0 && h.cq_rd_issued < 8) {
        ar = true;
        araddr = MM_RTL_REG_CQE + 4 * h.cq_rd_issued;
        h.reads.push_back(h.cq_rd_issued++);
    } else if (h.word < 0 && !h.descs.empty() && h.dq_free == 0 && !h.status_wait) {
        ar = true;
        araddr = MM_RTL_REG_STATUS;
        h.reads.push_back(8);
        h.status_wait = true;
    }
    // write channel: the pop first (the completion has been read), else the descriptor
    if (h.cq_pop) {
        aw = true;
        awaddr = MM_RTL_REG_CQ_POP;
        wdata = 1;
        h.cq_pop = false;
        h.cq_rd_issued = -1;
        return;
    }
    if (h.word < 0) {
        if (h.descs.empty() || h.dq_free == 0)
            return;
        h.word = 0;
    }
    const uint32_t *w = reinterpret_cast<const uint32_t *>(&h.descs.front());
    while (h.word < 16 && w[h.word] == h.shadow[h.word])
        h.word++;
    aw = true;
    if (h.word < 16) {
        awaddr = MM_RTL_REG_DESC + 4 * h.word;
        wdata = w[h.word];
        h.shadow[h.word] = w[h.word];
        h.word++;
        return;
    }
    awaddr = MM_RTL_REG_DOORBELL;
    wdata = 1;
    if (expects_cqe(h.descs.front()))
        c.pending++;
    h.descs.pop_front();
    h.dq_free--;
    h.word = -1;
}

void host_read(Core &c, int i, uint32_t data)
{
    Host &h = c.host[i];
    if (h.reads.empty())
        return;
    const int k = h.reads.front();
    h.reads.pop_front();
    if (k == 8) {
        h.dq_free = data & 0xff;
        h.status_wait = false;
        return;
    }
    h.cqw[k] = data;
    if (++h.cq_rd_got == 8) {
        mm_rtl_cqe e;
        static_assert(sizeof e == sizeof h.cqw, "a completion is 8 words");
        std::memcpy(&e, h.cqw, sizeof e);
        h.done.push_back(e);
        h.cq_rd_got = 0;
        h.cq_pop = true;
        c.new_cqes++;
        c.stats.completions++;
        if (c.pending)
            c.pending--;
        c.last_progress = e.end;
    }
}

void host_irq(Core &c, int i)
{
    Host &h = c.host[i];
    if (h.cq_rd_issued < 0 && !h.cq_pop) {
        h.cq_rd_issued = 0;
        h.cq_rd_got = 0;
    }
}

static const char *op_name(unsigned op)
{
    switch (op) {
    case MM_RTL_OP_NOP: return "NOP";
    case MM_RTL_OP_SEND: return "SEND";
    case MM_RTL_OP_RECV: return "RECV";
    case MM_RTL_OP_BARRIER: return "BARRIER";
    case MM_RTL_OP_BCAST: return "BCAST";
    case MM_RTL_OP_SCATTER: return "SCATTER";
    case MM_RTL_OP_GATHER: return "GATHER";
    case MM_RTL_OP_ALLGATHER: return "ALLGATHER";
    case MM_RTL_OP_ALLTOALL: return "ALLTOALL";
    case MM_RTL_OP_ALLTOALLV: return "ALLTOALLV";
    case MM_RTL_OP_REDUCE_SCATTER: return "REDUCE_SCATTER";
    case MM_RTL_OP_PUT: return "PUT";
    case MM_RTL_OP_GET: return "GET";
    case MM_RTL_OP_AMO: return "AMO";
    case MM_RTL_OP_PUT_SIGNAL: return "PUT_SIGNAL";
    case MM_RTL_OP_QUIET: return "QUIET";
    default: return "unknown opcode";
    }
}

// what each node waits for, from its debug word (mm_node's dbg)
void stall_report(Core &c, const Model &m, const char *why)
{
    static const char *wait_name[] = {"nothing",
                                      "a fence: earlier descriptors to complete",
                                      "a free slot",
                                      "a read section (R#n) still busy",
                                      "a write section (W#n) still busy",
                                      "a lane, the distributor or the data core in use",
                                      "",
                                      "the one-sided engine"};
    std::ostringstream o;
    o << "stalled at cycle " << m.now() << ": " << why << "; " << c.pending
      << " descriptor(s) without completion\n";
    for (int i = 0; i < c.nodes; i++) {
        uint32_t d[4];
        m.debug_words(i, d);
        const unsigned code = d[0] & 0xf, slots = d[0] >> 16, rx_stall = d[1] & 0xffff,
                       wr_run = d[1] >> 16, rd_run = d[2] & 0xffff, r_wait = d[2] >> 16,
                       no_credit = d[3] & 0xffff;
        const Host &h = c.host[i];
        if (std::getenv("MM_RTL_DEBUG"))
            o << "  (node " << i << " debug words " << std::hex << d[0] << " " << d[1] << " "
              << d[2] << " " << d[3] << std::dec << ")\n";
        if (!code && !slots && !rx_stall && !wr_run && !rd_run && !no_credit && !h.busy())
            continue;
        o << "node " << i << ":";
        if (code)
            o << " the sequencer's next descriptor waits for " << wait_name[code & 7] << ";";
        if (slots)
            o << " descriptors in flight (slots 0x" << std::hex << slots << std::dec
              << ", the oldest a " << op_name((d[0] >> 4) & 0xff) << ");";
        for (int k = 0; k < 16; k++) {
            const unsigned b = 1u << k;
            if (r_wait & b)
                o << " R#" << k << " waits for node " << k << "'s ready pulse (rendezvous);";
            else if (rd_run & b)
                o << " R#" << k << " streams toward node " << k << ";";
            if (no_credit & b)
                o << " lane " << k << " has no credit: node " << k << "'s receive buffer is full;";
            if (wr_run & b)
                o << " W#" << k << " waits for data from node " << k << ";";
            if (rx_stall & b)
                o << " lane " << k
                  << "'s receive buffer head waits: no write section takes it (no RECV posted?);";
        }
        if (!h.descs.empty())
            o << " " << h.descs.size() << " descriptor(s) not yet written (queue full?);";
        o << "\n";
    }
    c.report = o.str();
}

} // namespace mmrtl

using namespace mmrtl;

// ------------------------------------------------------------------ the node memories (DPI)
extern "C" int mm_mem_rd(int node, long long addr, int bytes, svBitVecVal *data)
{
    Memory &m = current->mem[node];
    const uint64_t a = (uint64_t)addr;
    if (a + (uint64_t)bytes > m.size || a + (uint64_t)bytes < a) {
        std::memset(data, 0, (size_t)bytes);
        return 1;
    }
    std::memcpy(data, m.base + a, (size_t)bytes);
    return 0;
}

extern "C" int mm_mem_wr(int node, long long addr, int bytes, const svBitVecVal *data,
                         const svBitVecVal *strb)
{
    Memory &m = current->mem[node];
    const uint64_t a = (uint64_t)addr;
    if (a + (uint64_t)bytes > m.size || a + (uint64_t)bytes < a)
        return 1;
    const uint32_t s = strb[0];
    const uint32_t all = bytes >= 32 ? 0xffffffffu : ((1u << bytes) - 1);
    if ((s & all) == all) {
        std::memcpy(m.base + a, data, (size_t)bytes);
        return 0;
    }
    const uint8_t *src = reinterpret_cast<const uint8_t *>(data);
    for (int k = 0; k < bytes; k++)
        if ((s >> k) & 1)
            m.base[a + k] = src[k];
    return 0;
}

// ------------------------------------------------------------------ the C API
struct mm_rtlsim {
    Core core;
    std::unique_ptr<Model> model;
    const ModelInfo *info = nullptr;
};

extern "C" mm_rtlsim *mm_rtlsim_create(const char *config, const char *overrides, char *err,
                                       size_t errlen)
{
    char e[512] = "";
    std::unique_ptr<mm_rtlsim> s(new mm_rtlsim());
    if (!config) {
        if (err)
            std::snprintf(err, errlen, "no configuration file given");
        return nullptr;
    }
    if (mm_rtl_config_load(config, overrides, &s->core.cfg, e, sizeof e)) {
        if (err)
            std::snprintf(err, errlen, "%s", e);
        return nullptr;
    }
    const mm_rtl_config &g = s->core.cfg;
    for (int i = 0; i < n_models; i++) {
        const ModelInfo &mi = models[i];
        if (g.model[0] ? !std::strcmp(g.model, mi.name)
                       : (mi.width == g.width && mi.lanes >= g.nodes &&
                          (!s->info || mi.lanes < s->info->lanes)))
            s->info = &mi;
    }
    if (!s->info || s->info->lanes < g.nodes || s->info->width != g.width) {
        if (err)
            std::snprintf(
                err, errlen, "%s: no model built for %d nodes of %d-bit lanes%s%s (built: %s)",
                config, g.nodes, g.width, g.model[0] ? " named " : "", g.model, mm_rtlsim_models());
        return nullptr;
    }
    Core &c = s->core;
    c.nodes = g.nodes;
    c.host.resize(g.nodes);
    c.mem.resize(g.nodes);
    for (auto &m : c.mem) {
        m.own.assign(g.memory_bytes, 0);
        m.base = m.own.data();
        m.size = g.memory_bytes;
    }
    std::ostringstream d;
    d << "model = " << s->info->name << " (" << s->info->lanes << " lanes of " << s->info->width
      << " bits)\nfabric = " << g.fabric << "\nnodes = " << g.nodes
      << "\ntopology = " << (g.ghc ? "ghc" : "full_mesh");
    if (g.ghc)
        d << " " << g.kx << "x" << g.ky;
    d << "\nclock_mhz = " << g.clock_mhz << "\nlink_gbps = " << g.link_gbps
      << "\nlink_bits_per_cycle = " << g.link_rate_q8 / 256.0
      << "\nlink_latency_cycles = " << g.link_lat << "\nloopback_latency_cycles = " << g.loop_lat
      << "\nhbm_read_latency_cycles = " << g.rd_lat << "\nhbm_write_latency_cycles = " << g.wr_lat
      << "\neager_threshold_bytes = " << g.eager_thr << "\npc_select_bit = " << g.pc_sel
      << "\nmemory_bytes = " << g.memory_bytes << "\nclock_gating = " << g.clock_gating << "\n";
    c.describe = d.str();
    s->model.reset(s->info->make());
    current = &c;
    s->model->reset(c);
    return s.release();
}

extern "C" void mm_rtlsim_destroy(mm_rtlsim *s)
{
    delete s;
}
extern "C" int mm_rtlsim_nodes(const mm_rtlsim *s)
{
    return s->core.nodes;
}
extern "C" double mm_rtlsim_clock_mhz(const mm_rtlsim *s)
{
    return s->core.cfg.clock_mhz;
}
extern "C" const char *mm_rtlsim_describe(const mm_rtlsim *s)
{
    return s->core.describe.c_str();
}

extern "C" int mm_rtlsim_attach_memory(mm_rtlsim *s, int node, void *base, uint64_t size)
{
    if (node < 0 || node >= s->core.nodes || (!base && size))
        return -1;
    Memory &m = s->core.mem[node];
    m.own.clear();
    m.own.shrink_to_fit();
    m.base = static_cast<uint8_t *>(base);
    m.size = size;
    return 0;
}

extern "C" void *mm_rtlsim_memory(mm_rtlsim *s, int node, uint64_t *size)
{
    if (node < 0 || node >= s->core.nodes)
        return nullptr;
    if (size)
        *size = s->core.mem[node].size;
    return s->core.mem[node].base;
}

extern "C" int mm_rtlsim_submit(mm_rtlsim *s, int node, const mm_rtl_desc *d)
{
    if (node < 0 || node >= s->core.nodes || !d)
        return -1;
    s->core.host[node].descs.push_back(*d);
    if (!s->core.pending)
        s->core.last_progress = s->model->now();
    return 0;
}

extern "C" int mm_rtlsim_run(mm_rtlsim *s, uint64_t until, int stop_on_completion)
{
    s->core.new_cqes = 0;
    s->core.report.clear();
    return s->model->run(s->core, until, stop_on_completion != 0);
}

extern "C" int mm_rtlsim_poll(mm_rtlsim *s, int node, mm_rtl_cqe *out)
{
    if (node < 0 || node >= s->core.nodes)
        return 0;
    auto &q = s->core.host[node].done;
    if (q.empty())
        return 0;
    if (out)
        *out = q.front();
    q.pop_front();
    return 1;
}

extern "C" uint64_t mm_rtlsim_cycle(const mm_rtlsim *s)
{
    return s->model->now();
}
extern "C" uint64_t mm_rtlsim_pending(const mm_rtlsim *s)
{
    uint64_t n = s->core.pending;
    for (const Host &h : s->core.host)
        for (const mm_rtl_desc &d : h.descs)
            n += expects_cqe(d);
    return n;
}
extern "C" const char *mm_rtlsim_report(mm_rtlsim *s)
{
    return s->core.report.c_str();
}
extern "C" void mm_rtlsim_set_watchdog(mm_rtlsim *s, uint64_t cycles)
{
    s->core.watchdog = cycles;
}
extern "C" void mm_rtlsim_set_no_skip(mm_rtlsim *s, int no_skip)
{
    s->core.no_skip = no_skip != 0;
}
extern "C" void mm_rtlsim_get_stats(const mm_rtlsim *s, mm_rtlsim_stats *out)
{
    *out = s->core.stats;
}

extern "C" const char *mm_rtlsim_models(void)
{
    static std::string list;
    if (list.empty())
        for (int i = 0; i < n_models; i++)
            list += std::string(i ? ", " : "") + models[i].name;
    return list.c_str();
}
