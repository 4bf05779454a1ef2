// One C++ file of a build compiled into the cache's obj/ folder, or found there: an object per
// (compiler, flags, source contents), with a manifest of the headers it read (-MMD) and their
// hashes, reused while they are unchanged. The generated file's errors are mapped back to the
// `.rop` file (cxx_errors.h). docs/build.md, "What gets compiled and linked" and "The cache".
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "driver/cxx_errors.h"
#include "driver/pch.h"

namespace rop::driver {

// One C++ file to compile: the generated one (with `context`, to map its errors to the .rop
// file, and the precompiled header when there is one), a `use` header's sibling .cpp or a
// --src file.
struct CompileJob {
    std::string source;
    const CxxErrorContext* context = nullptr;
    PchJob* pch = nullptr;
};

// What every compile of a build shares.
struct CompileSettings {
    std::string cxx;          // the C++ compiler, as run
    std::string compiler_id;  // its `--version` line (part of the object's key)
    std::string cache_dir;    // the cache (objects in its obj/ folder)
    std::string rop_path;     // the pipeline, for the generated file's failure line
    bool verbose = false;     // -v: CompileOutcome::log gets the commands and cache decisions
};

// What compiling one file produced. Jobs run concurrently: each fills only its own outcome, and
// the outcomes are reported in job order, so the output does not depend on the schedule.
struct CompileOutcome {
    bool ok = false;
    std::string object;
    std::string object_key;                                  // the object's inputs, hashed
    std::vector<std::pair<std::string, std::string>> files;  // what it read, for the manifest
    std::string log;      // -v lines and the compiler's messages, rendered
    std::string failure;  // the summary line when !ok
};

// Compiles `job` with `flags` into the object cache (or finds it there). Runs on a worker
// thread: reads only its arguments (and the job's precompiled header) and writes only its result.
CompileOutcome compile_object(const CompileJob& job, const std::vector<std::string>& flags,
                              const CompileSettings& settings);

}  // namespace rop::driver
