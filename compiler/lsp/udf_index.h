// The UDFs a `.rop` file can name, for hover, go-to-definition and completion: the stdlib
// operators and the functions and classes of the pipeline's `use` headers, read by Clang exactly
// as binding reads them (bind::read_udfs), each with its signature, its doc comment and where it
// is declared. Reading takes a second or so; the result is kept until a file is saved.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bind/udf_library.h"

namespace rop::lsp {

struct UdfIndexOptions {
    std::vector<std::string> stdlib_include_dirs;  // where <rop/stdlib/*.h> live (Toolchain)
    std::vector<std::string> include_dirs;         // -I: more directories for `use` headers
    std::string pch_cache_dir;                     // binding's precompiled prelude
    std::string pch_seed_dir;                      // and the installation's (read only)
};

class UdfIndex {
  public:
    explicit UdfIndex(UdfIndexOptions options) : options_(std::move(options)) {}

    // The stdlib and the headers `uses` names (a `use` path is relative to `rop_dir`, then the
    // -I directories), with the `std` -> `rop::stdlib` alias binding uses. A header that does
    // not exist or does not compile contributes what Clang could read of it.
    const bind::UdfLibrary& library(const std::string& rop_dir,
                                    const std::vector<std::string>& uses);
    // Forgets every library read: a header may have changed.
    void invalidate() { cache_.clear(); }

  private:
    UdfIndexOptions options_;
    std::map<std::string, bind::UdfLibrary> cache_;  // by rop_dir and uses
};

// How a `.rop` file names `decl`: `std.text.read` for rop::stdlib::text::read.
std::string rop_name(const bind::UdfLibrary& library, const bind::UdfDecl& decl);
// Whether `decl` is a stdlib operator a pipeline may name (not one of its helpers in `detail`).
bool is_stdlib_operator(const bind::UdfDecl& decl);
// One line of C++: `std::string read(const File & file)`, or for a class
// `class Files(std::string glob, std::string suffix = "", bool recursive = false)`.
std::string signature(const bind::UdfDecl& decl);
// The `//` comment right above the declaration at `loc` (its lines joined, the `// ` cut), or "".
std::string doc_comment(const bind::SourceLoc& loc);

}  // namespace rop::lsp
