// ropc's subcommands. Each returns the process exit status: 0 clean, 1 errors, 2 usage error or
// unreadable input. Text diagnostics go to stderr; JSON, SARIF, dumps, DOT and C++ to stdout.
// All of them run the one front half (driver/front.h) with the Request's options.
#pragma once

#include "ropc/cli.h"

namespace rop::cli {

int run_check(const Request& request);
int run_emit(const Request& request);
int run_graph(const Request& request);
int run_build(const Request& request);
int run_fmt(const Request& request);    // fmt.cpp
int run_cache(const Request& request);  // cache_command.cpp

}  // namespace rop::cli
