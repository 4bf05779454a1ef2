// The precompiled header a build compiles its generated file with: rop/runtime/generated.h (the
// runtime and standard headers every pipeline includes first), made once per compiler and flags
// in the cache's pch/ folder and shared by every pipeline built so, or read from the seed (`ropc
// warm --into`) when the cache has none. docs/build.md, "The cache".
#pragma once

#include <atomic>
#include <future>
#include <string>
#include <utility>
#include <vector>

namespace rop::driver {

// What finding or making the image needs: the settings of the build that compiles with it.
struct PchSettings {
    std::string cxx;                 // the C++ compiler, as run
    std::string compiler_id;         // its `--version` line
    std::vector<std::string> flags;  // the generated file's flags (-std, -O, rop's -I): the key
    std::string cache_dir;           // the cache (the image lies in its pch/KEY/ folder)
    std::string seed_dir;            // Toolchain::seed_dir, read only; empty: none
    bool mark_used = true;           // mark a reused image (false: `ropc warm`)
    bool verbose = false;            // -v: PchOutcome::log gets the command and the decisions
};

struct PchOutcome {
    std::string header;  // what -include names (the compiled image lies beside it); empty: none
    std::string image;   // header + ".gch" (GCC) or ".pch" (Clang)
    std::vector<std::pair<std::string, std::string>> files;  // the headers it read
    std::string log;                                         // -v lines
    std::string cache_dir;  // the cache's pch/KEY/ folder (where a seed's refusal is noted)
    bool seed = false;      // header is the seed's (Toolchain::seed_dir): never written
    bool made = false;      // neither the cache nor the seed had it: this call made it (or tried)
};

// The image for `settings`: the cache's when its manifest says it is fresh, else the seed's,
// else made now (`making`, when given, is set first: a compile does not wait for that). Nothing
// when it cannot be made; the generated file's own compile then shows what is wrong.
PchOutcome prepare_pch(const PchSettings& settings, std::atomic<bool>* making = nullptr);

// An image the compiler would not use: dropped, so the next build makes it again. The seed's is
// left as it is (it may be read-only, and shared): the cache notes the refusal and makes its own
// from then on.
void forget_pch(const PchOutcome& pch);

// Whether a failed or noisy compile's output is about the precompiled header (stale, truncated,
// made by another compiler, or GCC crashing on a damaged one) rather than about the code.
bool mentions_pch(const std::string& output, const PchOutcome& pch);

// `output` without the lines that name the precompiled header (-Winvalid-pch's warnings).
std::string without_pch_lines(const std::string& output, const PchOutcome& pch);

// One build's image, found or made while the front half parses and binds, on another core (with
// -j 1, when the generated file's compile first asks for it). Not copyable: its thread reads it.
class PchJob {
  public:
    PchJob() = default;
    PchJob(const PchJob&) = delete;
    PchJob& operator=(const PchJob&) = delete;

    void start(PchSettings settings, bool deferred);

    // For the generated file's compile: the image, waiting for one being found but never for
    // one being made (that would cost more than it saves; it is ready for the next build). Null
    // when there is none to use now. Its -v lines are added to `log`, once.
    const PchOutcome* for_compile(std::string& log);

    // The -v lines of an image no compile waited for, once it is made (so the process waits for
    // it before it exits); empty when they were shown or it was never started.
    std::string unshown_log();

  private:
    PchSettings settings_;
    std::atomic<bool> making_{false};     // being made, not just found
    std::atomic<bool> log_shown_{false};  // for_compile added its -v lines
    // Last, so it is destroyed first: its destructor waits for the thread that reads the above.
    std::shared_future<PchOutcome> outcome_;
};

}  // namespace rop::driver
