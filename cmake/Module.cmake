# Precompiled headers (RELFORGE_PCH, GCC): the standard and third-party headers most files include
# (json, gtest, CLI11) are parsed once per target instead of once per file: -23% CPU per file, ~8 s
# per target for the .gch, so targets under 6 files go without. Only headers we never edit go in,
# so no change to the tree rebuilds a .gch. ccache caches both the .gch and the files using it when
# CCACHE_SLOPPINESS has pch_defines,time_macros,include_file_mtime,include_file_ctime (the Makefile
# exports it). Off by default: see docs/performance.md. Clang builds (tsan, fuzz) never use it.
option(RELFORGE_PCH "Precompile the heavy third-party headers (GCC)" OFF)
set(RELFORGE_PCH_COMMON <algorithm> <cstdint> <filesystem> <map> <memory> <optional> <string> <string_view>
                        <vector> <tl/expected.hpp>)

# relforge_pch(target [HEADERS...]): the common set plus HEADERS precompiled for target.
function(relforge_pch target)
  if(NOT RELFORGE_PCH OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  list(LENGTH sources count)
  if(count LESS 6)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE ${RELFORGE_PCH_COMMON} ${ARGN})
  # GCC < 13 does not keep a header's `#pragma GCC diagnostic` in a PCH, so the false positives
  # libstdc++'s char_traits.h silences (GCC bug 105329 and kin) come back in every string copy.
  if(CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow -Wno-stringop-overread)
  endif()
endfunction()

# relforge_module(NAME DEPS <targets...>): a static library `relforge_NAME` (alias relforge::NAME)
# from every .cpp in the folder NAME/. Include paths are from the repository root.
function(relforge_module name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  if(NOT sources)
    # A module with headers only (or none yet) still has a target others can link.
    add_library(relforge_${name} INTERFACE)
    target_include_directories(relforge_${name} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(relforge_${name} INTERFACE ${ARG_DEPS})
    add_library(relforge::${name} ALIAS relforge_${name})
    return()
  endif()
  add_library(relforge_${name} STATIC ${sources})
  target_include_directories(relforge_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(relforge_${name} PUBLIC ${ARG_DEPS})
  add_library(relforge::${name} ALIAS relforge_${name})
  relforge_warnings(relforge_${name})
  if("nlohmann_json::nlohmann_json" IN_LIST ARG_DEPS)
    relforge_pch(relforge_${name} <nlohmann/json.hpp>)
  else()
    relforge_pch(relforge_${name})
  endif()
endfunction()

# relforge_test(MODULE DEPS <targets...>): one GoogleTest binary per module from tests/MODULE/*.cpp,
# registered with ctest under the label MODULE (or LABELS' first value, e.g. e2e).
function(relforge_test module)
  cmake_parse_arguments(ARG "" "" "DEPS;LABELS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  if(NOT sources)
    return()
  endif()
  set(target relforge_${module}_tests)
  add_executable(${target} ${sources})
  target_link_libraries(${target} PRIVATE ${ARG_DEPS} GTest::gtest_main GTest::gmock)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  relforge_warnings(${target})
  relforge_pch(${target} <gtest/gtest.h> <nlohmann/json.hpp>)
  # Where the checkout and the binary are comes from relforge_test_paths (tests/CMakeLists.txt).
  target_link_libraries(${target} PRIVATE relforge_test_paths)
  # Only end-to-end tests run the binary; unit tests must not wait for every module to link.
  if("e2e" IN_LIST ARG_LABELS)
    add_dependencies(${target} relforge)
  endif()
  # One label per test: gtest_discover_tests (CMake < 3.28) splits a list value, so a second
  # label would become a property name and `ctest -L MODULE` would match nothing.
  set(label ${module})
  if(ARG_LABELS)
    list(GET ARG_LABELS 0 label)
  endif()
  gtest_discover_tests(${target} PROPERTIES LABELS ${label} DISCOVERY_TIMEOUT 60)
endfunction()
