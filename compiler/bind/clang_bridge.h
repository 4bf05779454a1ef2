// Internal to rop::bind: what its Clang translation units (udf_reader.cpp, decl_collector.cpp,
// nondeterminism_lint.cpp) share. Forward declarations of Clang types only; not part of the
// library's interface.
#pragma once

#include <llvm/Support/FileSystem/UniqueID.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bind/udf_library.h"

namespace clang {
class ASTConsumer;
class CompilerInstance;
class Decl;
class NamedDecl;
class SourceLocation;
class SourceManager;
class ASTContext;
class Type;
}  // namespace clang

namespace rop::bind::detail {

// The headers being read, by file identity, with the name to show for each (as the caller
// passed it, so diagnostics say "udfs/mineru.hpp", not an absolute path).
using HeaderNames = std::map<llvm::sys::fs::UniqueID, std::string>;

// file:line:col of a Clang location (its spelling in a file, for macros).
SourceLoc map_location(const clang::SourceManager& sm, const HeaderNames& names,
                       clang::SourceLocation loc);
using LocationMapper = std::function<SourceLoc(clang::SourceLocation)>;

// "a::b::f": the scopes a user would write, without inline or anonymous namespaces.
std::string plain_qualified_name(const clang::NamedDecl& decl);

// The consumer that fills `library` with what `headers` declare directly, and skips every
// function body it does not need (all of them without `lint`, else the system headers').
std::unique_ptr<clang::ASTConsumer> make_decl_collector(clang::CompilerInstance& ci,
                                                        const HeaderNames& headers, bool lint,
                                                        UdfLibrary& library);

// The codec entry (library.codecs) of each canonical type in `types`, and of the types their
// fields reach: how each crosses a process boundary, or why it cannot (codec_reader.cpp).
void read_codecs(clang::ASTContext& ctx, const std::vector<const clang::Type*>& types,
                 const LocationMapper& where, UdfLibrary& library);

// Obvious sources of nondeterminism in `udf` — a function definition, or a class UDF's whole
// class (methods and member initializers) — and, one level deep, in the bodies of the helpers
// it calls that are defined outside system headers.
std::vector<NondeterminismFinding> lint_nondeterminism(const clang::Decl& udf,
                                                       const std::string& udf_name,
                                                       const LocationMapper& where);

}  // namespace rop::bind::detail
