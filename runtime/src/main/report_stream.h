// The --report file written as the run goes (docs/runtime.md "The run report"): each root's
// entry as the run is done with it (RunOptions::on_root_result, in source order), so that a run
// of millions of roots keeps nothing per root; the summary when the run ends. It is written to
// PATH.tmp.PID and renamed into place at the end: a reader never sees a partial report, and a
// killed run leaves no report (the next run removes its leftover temporary file).
#pragma once

#include <memory>
#include <string>

#include "rop/runtime/run.h"

namespace rop::runtime::detail {

class ReportStream {
  public:
    // Creates PATH's temporary file (and removes those of runs that are gone); nullptr and
    // `error` when it cannot. `all_roots` false: only failed and partial roots are listed
    // (--report-roots failed).
    static std::unique_ptr<ReportStream> open(const std::string& path, bool all_roots,
                                              std::string& error);
    ~ReportStream();  // an unfinished report's temporary file goes
    ReportStream(const ReportStream&) = delete;
    ReportStream& operator=(const ReportStream&) = delete;

    void add(const RootResult& root);  // one entry (or none: all_roots off and it is ok)
    // The summary of `report` (its roots are not listed again), fsync, rename; "" or an error.
    std::string finish(const RunReport& report);

  private:
    ReportStream(std::string path, std::string temp, int fd, bool all_roots);
    void write_out();  // the buffer to the file

    std::string path_, temp_;
    int fd_;
    bool all_roots_;
    bool first_ = true;
    std::string buffer_;
    std::string error_;  // the first write error
};

}  // namespace rop::runtime::detail
