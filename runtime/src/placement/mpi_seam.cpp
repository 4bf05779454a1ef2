// mpi_runtime.h: finding the MPI executor without depending on it.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "mpi_runtime.h"

// Defined by rop_runtime_mpi; a weak reference, null when that library is not linked.
extern "C" rop::runtime::detail::MpiRuntime* rop_mpi_runtime() __attribute__((weak));

namespace rop::runtime::detail {
namespace {

int env_int(const char* name) {
    const char* v = std::getenv(name);
    if (!v || !*v) return 0;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    return end && *end == '\0' && n > 0 && n < (1L << 24) ? static_cast<int>(n) : 0;
}

// The few PMIx client calls used, as libpmix.so.2 exports them (pmix.h's ABI: pmix_status_t is
// an int, pmix_proc_t a namespace of PMIX_MAX_NSLEN + 1 = 256 chars and a uint32_t rank).
struct PmixProc {
    char nspace[256];
    std::uint32_t rank;
};
using PmixInit = int (*)(PmixProc*, void*, std::size_t);
using PmixFence = int (*)(const PmixProc*, std::size_t, const void*, std::size_t);
using PmixFinalize = int (*)(const void*, std::size_t);

}  // namespace

void await_launched_ranks() {
    if (!std::getenv("PMIX_RANK")) return;  // no PMIx server to meet through
    void* lib = ::dlopen("libpmix.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    const auto init = reinterpret_cast<PmixInit>(::dlsym(lib, "PMIx_Init"));
    const auto fence = reinterpret_cast<PmixFence>(::dlsym(lib, "PMIx_Fence"));
    const auto finalize = reinterpret_cast<PmixFinalize>(::dlsym(lib, "PMIx_Finalize"));
    PmixProc self{};
    if (!init || !fence || !finalize || init(&self, nullptr, 0) != 0) return;
    fence(nullptr, 0, nullptr, 0);  // no procs: every process of this namespace
    finalize(nullptr, 0);
    // (Not unloaded: PMIx's threads may still be winding down.)
}

std::string launch_problem() {
    if (std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK"))
        return "";
    const int tasks = env_int("SLURM_STEP_NUM_TASKS");
    if (tasks > 1 && std::getenv("SLURM_PROCID")) {
        return "started by srun with " + std::to_string(tasks) +
               " tasks but without PMIx, so every task would run the whole pipeline; use "
               "`srun --mpi=pmix` (or MpiDefault=pmix in slurm.conf; docs/cluster.md)";
    }
    return "";
}

MpiRuntime* mpi_runtime() { return rop_mpi_runtime ? rop_mpi_runtime() : nullptr; }

int launched_ranks() {
    if (int n = env_int("OMPI_COMM_WORLD_SIZE")) return n;  // Open MPI's mpirun
    // srun: a job step's tasks, wired up through PMIx or PMI-2 (a batch script alone, outside
    // srun, has no step and runs as one process).
    if (std::getenv("PMIX_RANK") || std::getenv("PMI_RANK")) {
        if (int n = env_int("SLURM_STEP_NUM_TASKS")) return n;
        if (int n = env_int("PMI_SIZE")) return n;
    }
    return 0;
}

}  // namespace rop::runtime::detail
