# RELFORGE_SANITIZE=ON builds everything with ASan + UBSan (the `asan` preset).
if(RELFORGE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# RELFORGE_FUZZ=ON (the `fuzz` preset) instruments every library for libFuzzer's coverage feedback
# and ASan + UBSan; any sanitizer report aborts, so the fuzzer saves the input as a crash.
# Only tests/fuzz is built in this mode (see cmake/Fuzz.cmake).
option(RELFORGE_FUZZ "Build the libFuzzer targets of tests/fuzz (clang) instead of the test suites" OFF)
if(RELFORGE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "RELFORGE_FUZZ needs clang (libFuzzer); configure with the `fuzz` preset")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
