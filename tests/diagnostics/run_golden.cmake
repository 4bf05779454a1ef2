# Runs `ropc check NAME.rop [args from NAME.args]` in this folder and compares its stderr with
# NAME.expected, byte for byte. A missing golden fails. With ROP_REGENERATE_GOLDENS=1 in the
# environment the golden is (re)written instead — the only way goldens change.
#   cmake -DROPC=path/to/ropc -DDIR=tests/diagnostics -DNAME=E0100_undefined_stream -P run_golden.cmake
set(args "")
if(EXISTS "${DIR}/${NAME}.args")
    file(READ "${DIR}/${NAME}.args" args)
    string(STRIP "${args}" args)
    separate_arguments(args UNIX_COMMAND "${args}")
endif()
set(cache_env "")
if(DEFINED CACHE)  # binding's precompiled-prelude cache (ROP_CACHE_DIR), kept in the build tree
    set(cache_env "ROP_CACHE_DIR=${CACHE}")
endif()
execute_process(
    COMMAND ${CMAKE_COMMAND} -E env ${cache_env} "${ROPC}" check "${NAME}.rop" ${args}
    WORKING_DIRECTORY "${DIR}"
    RESULT_VARIABLE status
    OUTPUT_VARIABLE stdout
    ERROR_VARIABLE stderr)

set(golden "${DIR}/${NAME}.expected")
if("$ENV{ROP_REGENERATE_GOLDENS}" STREQUAL "1")
    file(WRITE "${golden}" "${stderr}")
    message(STATUS "regenerated ${golden}")
    return()
endif()
if(NOT EXISTS "${golden}")
    message(FATAL_ERROR "missing golden ${golden}; write it with ROP_REGENERATE_GOLDENS=1 "
                        "and review it")
endif()
file(READ "${golden}" expected)
if(NOT stderr STREQUAL expected)
    file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/${NAME}.actual" "${stderr}")
    message(FATAL_ERROR "ropc check ${NAME}.rop differs from its golden.\n"
                        "--- expected\n${expected}\n--- actual\n${stderr}")
endif()
# An error in the golden means exit status 1; warnings alone mean 0; a file that cannot be read
# (F0002) means 2. Nothing on stdout.
string(FIND "${expected}" ": error: " has_error)
string(FIND "${expected}" ": fatal error: " has_fatal)
string(FIND "${expected}" "[F0002]" has_unreadable)
if(has_unreadable GREATER -1)
    set(want 2)
elseif(has_error GREATER -1 OR has_fatal GREATER -1)
    set(want 1)
else()
    set(want 0)
endif()
if(NOT status EQUAL want)
    message(FATAL_ERROR "ropc check ${NAME}.rop exited ${status}, expected ${want}")
endif()
if(NOT stdout STREQUAL "")
    message(FATAL_ERROR "ropc check ${NAME}.rop wrote to stdout:\n${stdout}")
endif()
