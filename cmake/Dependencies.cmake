# Every external dependency is found here, once. Modules link the imported targets.
find_package(PkgConfig REQUIRED)

# RELFORGE_STATIC (the `dist` preset): the same targets, made of static archives, and a -static
# link, for a binary that runs with nothing installed (docs/install.md). Every other preset links
# the shared libraries.
option(RELFORGE_STATIC "Link relforge fully statically (glibc, libstdc++ and every library)" OFF)
set(RELFORGE_STATIC_DEPS "${PROJECT_SOURCE_DIR}/build/dist-deps/prefix" CACHE PATH
    "Where scripts/build-static-deps.sh installed static libcurl, libzip and cpp-httplib")

find_package(CLI11 CONFIG REQUIRED)            # CLI11::CLI11
find_package(nlohmann_json CONFIG REQUIRED)    # nlohmann_json::nlohmann_json
find_package(tomlplusplus REQUIRED)            # tomlplusplus::tomlplusplus
find_package(tl-expected REQUIRED)             # tl::expected
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)                 # Threads::Threads

if(NOT RELFORGE_STATIC)
  find_package(CURL REQUIRED)                    # CURL::libcurl
  find_package(SQLite3 REQUIRED)                 # SQLite::SQLite3
  find_package(OpenSSL REQUIRED)                 # OpenSSL::Crypto, OpenSSL::SSL
  find_package(ZLIB REQUIRED)                    # ZLIB::ZLIB
  pkg_check_modules(LIBGIT2 REQUIRED IMPORTED_TARGET libgit2)   # PkgConfig::LIBGIT2
  pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)     # PkgConfig::LIBZIP
  pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)     # PkgConfig::LIBELF
  pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)  # PkgConfig::HTTPLIB
  pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)           # PkgConfig::RE2
  pkg_check_modules(LIBURING REQUIRED IMPORTED_TARGET liburing) # PkgConfig::LIBURING
  # Hyperscan (x86-64 only): triage's multi-pattern prefilter; elsewhere triage uses RE2::Set alone.
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    pkg_check_modules(LIBHS REQUIRED IMPORTED_TARGET libhs)     # PkgConfig::LIBHS
  endif()
else()
  include(${CMAKE_CURRENT_LIST_DIR}/StaticDependencies.cmake)
endif()

if(RELFORGE_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)          # GTest::gtest_main, GTest::gmock
endif()
if(RELFORGE_BUILD_BENCH)
  find_package(benchmark REQUIRED)             # benchmark::benchmark
endif()
