# rop_warnings: an INTERFACE target every rop library and executable links privately.
add_library(rop_warnings INTERFACE)
target_compile_options(rop_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough
    $<$<BOOL:${ROP_WERROR}>:-Werror>
    # GCC 12 at -O3 (the release preset) warns -Wrestrict inside libstdc++'s string
    # concatenation, about 50 times in a build: a false positive, GCC bug 105329, fixed in 13.
    $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)
