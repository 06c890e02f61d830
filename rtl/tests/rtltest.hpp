// Helpers of the RTL system tests: a system with a scoreboard. Each test fills the nodes'
// memories with patterns, predicts what every operation must leave in memory (the golden model
// below: plain copies and sums on the host), runs the RTL until everything completed, and holds
// every byte of every node to the prediction. A stall fails with the watchdog's report.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "mm_rtlsim.h"

namespace rt
{

[[noreturn]] inline void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "FAIL: ");
    std::vfprintf(stderr, fmt, ap);
    std::fprintf(stderr, "\n");
    va_end(ap);
    std::exit(1);
}

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c))                                                                                  \
            rt::die(__VA_ARGS__);                                                                  \
    } while (0)

inline uint64_t rng(uint64_t &s)
{ // splitmix64: reproducible from the seed printed by a test
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

struct Sys {
    mm_rtlsim *s = nullptr;
    int n = 0;
    uint64_t size = 0;
    std::vector<std::vector<uint8_t>> expect; // the scoreboard: every node's memory as predicted
    std::vector<std::vector<mm_rtl_cqe>> cqes;
    std::string name;

    Sys(const std::string &config, const std::string &overrides)
    {
        char err[512];
        s = mm_rtlsim_create(config.c_str(), overrides.c_str(), err, sizeof err);
        CHECK(s, "%s", err);
        n = mm_rtlsim_nodes(s);
        if (std::getenv("MM_RTL_NO_SKIP"))
            mm_rtlsim_set_no_skip(s, 1);
        mm_rtlsim_memory(s, 0, &size);
        expect.assign(n, std::vector<uint8_t>(size, 0));
        cqes.resize(n);
        name = config + " [" + overrides + "]";
    }
    ~Sys()
    {
        mm_rtlsim_destroy(s);
    }
    Sys(const Sys &) = delete;
    Sys &operator=(const Sys &) = delete;

    uint8_t *mem(int i)
    {
        return static_cast<uint8_t *>(mm_rtlsim_memory(s, i, nullptr));
    }

    // fill [a, a+len) of node i with a pattern from seed, in memory and in the prediction
    void fill(int i, uint64_t a, uint64_t len, uint64_t seed)
    {
        for (uint64_t k = 0; k < len; k++) {
            if ((k & 7) == 0)
                rng(seed);
            const uint8_t b = (uint8_t)(seed >> (8 * (k & 7)));
            mem(i)[a + k] = b;
            expect[i][a + k] = b;
        }
    }
    // the golden model's primitive: a copy between nodes, as the prediction sees it
    void move(int from, uint64_t src, int to, uint64_t dst, uint64_t len)
    {
        std::memmove(&expect[to][dst], &expect[from][src], len);
    }

    void submit(int node, const mm_rtl_desc &d)
    {
        CHECK(mm_rtlsim_submit(s, node, &d) == 0, "submit to node %d", node);
    }

    // run until nothing is left; collect the completions; every status must be OK unless told
    void run(bool want_ok = true)
    {
        int r;
        do {
            r = mm_rtlsim_run(s, ~0ull, 0);
            for (int i = 0; i < n; i++) {
                mm_rtl_cqe e;
                while (mm_rtlsim_poll(s, i, &e)) {
                    CHECK(!want_ok || e.status == MM_RTL_ST_OK,
                          "%s: node %d, descriptor %u (op 0x%x) completed with status %u",
                          name.c_str(), i, e.id, e.op, e.status);
                    CHECK(e.end >= e.start, "completion ends before it starts");
                    cqes[i].push_back(e);
                }
            }
        } while (r == MM_RTLSIM_CYCLE || r == MM_RTLSIM_COMPLETION);
        CHECK(r != MM_RTLSIM_STALLED, "%s: %s", name.c_str(), mm_rtlsim_report(s));
    }

    // every byte of every node as predicted
    void verify(const char *what)
    {
        for (int i = 0; i < n; i++) {
            const uint8_t *m = mem(i);
            if (std::memcmp(m, expect[i].data(), size) == 0)
                continue;
            for (uint64_t k = 0; k < size; k++)
                if (m[k] != expect[i][k])
                    die("%s: %s: node %d byte 0x%llx is 0x%02x, expected 0x%02x", name.c_str(),
                        what, i, (unsigned long long)k, m[k], expect[i][k]);
        }
    }

    mm_rtl_cqe last(int node)
    {
        CHECK(!cqes[node].empty(), "no completion on node %d", node);
        return cqes[node].back();
    }
};

inline mm_rtl_desc desc(uint8_t op, uint16_t peer, uint32_t id)
{
    mm_rtl_desc d;
    std::memset(&d, 0, sizeof d);
    d.op = op;
    d.peer = peer;
    d.id = id;
    return d;
}

} // namespace rt
