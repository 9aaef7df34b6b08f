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
  target_compile_definitions(${target} PRIVATE
    RELFORGE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    RELFORGE_BINARY="$<TARGET_FILE:relforge>")
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
