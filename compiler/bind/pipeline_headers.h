// Where a pipeline's C++ headers are: its `use` headers (relative to the `.rop` file, then the
// -I directories), the stdlib's operator headers, and the `// rop-link:` line each carries.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rop::bind {

// The file a `use "path";` in a `.rop` file in `rop_dir` names: `rop_dir/path` when it exists,
// else the first `dir/path` of `include_dirs`; an absolute path as is. Empty when none exists.
// The result is `rop_dir/path` spelt lexically (so "udfs/x.hpp" for a `.rop` in the current
// directory), which is how diagnostics name the header.
std::optional<std::string> find_use_header(const std::string& path, const std::string& rop_dir,
                                           const std::vector<std::string>& include_dirs);

// Every `rop/stdlib/*.h` under `include_dirs`, sorted by name; a name found in an earlier
// directory hides the same name in a later one.
std::vector<std::string> stdlib_headers(const std::vector<std::string>& include_dirs);

// The tokens of every `// rop-link: a b c` line in the first 40 lines of `path`, in order
// (docs/udfs.md): `rop_*` are rop's static libraries, anything else a system library.
std::vector<std::string> read_link_line(const std::string& path);

}  // namespace rop::bind
