# relforge_fuzz_target(NAME DEPS <targets...> [SOURCES <files...>]): tests/fuzz/NAME_fuzz.cpp, which
# defines LLVMFuzzerTestOneInput, built two ways:
# - RELFORGE_FUZZ=ON (the `fuzz` preset, clang): `NAME_fuzz`, a libFuzzer binary under ASan+UBSan,
#   part of the `fuzz` target that builds nothing else;
# - otherwise: `NAME_fuzz_replay`, the same code with tests/fuzz/replay_main.cpp as its main, and a
#   ctest `fuzz.NAME` (label `fuzz`) replaying tests/fuzz/corpus/NAME and tests/fuzz/regressions/NAME.
# DEPS are the module libraries the target exercises; SOURCES are module files compiled in directly
# where linking the whole module would build much more than the fuzzer reaches.
function(relforge_fuzz_target name)
  cmake_parse_arguments(ARG "" "" "DEPS;SOURCES" ${ARGN})
  set(fuzz_dir ${PROJECT_SOURCE_DIR}/tests/fuzz)
  if(RELFORGE_FUZZ)
    set(target ${name}_fuzz)
    add_executable(${target} ${fuzz_dir}/${name}_fuzz.cpp ${ARG_SOURCES})
    target_link_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
    if(NOT TARGET fuzz)
      add_custom_target(fuzz)
    endif()
    add_dependencies(fuzz ${target})
  else()
    set(target ${name}_fuzz_replay)
    add_executable(${target} ${fuzz_dir}/${name}_fuzz.cpp ${fuzz_dir}/replay_main.cpp ${ARG_SOURCES})
    # The seed corpus must exist (replaying nothing fails); regressions only once there are some.
    set(inputs ${fuzz_dir}/corpus/${name})
    if(EXISTS ${fuzz_dir}/regressions/${name})
      list(APPEND inputs ${fuzz_dir}/regressions/${name})
    endif()
    add_test(NAME fuzz.${name} COMMAND ${target} ${inputs})
    set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz)
  endif()
  target_link_libraries(${target} PRIVATE ${ARG_DEPS})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  relforge_warnings(${target})
endfunction()
