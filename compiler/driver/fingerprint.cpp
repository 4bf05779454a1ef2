#include "driver/fingerprint.h"

#include <filesystem>
#include <map>
#include <set>

#include "bind/code_fingerprint.h"
#include "driver/hash.h"

namespace rop::driver {
namespace fs = std::filesystem;

namespace {

std::string absolute_path(const std::string& path) {
    std::error_code ec;
    const fs::path out = fs::absolute(path, ec);
    return ec ? path : out.lexically_normal().string();
}

// A Call that runs on a pool is a stdlib operator's when its pool's class is.
bool is_stdlib(const sema::CheckedProgram& program, const sema::Call& call) {
    const std::optional<sema::OpRef>& op =
        call.pool ? std::optional<sema::OpRef>(program.pools[*call.pool].op) : call.op;
    return op && op->name.starts_with("std.");
}

// A stdlib operator's code is in rop's own libraries, built with rop: its version names it.
sema::CodeFingerprint stdlib_fingerprint(const bind::UdfDecl& decl) {
    sema::CodeFingerprint code;
    const std::string version = std::string("rop ") + ROP_VERSION;
    std::string location = decl.location.file;
    if (const std::size_t at = location.rfind("rop/stdlib/"); at != std::string::npos) {
        location = location.substr(at);
    }
    location += ":" + std::to_string(decl.location.line);
    code.functions.push_back(
        {decl.qualified_name, location, Hasher().add(version).add(decl.qualified_name).hex()});
    code.digest = Hasher().add("rop-stdlib-1").add(version).add(decl.qualified_name).hex();
    return code;
}

}  // namespace

std::vector<std::string> pipeline_sources(const sema::CheckedProgram& program,
                                          const bind::BoundProgram& bound,
                                          const std::string& rop_path,
                                          const std::vector<std::string>& include_dirs,
                                          const std::vector<std::string>& src_files) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    auto add = [&](const std::string& path) {
        if (seen.insert(path).second) out.push_back(path);
    };
    std::vector<std::string> dirs = {fs::path(absolute_path(rop_path)).parent_path().string()};
    for (const std::string& dir : bound.include_dirs) dirs.push_back(absolute_path(dir));
    for (const std::string& dir : include_dirs) dirs.push_back(absolute_path(dir));
    for (const std::string& use : program.uses) {
        for (const std::string& dir : dirs) {
            const fs::path header = fs::path(dir) / use;
            if (!fs::exists(header)) continue;
            fs::path source = header;
            source.replace_extension(".cpp");
            if (fs::exists(source)) add(source.lexically_normal().string());
            break;
        }
    }
    for (const std::string& src : src_files) add(absolute_path(src));
    return out;
}

void attach_fingerprints(sema::CheckedProgram& program, const bind::BoundProgram& bound,
                         const Toolchain& toolchain, const FingerprintInputs& inputs) {
    bind::FingerprintRequest request;
    const fs::path rop_dir = fs::path(absolute_path(inputs.rop_path)).parent_path();
    for (const std::string& use : program.uses) {
        // As binding found it: the .rop's folder first, then the -I directories.
        for (const std::string& dir : inputs.include_dirs) {
            const fs::path header = fs::path(absolute_path(dir)) / use;
            if (fs::exists(header)) {
                request.headers.push_back(header.lexically_normal().string());
                break;
            }
        }
    }
    request.sources = inputs.sources;
    request.include_dirs = inputs.include_dirs;
    request.include_dirs.insert(request.include_dirs.end(), toolchain.include_dirs.begin(),
                                toolchain.include_dirs.end());
    request.library_dirs = toolchain.include_dirs;
    request.library_dirs.insert(request.library_dirs.end(), toolchain.stdlib_include_dirs.begin(),
                                toolchain.stdlib_include_dirs.end());
    request.flags = inputs.flags;
    request.base_dir = rop_dir.string();

    std::vector<bind::FingerprintRoots> udfs;
    for (const bind::BoundCall& call : bound.calls) {
        const sema::Call& sema_call = program.calls[call.call];
        if (!call.decl || is_stdlib(program, sema_call)) continue;
        bind::FingerprintRoots roots{call.decl->qualified_name, {call.decl->qualified_name}};
        if (call.pool) {  // the method, and the constructor that set up its instance
            const bind::UdfDecl& cls = *bound.pools[*call.pool].decl;
            roots.names.push_back(cls.qualified_name + "::" + cls.name);
        }
        udfs.push_back(std::move(roots));
    }
    const std::map<std::string, sema::CodeFingerprint> codes =
        udfs.empty() ? std::map<std::string, sema::CodeFingerprint>{}
                     : bind::fingerprint_udfs(udfs, request);
    for (const bind::BoundCall& call : bound.calls) {
        sema::Call& sema_call = program.calls[call.call];
        if (!call.decl || !sema_call.binding) continue;
        sema::CodeFingerprint code = is_stdlib(program, sema_call)
                                         ? stdlib_fingerprint(*call.decl)
                                         : codes.at(call.decl->qualified_name);
        // The lint's findings, whether or not the warning is shown: `cache on` is how a Call
        // stores such a UDF's results anyway.
        code.volatile_udf = !call.decl->nondeterminism.empty();
        sema_call.binding->code = std::move(code);
    }
}

}  // namespace rop::driver
