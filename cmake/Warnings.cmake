# rop_warnings: an INTERFACE target every rop library and executable links privately.
add_library(rop_warnings INTERFACE)
target_compile_options(rop_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough
    $<$<BOOL:${ROP_WERROR}>:-Werror>)
