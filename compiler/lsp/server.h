// `ropc lsp`: a Language Server for `.rop` files over stdin/stdout (docs/editor.md). JSON-RPC 2.0
// in Content-Length frames; diagnostics as you type from the front half `ropc check` runs, hover
// (a stream's Domain and C++ type, an operator's signature and doc, a Call option's meaning),
// go-to-definition (streams, Domains, UDF declarations), completion (stdlib operators and UDFs,
// Call options, keywords, the file's streams and Domains), an outline, formatting (`ropc fmt`) and
// quick fixes (the diagnostics' fix-its).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace rop::lsp {

struct ServerOptions {
    // Bind every Call to its C++ UDF as the file is checked (`ropc check`'s E05xx diagnostics
    // as you type; a second or more per check). Off: the language checks (`ropc check
    // --no-bind`); hover still binds once per text to show a stream's C++ type.
    bool bind = false;
    std::vector<std::string> include_dirs;  // -I DIR, as for `ropc check`
    std::string cache_dir;                  // empty: the usual cache (driver/toolchain.h)
};

// Serves one client on `in`/`out` until `exit`. Returns the process exit status: 0 after
// `shutdown` then `exit`, 1 after an `exit` without `shutdown` or when the input ends first.
// Malformed messages get JSON-RPC errors (-32700 parse error, -32600 invalid request, -32601
// unknown method, -32602 invalid params); nothing a client sends ends the server but `exit`.
int serve(const ServerOptions& options, std::istream& in, std::ostream& out);

}  // namespace rop::lsp
