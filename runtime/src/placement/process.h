// Process-isolated actors (`isolation process`, docs/runtime.md "Process isolation"). A Call
// that asks for it keeps its place in the executor (an actor thread per actor), but the thread's
// Actor is a proxy: it starts a worker process (the pipeline's own binary, in worker mode) and
// sends it each batch's items, encoded with their Codecs, over a local socket; the worker runs
// the real actor and sends back the results, streamed children first. A worker that dies
// (SIGSEGV, abort, the OOM killer, a kill after a timeout) is an infra failure of its batch:
// replayed on a fresh worker while infra_retries lasts, then narrowed down to the item that
// brings it down, whose root alone fails ("infra: worker killed by SIGSEGV (attempt 4 of 4)").
#pragma once

#include <optional>
#include <ostream>
#include <string_view>

#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"

namespace rop::runtime::detail {

// Such a Call's factory comes from its ProcessPlacement (actor_placement.h).

// The flag that starts a binary as a worker, and its value "TARGET:FD[:MEMORY]": what it serves
// (a Call's index in the plan, or wire::kPoolTarget | a shared pool's index), the socket's
// descriptor and the memory limit in bytes (0: none).
inline constexpr std::string_view kWorkerFlag = "--rop-worker";

// The worker's main (pipeline_main calls it when started with kWorkerFlag): builds the Call's
// (or the pool's) actor from `plan` (which the binary built from the same arguments as the
// driver's), then runs the batches it is sent until the driver closes the socket. Returns the exit
// status.
int serve_process_worker(const Plan& plan, std::string_view spec, std::ostream& err);

}  // namespace rop::runtime::detail
