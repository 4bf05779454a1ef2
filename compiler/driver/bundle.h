// `ropc build --bundle DIR|FILE.tar.gz`: a linked pipeline binary made into a folder a bare node
// can run — bin/NAME (RPATH $ORIGIN/../lib), every shared library it needs that is not in the
// base system (lib/), Tesseract's language data (share/tessdata), the .rop and manifest.json —
// and the `--static` check of which system libraries have static archives. docs/shipping.md.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace rop::driver {

// The link flags of a bundled binary: it finds lib/ next to its own bin/ folder. DT_RPATH (not
// the newer DT_RUNPATH) because the loader searches an executable's RPATH for the libraries its
// libraries need too, and RUNPATH only for its own.
std::vector<std::string> bundle_link_flags();

struct BundleRequest {
    std::string destination;  // --bundle: a folder, or a .tar.gz file to write
    std::string binary;       // the linked binary (with bundle_link_flags)
    std::string name;         // its name in bin/
    std::string rop_path;     // the pipeline, copied in and hashed
    std::string rop_version;
    std::vector<std::string> ocr_languages;  // Tesseract languages the pipeline loads
    std::vector<std::string> modules;        // the stdlib modules linked ("pdf", "ocr", ...)
    bool static_binary = false;              // --static: no shared libraries to collect
};

// Writes the bundle. Returns "" on success, else the reason (one line, no "error:" prefix).
// `verbose` gets one line per library copied (or nullptr).
std::string write_bundle(const BundleRequest& request, std::ostream* verbose);

// True when a shared library of this soname is one a bundle leaves out: glibc's own (libc,
// libm, libpthread, libdl, librt, libresolv, ld-linux, ...), libgcc_s (both in every Debian 12,
// minbase included) and the GPU driver's (libcuda, libnvidia-*: the node's driver must match
// its kernel module, so a bundle never carries one).
bool is_base_system_library(const std::string& soname);

// The static archives (lib<token>.a) that `cxx` cannot find for the system libraries a pipeline
// links (its `-l` tokens), in order. Empty when every one exists.
std::vector<std::string> missing_static_archives(const std::string& cxx,
                                                 const std::vector<std::string>& tokens);

}  // namespace rop::driver
