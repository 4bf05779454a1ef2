// What a binary says when a UDF brings it down (docs/runtime.md "Crashes"): the crash handler
// (installed by pipeline_main) prints the signal, the Call and the roots of the batch the
// crashing thread was running, and a stack trace, appends a crash line naming those roots to the
// journal (--resume runs a root that crashed once alone, and fails one that crashed twice), then
// lets the signal kill the process as it would have.
#pragma once

#include <string>

namespace rop::runtime {
struct BatchJob;
}

namespace rop::runtime::detail {

// The batch the calling thread runs (execute_job sets it around process(), then restores what
// was there: null, or the batch a lent actor was running, see Yielder).
void set_running_job(const BatchJob* job) noexcept;
const BatchJob* running_job() noexcept;  // what set_running_job last set on this thread
// Where crash lines go: the run's journal (-1: none). From the driver thread.
void set_crash_journal(int fd) noexcept;
// SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT; `program` starts each message.
void install_crash_handler(const std::string& program);

}  // namespace rop::runtime::detail
