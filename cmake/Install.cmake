# `cmake --install` gives a relocatable tree in the same layout as the build tree:
#   bin/ropc                      the compiler (finds everything below relative to itself)
#   lib/librop_runtime.a          the runtime, lib/librop_main.a the binary's main (and
#                                 librop_runtime_mpi.a, `ropc build --mpi`), and
#                                 lib/librop_stdlib_<module>.a
#   include/rop/...               one tree from four homes: the UDF API (api/include: <rop/udf.h>
#                                 ...), the vocabulary (vocab/include), the runtime's and the
#                                 stdlib's headers
#   lib/cmake/rop/ropConfig.cmake find_package(rop) and rop_add_pipeline(NAME pipeline.rop ...)
include(GNUInstallDirs)

if(TARGET ropc)
    # ropc links the shared Clang/LLVM libraries: keep their directory on its RPATH.
    set_target_properties(ropc PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
    install(TARGETS ropc RUNTIME DESTINATION bin)
endif()
if(TARGET rop_runtime)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/rop
                      ${PROJECT_SOURCE_DIR}/vocab/include/rop DESTINATION include)
    # Every rop library `ropc build` links: the runtime and the stdlib modules that were built.
    install(DIRECTORY ${PROJECT_BINARY_DIR}/lib/ DESTINATION lib
            FILES_MATCHING PATTERN "librop_runtime.a" PATTERN "librop_main.a"
                           PATTERN "librop_runtime_mpi.a"
                           PATTERN "librop_stdlib_*.a"
            PATTERN "cmake" EXCLUDE)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/api/include/rop ${PROJECT_SOURCE_DIR}/stdlib/include/rop
        DESTINATION include)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ropConfig.cmake.in
               ${PROJECT_BINARY_DIR}/cmake/ropConfig.cmake @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/ropConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/ropConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/ropConfigVersion.cmake
        DESTINATION lib/cmake/rop)

# The installed tree's own seed (compiler/ropc/CMakeLists.txt): made by the installed ropc after
# everything above is in place, since the headers' paths are part of it. Under DESTDIR (a
# package being staged) the paths would be wrong: the package runs `ropc warm --into
# <prefix>/lib/rop/cache` when it is installed instead. A moved tree ignores a seed made for its
# old place (its keys name the old paths); the same command makes one for the new place.
if(TARGET ropc AND ROP_WARM_SEED)
    install(CODE [[
        if(NOT "$ENV{DESTDIR}" STREQUAL "")
            message(STATUS "rop: not precompiling headers under DESTDIR; run "
                           "'ropc warm --into ${CMAKE_INSTALL_PREFIX}/lib/rop/cache' once installed")
        else()
            execute_process(COMMAND "${CMAKE_INSTALL_PREFIX}/bin/ropc" warm
                                    --into "${CMAKE_INSTALL_PREFIX}/lib/rop/cache"
                            RESULT_VARIABLE rop_warm_status)
            if(NOT rop_warm_status EQUAL 0)
                message(WARNING "rop: 'ropc warm' failed (${rop_warm_status}): the first build "
                                "of each user makes the precompiled headers instead")
            endif()
        endif()
    ]])
endif()
