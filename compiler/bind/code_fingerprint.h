// fingerprint_udfs: the code fingerprint of each UDF a pipeline calls (issue 29; docs/build.md,
// "Code fingerprints"), for the result store's keys. Clang reads the `use` headers and every C++
// file the build compiles with the pipeline; a UDF's fingerprint hashes the tokens of its
// definition and of every function and namespace-scope variable it reaches whose definition is
// in the project's files, plus the compile flags that can change results.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sema/program.h"

namespace rop::bind {

struct FingerprintRequest {
    std::vector<std::string> headers;  // the `use` headers (a header-only UDF is read there)
    std::vector<std::string> sources;  // the .cpp files compiled with the pipeline
    std::vector<std::string> include_dirs;
    // Where rop's own headers are (rop/udf.h, rop/stdlib/): library code like the system
    // headers, never part of a fingerprint.
    std::vector<std::string> library_dirs;
    std::string resource_dir;  // Clang's; empty: the one ropc was built against
    // The flags the user's files are compiled with; those that can change results go in
    // (result_flags).
    std::vector<std::string> flags;
    std::string base_dir;  // locations are written relative to it (the `.rop` file's folder)
};

// The flags among `flags` that can change what the code computes: -D and -U macros, -f code
// generation flags (-ffast-math, -fno-strict-aliasing, ...; not -fdiagnostics-*), -m target
// flags and -std; not -O levels, -I paths, -g or warnings. Space-separated, in order.
std::string result_flags(const std::vector<std::string>& flags);

// The fingerprint of each UDF in `udfs` (qualified names, "wordcount::count_words"), keyed by
// name. A UDF none of the files defines gets its fallback set ("no definition ...") and a digest
// over every file read. Never throws; Clang errors in the files only make fallbacks.
std::map<std::string, sema::CodeFingerprint> fingerprint_udfs(const std::vector<std::string>& udfs,
                                                              const FingerprintRequest& request);

// Where one fingerprint starts when it is not one name: a Call that runs on a pool starts from
// its method and the class's constructors (the instance the method reads was set up there),
// not from the whole class, so an edit to another method of the class re-runs nothing.
struct FingerprintRoots {
    std::string key;                 // the result's key: "ns::Model::layout"
    std::vector<std::string> names;  // {"ns::Model::layout", "ns::Model::Model"}
};
std::map<std::string, sema::CodeFingerprint> fingerprint_udfs(
    const std::vector<FingerprintRoots>& udfs, const FingerprintRequest& request);

}  // namespace rop::bind
