#include "ropc/build_command.h"

#include <unistd.h>

#include <iostream>
#include <optional>

#include "driver/driver.h"

namespace rop::cli {

std::string build_help() {
    return "usage: ropc build PIPELINE.rop -o BINARY [--cxx CXX] [--emit=cpp] [--keep-cpp DIR]\n"
           "                  [-I DIR]... [--src FILE.cpp]... [-O LEVEL] [-v]\n\n"
           "Checks the pipeline, binds its Calls to the C++ UDFs of its `use` headers and the\n"
           "stdlib, generates C++ and builds one standalone binary with the host compiler.\n"
           "  -o BINARY        the binary to write\n"
           "  --cxx CXX        the C++ compiler (default: $ROP_CXX, else c++)\n"
           "  --emit=cpp       print the generated C++ on stdout and build nothing (no -o needed)\n"
           "  --keep-cpp DIR   also write the generated C++ to DIR/NAME.generated.cpp\n"
           "  -I DIR           another directory for `use` headers and their includes\n"
           "  --src FILE.cpp   another C++ source to compile and link (each `use \"X.hpp\"`'s\n"
           "                   sibling X.cpp is compiled and linked without asking)\n"
           "  -O LEVEL         optimization level for the C++ compiler (default 2)\n"
           "  -v               print the compiler commands and the cache decisions\n\n"
           "Builds are cached by content (ROP_CACHE_DIR, else $XDG_CACHE_HOME/rop or\n"
           "~/.cache/rop): an unchanged rebuild only copies the cached binary.\n"
           "Exit status: 0 built, 1 errors in the pipeline or its C++ (shown at the .rop line),\n"
           "2 usage error, 3 internal compiler error.\n";
}

int run_build(const std::vector<std::string>& args) {
    driver::BuildOptions options;
    auto fail = [](const std::string& message) {
        std::cerr << "ropc: error: " << message << "\nrun `ropc build --help` for usage\n";
        return 2;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        // `--name value`, `--name=value`, and for one-letter flags `-Ivalue`.
        auto value = [&](const std::string& name) -> std::optional<std::string> {
            if (arg == name) {
                if (i + 1 >= args.size()) return std::nullopt;
                return args[++i];
            }
            if (arg.rfind(name + "=", 0) == 0) return arg.substr(name.size() + 1);
            if (name.size() == 2 && arg.size() > 2 && arg.rfind(name, 0) == 0) return arg.substr(2);
            return std::nullopt;
        };
        auto is = [&](const std::string& name) {
            return arg == name || arg.rfind(name + "=", 0) == 0 ||
                   (name.size() == 2 && arg.rfind(name, 0) == 0);
        };
        if (arg == "-h" || arg == "--help") {
            std::cout << build_help();
            return 0;
        }
        if (arg == "-v" || arg == "--verbose") {
            options.verbose = true;
        } else if (arg == "--emit=cpp") {
            options.emit_cpp = true;
        } else if (is("--emit")) {
            auto v = value("--emit");
            if (!v || *v != "cpp") return fail("ropc build: --emit takes 'cpp'");
            options.emit_cpp = true;
        } else if (is("-o")) {
            auto v = value("-o");
            if (!v) return fail("-o needs a file name");
            options.output = *v;
        } else if (is("--cxx")) {
            auto v = value("--cxx");
            if (!v) return fail("--cxx needs a compiler");
            options.cxx = *v;
        } else if (is("--keep-cpp")) {
            auto v = value("--keep-cpp");
            if (!v) return fail("--keep-cpp needs a directory");
            options.keep_cpp_dir = *v;
        } else if (is("--src")) {
            auto v = value("--src");
            if (!v) return fail("--src needs a file");
            options.sources.push_back(*v);
        } else if (is("-I")) {
            auto v = value("-I");
            if (!v) return fail("-I needs a directory");
            options.include_dirs.push_back(*v);
        } else if (is("-O")) {
            auto v = value("-O");
            if (!v || v->empty() || v->size() > 4) return fail("-O needs a level (0, 1, 2, 3, s)");
            options.opt_level = *v;
        } else if (!arg.empty() && arg[0] == '-') {
            return fail("unknown option '" + arg + "' for ropc build");
        } else if (options.rop_path.empty()) {
            options.rop_path = arg;
        } else {
            return fail("ropc build takes one .rop file");
        }
    }
    if (options.rop_path.empty()) return fail("ropc build needs a .rop file");
    if (!options.emit_cpp && options.output.empty()) return fail("ropc build needs -o BINARY");
    options.color = isatty(STDERR_FILENO) == 1;
    return driver::build(options, std::cout, std::cerr);
}

}  // namespace rop::cli
