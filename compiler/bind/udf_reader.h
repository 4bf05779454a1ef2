// read_udfs: parses the headers a pipeline `use`s (and the stdlib operator headers) with Clang
// and returns every UDF they declare. The only entry point that touches Clang.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bind/udf_library.h"

namespace rop::bind {

struct ReadOptions {
    // Walk UDF bodies for nondeterminism (UdfDecl::nondeterminism). Off: every function body is
    // skipped, which parses faster.
    bool lint = true;
    // Clang's resource directory (its builtin headers); empty: the one ropc was built against.
    std::string resource_dir;
    // Extra compiler flags (-D..., -isystem ...), placed before the headers.
    std::vector<std::string> extra_args;
    // A directory for the precompiled prelude (rop/udf.h and the standard headers rop's own
    // headers include: prelude_text(); then the leading `headers` that are rop's stdlib
    // operator headers, <dir>/rop/stdlib/*.h of an include directory holding rop/udf.h), keyed
    // by Clang version, flags and the prelude's text, rebuilt when one of the headers it read
    // changed or Clang rejects it; without those stdlib headers when they do not compile. Cuts
    // a typical read several-fold. Empty: parse everything every time. The headers then also
    // see the prelude's declarations when they forget to include them (a pipeline's binding
    // reads the stdlib headers, which include all of them, before its `use` headers anyway;
    // generated code includes them too).
    std::string pch_cache_dir;
    // A read-only directory of precompiled preludes made when rop was installed (`ropc warm
    // --into`): used when pch_cache_dir has none of its own, never written. One Clang rejects
    // (a header edited since, another Clang) is left alone and pch_cache_dir makes its own.
    std::string pch_seed_dir;
    // Mark the cache's prelude used (its modification time) when it is read, for `ropc cache
    // prune`; `ropc warm --into` does not (a seed is never touched).
    bool pch_mark_used = true;
};

// The text of the precompiled prelude: `#include` lines, rop/udf.h first.
std::string_view prelude_text();

// Parses `headers` together as one C++20 translation unit, with `include_dirs` as -I paths, and
// collects the functions and operator() classes declared directly in them (not in headers they
// include). Missing headers and C++ errors are appended to `errors` (file:line:col and clang's
// message) and what could be read is still returned; this never throws and never crashes on bad
// input. Locations in the given headers name them as given. Not for concurrent use from
// several threads (Clang's crash recovery is process-wide).
UdfLibrary read_udfs(const std::vector<std::string>& headers,
                     const std::vector<std::string>& include_dirs, std::vector<BindError>* errors,
                     const ReadOptions& options = {});

}  // namespace rop::bind
