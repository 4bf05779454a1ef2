// What a binary says when a UDF brings it down (docs/runtime.md "Crashes"): the crash handler
// (installed by pipeline_main) prints the signal, the Call and the roots of the batch the
// crashing thread was running, and a stack trace, appends a crash line naming those roots to the
// journal (--resume runs a root that crashed once alone, and fails one that crashed twice), then
// lets the signal kill the process as it would have. Under MPI a worker rank does the same for
// the batches rank 0 sends it, into rank 0's journal when it can reach the file.
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
// The journal as rank 0 opened it (an absolute path and its header line; "" when none): an MPI
// worker rank opens the same file and, once its header matches, journals its own crashes.
void set_crash_journal_identity(const std::string& path, const std::string& header);
const std::string& crash_journal_path();
const std::string& crash_journal_header();
// This process's MPI rank when it is a worker rank (its crash lines say "rank"); -1: none.
void set_crash_rank(int rank) noexcept;
// SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT; `program` starts each message.
void install_crash_handler(const std::string& program);

}  // namespace rop::runtime::detail
