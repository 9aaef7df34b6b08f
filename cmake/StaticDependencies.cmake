# RELFORGE_STATIC: the targets Dependencies.cmake names, each made of .a files only, so that a
# library missing its archive fails here (naming it) instead of linking a .so by accident.
# Debian's -dev packages ship most archives; scripts/build-static-deps.sh builds the rest into
# RELFORGE_STATIC_DEPS (libcurl, libzip, cpp-httplib, toml++, a GSSAPI stand-in), which comes first.
if(NOT EXISTS "${RELFORGE_STATIC_DEPS}/lib/libcurl.a")
  message(FATAL_ERROR "RELFORGE_STATIC: no static libcurl in ${RELFORGE_STATIC_DEPS}; "
                      "run scripts/build-static-deps.sh (or `make dist`) first")
endif()
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)

# relforge_static_archive(VAR name): the full path of lib<name>.a, or a configure error.
function(relforge_static_archive var name)
  find_library(RELFORGE_STATIC_LIB_${name} NAMES lib${name}.a
               HINTS "${RELFORGE_STATIC_DEPS}/lib" NO_CACHE)
  if(NOT RELFORGE_STATIC_LIB_${name})
    message(FATAL_ERROR "RELFORGE_STATIC: lib${name}.a not found; install the Debian -dev package "
                        "that ships it, or build it in scripts/build-static-deps.sh")
  endif()
  set(${var} "${RELFORGE_STATIC_LIB_${name}}" PARENT_SCOPE)
endfunction()

# relforge_static_target(TARGET INCLUDES <dirs> DEFINES <defs> LIBS <names or targets>): an
# INTERFACE IMPORTED target linking lib<name>.a for each name (targets and -l flags as given).
# The first archive is an IMPORTED STATIC target that depends on the rest, so CMake places what it
# needs after it: as plain paths, a library two targets need (zlib, for curl and cpp-httplib) was
# listed once, after the first, and a program linking only the second failed (deflateEnd).
function(relforge_static_target target)
  cmake_parse_arguments(ARG "" "" "INCLUDES;DEFINES;LIBS" ${ARGN})
  set(main)
  set(rest)
  foreach(lib IN LISTS ARG_LIBS)
    if(lib MATCHES "::" OR lib MATCHES "^-")
      list(APPEND rest "${lib}")
    else()
      relforge_static_archive(path ${lib})
      if(NOT main)
        set(main "${path}")
      else()
        list(APPEND rest "${path}")
      endif()
    endif()
  endforeach()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  set(links ${rest})
  if(main)
    string(MAKE_C_IDENTIFIER "${target}" id)
    add_library(RelforgeStaticArchive::${id} STATIC IMPORTED GLOBAL)
    set_target_properties(RelforgeStaticArchive::${id} PROPERTIES
      IMPORTED_LOCATION "${main}"
      INTERFACE_LINK_LIBRARIES "${rest}")
    set(links RelforgeStaticArchive::${id})
  endif()
  set_target_properties(${target} PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${ARG_INCLUDES}"
    INTERFACE_COMPILE_DEFINITIONS "${ARG_DEFINES}"
    INTERFACE_LINK_LIBRARIES "${links}")
endfunction()

set(OPENSSL_USE_STATIC_LIBS TRUE)
find_package(OpenSSL REQUIRED)                   # OpenSSL::Crypto, OpenSSL::SSL (libssl.a, libcrypto.a)
find_package(SQLite3 REQUIRED)                   # SQLite::SQLite3 (libsqlite3.a)
foreach(archive IN ITEMS "${OPENSSL_CRYPTO_LIBRARY}" "${OPENSSL_SSL_LIBRARY}" "${SQLite3_LIBRARY}")
  if(NOT archive MATCHES "\\.a$")
    message(FATAL_ERROR "RELFORGE_STATIC: found ${archive}, not a static archive")
  endif()
endforeach()

relforge_static_target(ZLIB::ZLIB LIBS z)
relforge_static_target(CURL::libcurl
  INCLUDES "${RELFORGE_STATIC_DEPS}/include" DEFINES CURL_STATICLIB
  LIBS curl OpenSSL::SSL OpenSSL::Crypto ZLIB::ZLIB Threads::Threads)
relforge_static_target(PkgConfig::LIBZIP
  INCLUDES "${RELFORGE_STATIC_DEPS}/include" LIBS zip ZLIB::ZLIB)
relforge_static_target(PkgConfig::HTTPLIB
  INCLUDES "${RELFORGE_STATIC_DEPS}/include"
  DEFINES CPPHTTPLIB_OPENSSL_SUPPORT CPPHTTPLIB_ZLIB_SUPPORT CPPHTTPLIB_BROTLI_SUPPORT
  LIBS cpp-httplib OpenSSL::SSL OpenSSL::Crypto ZLIB::ZLIB brotlienc brotlidec brotlicommon
       Threads::Threads)
# libgit2 as Debian built it: mbedTLS for its HTTPS, libssh2 (over OpenSSL) for ssh remotes, and
# GSSAPI, which Kerberos has no .a of: gssapi_unavailable makes HTTP Negotiate auth fail cleanly.
relforge_static_target(PkgConfig::LIBGIT2
  LIBS git2 mbedtls mbedx509 mbedcrypto http_parser ssh2 gpg-error pcre2-8 gssapi_unavailable
       OpenSSL::Crypto ZLIB::ZLIB -lrt Threads::Threads)
relforge_static_target(PkgConfig::LIBELF LIBS elf ZLIB::ZLIB)
relforge_static_target(PkgConfig::RE2 LIBS re2 Threads::Threads)
relforge_static_target(PkgConfig::LIBURING LIBS uring)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  relforge_static_target(PkgConfig::LIBHS LIBS hs -lm)
endif()
# toml++ keeps the compile flags of Debian's package (TOML_HEADER_ONLY=0); only the library it
# links becomes the archive of the same code.
relforge_static_archive(toml_archive tomlplusplus)
set_target_properties(tomlplusplus::tomlplusplus PROPERTIES IMPORTED_LOCATION "${toml_archive}")

# Static glibc and libstdc++ too: no DT_NEEDED, no PT_INTERP, no symbol versions to check.
# static-pie, not -static: a -static link uses crtbeginT.o, which registers .eh_frame with libgcc,
# and the first exception thrown (CLI11 throws to end --version and --help) then sorts every FDE
# of the binary: 110 M instructions, ~10 ms. static-pie finds FDEs through .eh_frame_hdr's table,
# as a dynamic binary does (and gets ASLR); the loader-free start is the same.
add_link_options(-static-pie)
# Relative relocations packed as DT_RELR (binutils >= 2.38; the linked-in glibc 2.36 applies them):
# 34,000 RELA entries, 800 KB the start read page by page, become a 9 KB bitmap (0.4 ms a start).
add_link_options(-Wl,-z,pack-relative-relocs)
