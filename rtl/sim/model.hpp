// The simulator's core (rtlsim.cpp) and the Verilated models it drives. Each model is one build
// of rtl/hdl/mm_system.sv (lanes, width); model_impl.hpp is compiled once per model with the
// model's class, so that the per-cycle loop calls the model directly, not through a virtual call.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

extern "C" {
#include "mm_rtlcfg.h"
}
#include "mm_rtlsim.h"

namespace mmrtl
{

// One node's AXI4-Lite host: descriptors to write, completions to read. The driver writes only
// the staging registers that differ from the previous descriptor (they keep their values), then
// the doorbell; it reads the completion registers when the node's interrupt line says one waits.
struct Host {
    std::deque<mm_rtl_desc> descs; // submitted, not yet written
    uint32_t shadow[16] = {0};     // the staging registers as last written
    int word = -1;                 // the descriptor being written: next word, 16 = doorbell
    uint32_t dq_free = 16;         // free descriptor slots, as last known
    bool status_wait = false;      // a STATUS read is out
    // completion reading: 8 reads, then CQ_POP
    int cq_rd_issued = -1; // -1: not reading
    int cq_rd_got = 0;
    bool cq_pop = false; // the pop write is due
    uint32_t cqw[8] = {0};
    std::deque<int> reads;       // what each outstanding read is: 0..7 CQE word, 8 STATUS
    std::deque<mm_rtl_cqe> done; // completions read, not yet polled
    bool busy() const
    {
        return word >= 0 || !descs.empty() || cq_rd_issued >= 0 || cq_pop || !reads.empty() ||
               status_wait;
    }
};

struct Memory {
    uint8_t *base = nullptr;
    uint64_t size = 0;
    std::vector<uint8_t> own;
};

struct Core {
    mm_rtl_config cfg;
    int nodes = 0;
    std::vector<Host> host;
    std::vector<Memory> mem;
    uint64_t pending = 0;  // submitted, completion expected and not yet read
    uint64_t new_cqes = 0; // completions read during the current run
    uint64_t watchdog = 2000000;
    uint64_t last_progress = 0; // cycle of the last completion (or submission)
    bool no_skip = false;
    mm_rtlsim_stats stats = {};
    std::string report, describe;
};

// the model's side of a cycle, as the core needs it
class Model
{
  public:
    virtual ~Model() = default;
    virtual void reset(Core &c) = 0;
    virtual int run(Core &c, uint64_t until, bool stop_on_completion) = 0;
    virtual uint64_t now() const = 0;
    virtual int lanes() const = 0;
    virtual int width() const = 0;
    virtual void debug_words(int node, uint32_t out[4]) const = 0;
};

struct ModelInfo {
    const char *name;
    int lanes;
    int width;
    Model *(*make)();
};

extern const ModelInfo models[];
extern const int n_models;

// the core's shared steps (rtlsim.cpp)
void host_drive(Core &c, int node, bool &aw, uint32_t &awaddr, uint32_t &wdata, bool &ar,
                uint32_t &araddr);
void host_read(Core &c, int node, uint32_t data);
void host_irq(Core &c, int node);
void stall_report(Core &c, const Model &m, const char *why);

// the DPI backing store of the system being evaluated
extern thread_local Core *current;

} // namespace mmrtl
