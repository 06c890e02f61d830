// What the simulator says about configuration files that are not right: one line each, naming
// the file (and line) and what is wrong; and that an override is applied.
//   test_config CONFIG_DIR SCRATCH_DIR
#include <fstream>
#include <string>

#include "rtltest.hpp"

using namespace rt;

static std::string err_of(const std::string &cfg, const char *ov = "")
{
    char err[512] = "";
    mm_rtlsim *s = mm_rtlsim_create(cfg.c_str(), ov, err, sizeof err);
    if (s) {
        mm_rtlsim_destroy(s);
        return "";
    }
    return err;
}

static void expect(const std::string &cfg, const char *ov, const char *want)
{
    const std::string e = err_of(cfg, ov);
    CHECK(!e.empty(), "%s [%s] was accepted", cfg.c_str(), ov);
    CHECK(e.find('\n') == std::string::npos, "not one line: %s", e.c_str());
    CHECK(e.find(want) != std::string::npos, "%s [%s]: '%s' does not say '%s'", cfg.c_str(), ov,
          e.c_str(), want);
    std::printf("  %s\n", e.c_str());
}

int main(int argc, char **argv)
{
    CHECK(argc == 3, "usage: test_config CONFIG_DIR SCRATCH_DIR");
    const std::string dir = argv[1], tmp = argv[2];
    const std::string good = dir + "/optweb-fc8-45g.toml";
    auto write = [&](const char *name, const std::string &text) {
        std::ofstream(tmp + "/" + name) << text;
        return tmp + "/" + name;
    };
    expect(tmp + "/absent.toml", "", "No such file");
    expect(write("readme.toml", "# meshmem\nA communication runtime for tightly coupled nodes.\n"),
           "", "not a configuration file");
    expect(write("nortl.toml", "[fabric]\nname = \"x\"\n"), "", "not an rtl configuration");
    expect(good, "topology.nodes=17", "must be a whole number in 1..16");
    expect(good, "timing.link_latency_cycles=fast", "is not a number");
    expect(good, "timing.link_latency_cycles=400", "1..250");
    expect(good, "topology.kind=\"torus\"", "full_mesh or ghc");
    expect(good, "memory.channel_width_bytes=8", "256- and 128-bit");
    expect(good, "nodes=4", "not section.key=value");
    expect(dir + "/optweb-ghc4x2-45g.toml", "topology.kx=9", "more than 16 nodes");
    // the overrides take effect
    Sys t(good, "topology.nodes=3;timing.link_latency_cycles=20");
    CHECK(t.n == 3, "nodes=3 gave %d nodes", t.n);
    CHECK(std::string(mm_rtlsim_describe(t.s)).find("link_latency_cycles = 20") !=
              std::string::npos,
          "the latency override is not in the description");
    std::printf("ok\n");
    return 0;
}
