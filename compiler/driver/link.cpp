#include "driver/link.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "driver/bundle.h"
#include "driver/toolchain.h"

namespace rop::driver {
namespace fs = std::filesystem;

namespace {

constexpr const char* kLld = "-fuse-ld=lld";

LinkLine refused(std::string why) {
    LinkLine line;
    line.error = std::move(why);
    return line;
}

}  // namespace

LinkLine link_line(const std::vector<std::string>& rop_link, const LinkSettings& settings) {
    LinkLine line;
    std::vector<std::string>& libs = line.libs;
    auto archive_of = [&](const std::string& name) {
        return (fs::path(settings.lib_dir) / ("lib" + name + ".a")).string();
    };
    for (const std::string& token : rop_link) {
        if (token.rfind("rop_", 0) == 0) {
            const std::string archive = archive_of(token);
            if (!fs::exists(archive)) {
                return refused("library '" + archive + "' (rop-link: " + token +
                               ") does not exist");
            }
            libs.push_back(archive);
            line.archives.push_back(archive);
        } else {
            libs.push_back("-l" + token);
        }
    }
    // The binary's main (pipeline_main), then the runtime it drives.
    const std::string main = archive_of("rop_main");
    const std::string runtime = archive_of("rop_runtime");
    for (const std::string& archive : {main, runtime}) {
        if (!fs::exists(archive)) {
            return refused("the runtime library '" + archive + "' does not exist");
        }
    }
    libs.push_back(main);
    line.archives.push_back(main);
    if (settings.mpi) {  // before the runtime, whose weak reference it satisfies
        const std::string mpi = archive_of("rop_runtime_mpi");
        if (!fs::exists(mpi)) {
            return refused("--mpi: the MPI executor '" + mpi +
                           "' was not built (rop was configured without Open MPI: install "
                           "libopenmpi-dev and rebuild rop)");
        }
        libs.push_back(mpi);
        line.archives.push_back(mpi);
        libs.push_back("-Wl,--undefined=rop_mpi_runtime");
    }
    libs.push_back(runtime);
    line.archives.push_back(runtime);
    libs.push_back("-lxxhash");  // the runtime's result store hashes with XXH3 (--cache)
    if (settings.mpi) {
        // Open MPI's own wrapper knows where its library is (Debian: a private lib folder).
        const ProcessResult flags = run_process({"mpicc", "--showme:link"});
        if (flags.exit_code != 0) {
            return refused("--mpi: cannot ask Open MPI for its link flags (`mpicc --showme:link`" +
                           (flags.spawn_error.empty() ? "" : ": " + flags.spawn_error) +
                           "); install libopenmpi-dev");
        }
        std::istringstream words(flags.output);
        for (std::string word; words >> word;) libs.push_back(word);
    }
    libs.push_back("-pthread");
    if (settings.bundle) {
        for (const std::string& flag : bundle_link_flags()) libs.push_back(flag);
    }
    if (settings.static_link) {
        std::vector<std::string> system = {"xxhash"};
        for (const std::string& token : rop_link) {
            if (!token.starts_with("rop_")) system.push_back(token);
        }
        const std::vector<std::string> missing = missing_static_archives(settings.cxx, system);
        if (!missing.empty()) {
            std::string names;
            for (const std::string& archive : missing) names += " " + archive;
            return refused("--static: no static archive for" + names +
                           " (the `// rop-link:` libraries of the stdlib modules used; Debian "
                           "ships these only as shared libraries): use --bundle DIR instead "
                           "(docs/shipping.md)");
        }
        libs.push_back("-static");
    }
    // LLVM's linker when there is one: the link is on every build's critical path and lld does
    // it in half GNU ld's time (B5 in docs/benchmarks.md).
    if (on_path("ld.lld")) libs.push_back(kLld);
    return line;
}

ProcessResult run_link(const std::string& cxx, const std::vector<std::string>& objects,
                       const std::vector<std::string>& libs, const std::string& output,
                       const std::function<void(const std::string&)>& verbose) {
    std::vector<std::string> argv = {cxx};
    argv.insert(argv.end(), objects.begin(), objects.end());
    argv.insert(argv.end(), libs.begin(), libs.end());
    argv.insert(argv.end(), {"-o", output});
    verbose(command_line(argv));
    ProcessResult result = run_process(argv);
    // A compiler that does not know -fuse-ld=lld links with its own linker.
    if (result.exit_code != 0 && !libs.empty() && libs.back() == kLld &&
        result.output.find("-fuse-ld") != std::string::npos) {
        argv.erase(std::find(argv.begin(), argv.end(), kLld));
        verbose("the C++ compiler does not take -fuse-ld=lld: " + command_line(argv));
        result = run_process(argv);
    }
    return result;
}

}  // namespace rop::driver
