// CxxNotes: diagnostic notes that point into a C++ header (the UDF a `.rop` Call binds to). The
// header is loaded into the SourceManager once, so every renderer prints a real location and
// the source line: `udfs/mineru.hpp:12:1: note: declared here`.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "bind/udf_decl.h"
#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace rop::bind {

class CxxNotes {
  public:
    // Without a SourceManager (or for a file it cannot read) a note points nowhere and carries
    // "file:line:col: " at the start of its message instead.
    explicit CxxNotes(SourceManager* sources) : sources_(sources) {}

    // A note at `loc` (a C++ name or type: the range covers the identifier there).
    Note at(const SourceLoc& loc, std::string message);

    // `loc` as a range in the SourceManager, loading its file on first use.
    std::optional<SourceRange> range_of(const SourceLoc& loc);

  private:
    SourceManager* sources_;
    std::map<std::string, std::optional<FileId>> files_;
};

}  // namespace rop::bind
