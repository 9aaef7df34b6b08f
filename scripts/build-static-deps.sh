#!/usr/bin/env bash
# Builds the static libraries Debian does not ship usable .a files of, for `make dist`: a minimal
# libcurl (HTTP/HTTPS over OpenSSL only), libzip (deflate only) and cpp-httplib (Debian ships its
# compiled half only as a .so), from Debian's own source packages with Debian's patches applied,
# toml++'s compiled half from its installed headers, and a GSSAPI that answers "unavailable" for
# Debian's libgit2.a (built with Kerberos, which has no .a); all into build/dist-deps/prefix.
# Everything else the static binary links comes from Debian's -dev .a files.
#
# Idempotent: the sources are fetched once (build/dist-deps/src, then it works offline) and each
# library is rebuilt only when this script's settings for it change (a stamp holds their hash).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
deps=${RELFORGE_DIST_DEPS:-$root/build/dist-deps}
src=$deps/src
prefix=$deps/prefix
jobs=${JOBS:-2}
# The versions bookworm ships; a different one is refused rather than built unnoticed.
curl_version=7.88.1
libzip_version=1.7.3

say() { echo "build-static-deps: $*"; }

# Only HTTP and HTTPS through OpenSSL: what platform/http_client asks of libcurl. No CA bundle is
# compiled in: OpenSSL's default paths and SSL_CERT_FILE / SSL_CERT_DIR decide (docs/install.md).
curl_options=(
  -DBUILD_SHARED_LIBS=OFF -DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF -DENABLE_CURL_MANUAL=OFF
  -DHTTP_ONLY=ON -DCURL_USE_OPENSSL=ON -DCURL_DISABLE_LDAP=ON -DCURL_DISABLE_LDAPS=ON
  -DUSE_NGHTTP2=OFF -DUSE_LIBIDN2=OFF -DCURL_USE_LIBPSL=OFF -DCURL_USE_LIBSSH2=OFF -DCURL_USE_LIBSSH=OFF
  -DCURL_USE_GSSAPI=OFF -DCURL_BROTLI=OFF -DCURL_ZSTD=OFF -DUSE_LIBRTMP=OFF -DENABLE_ARES=OFF
  -DENABLE_THREADED_RESOLVER=ON -DCURL_ZLIB=ON
  -DCURL_CA_BUNDLE=none -DCURL_CA_PATH=none -DCURL_CA_FALLBACK=ON
)
# Deflate only: relforge reads and writes wheels, never encrypted or bzip2/xz archives.
libzip_options=(
  -DBUILD_SHARED_LIBS=OFF -DBUILD_TOOLS=OFF -DBUILD_REGRESS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_DOC=OFF
  -DENABLE_COMMONCRYPTO=OFF -DENABLE_GNUTLS=OFF -DENABLE_MBEDTLS=OFF -DENABLE_OPENSSL=OFF
  -DENABLE_WINDOWS_CRYPTO=OFF -DENABLE_BZIP2=OFF -DENABLE_LZMA=OFF
)
common_options=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
  -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_POSITION_INDEPENDENT_CODE=ON)

# A deb-src entry for the suites the machine's deb entries name (bookworm), once.
ensure_deb_src() {
  if grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ || grep -qs '^deb-src' /etc/apt/sources.list; then
    return
  fi
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  say "adding a deb-src entry (/etc/apt/sources.list.d/relforge-deb-src.sources)"
  $sudo tee /etc/apt/sources.list.d/relforge-deb-src.sources >/dev/null <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  $sudo apt-get update -qq
}

# The .dsc and tarballs of PACKAGE under $src; apt checks them against the signed Release files.
fetch() {
  local package=$1
  if ls "$src"/"${package}"_*.dsc >/dev/null 2>&1; then return; fi
  ensure_deb_src
  mkdir -p "$src.tmp"
  say "fetching Debian's source package $package"
  if ! (cd "$src.tmp" && apt-get source --download-only -qq "$package" 2>&1 | grep -v '^W: Download is performed unsandboxed'); then
    [ -n "$(ls "$src.tmp"/"${package}"_*.dsc 2>/dev/null)" ] || {
      echo "build-static-deps: cannot fetch the source of $package; it needs deb.debian.org once," \
        "after that build/dist-deps/src is enough" >&2
      exit 1
    }
  fi
  mkdir -p "$src"
  mv "$src.tmp"/* "$src"/
  rmdir "$src.tmp"
}

# apt checked the .dsc against the archive's signed index when it fetched it; every unpack checks
# the tarballs against the .dsc's sha256 lines (dpkg-source --no-check skips that, and the
# maintainers' keys for its own signature check are not installed).
check_dsc() {
  local dsc=$1
  (cd "$(dirname "$dsc")" &&
    awk '/^Checksums-Sha256:/ {f = 1; next} /^[^ ]/ {f = 0} f && NF == 3 {print $1 "  " $3}' "$(basename "$dsc")" |
    sha256sum --quiet --strict -c -) ||
    { echo "build-static-deps: the files of $dsc do not match its checksums; delete $src and rerun" >&2; exit 1; }
}

# Unpacks (dpkg-source applies Debian's patches), configures, builds and installs one library.
build() {
  local package=$1 version=$2
  shift 2
  local stamp=$prefix/.stamp-$package
  local want
  want=$(printf '%s\n' "$version" "$@" "$(gcc -dumpfullversion)" | sha256sum | cut -c1-16)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    say "$package $version: up to date"
    return
  fi
  fetch "$package"
  local dsc
  dsc=$(ls "$src"/"${package}"_"${version}"[-+]*.dsc 2>/dev/null | sort | tail -n1)
  [ -n "$dsc" ] || {
    echo "build-static-deps: no $package $version source under $src (found: $(ls "$src"))" >&2
    exit 1
  }
  local work=$deps/work/$package
  rm -rf "$work"
  mkdir -p "$work"
  check_dsc "$dsc"
  dpkg-source --no-check -x "$dsc" "$work/src" >/dev/null
  say "$package $version: configuring and building"
  cmake -S "$work/src" -B "$work/build" "${common_options[@]}" "$@" >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log" >&2; exit 1; }
  cmake --build "$work/build" -j "$jobs" >"$work/build.log" 2>&1 || { tail -50 "$work/build.log" >&2; exit 1; }
  cmake --install "$work/build" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; exit 1; }
  rm -rf "$work/build" "$work/src"
  echo "$want" >"$stamp"
}

# cpp-httplib the way Debian builds it (split.py, same -D flags as its cpp-httplib.pc), as a .a.
build_httplib() {
  local version=0.11.4 stamp=$prefix/.stamp-cpp-httplib flags
  flags="-DCPPHTTPLIB_OPENSSL_SUPPORT -DCPPHTTPLIB_ZLIB_SUPPORT -DCPPHTTPLIB_BROTLI_SUPPORT"
  local want
  want=$(printf '%s\n' "$version" "$flags" "$(gcc -dumpfullversion)" no-sslinit | sha256sum | cut -c1-16)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    say "cpp-httplib $version: up to date"
    return
  fi
  fetch cpp-httplib
  local work=$deps/work/cpp-httplib
  rm -rf "$work"
  mkdir -p "$work"
  local dsc
  dsc=$(ls "$src"/cpp-httplib_"$version"*.dsc | sort | tail -n1)
  check_dsc "$dsc"
  dpkg-source --no-check -x "$dsc" "$work/src" >/dev/null
  say "cpp-httplib $version: building"
  python3 "$work/src/split.py" --out "$work/out" >/dev/null
  # httplib.cc's one static object, SSLInit, calls OPENSSL_init_ssl before main: every start of
  # the binary loaded OpenSSL's error strings and read openssl.cnf, 58% of the instructions of
  # `relforge version compare`. OpenSSL 3 initialises itself on first use, with the same defaults.
  grep -qx 'static SSLInit sslinit_;' "$work/out/httplib.cc" ||
    { echo "build-static-deps: cpp-httplib $version's httplib.cc has no 'static SSLInit sslinit_;' line" \
        "to drop; check how this version initialises OpenSSL and update build_httplib" >&2; exit 1; }
  sed -i '/^static SSLInit sslinit_;$/d' "$work/out/httplib.cc"
  # shellcheck disable=SC2086
  g++ -std=c++17 -O2 -fPIC $flags -I"$work/out" -c "$work/out/httplib.cc" -o "$work/httplib.o"
  mkdir -p "$prefix/lib" "$prefix/include"
  rm -f "$prefix/lib/libcpp-httplib.a"
  ar rcs "$prefix/lib/libcpp-httplib.a" "$work/httplib.o"
  cp "$work/out/httplib.h" "$prefix/include/httplib.h"
  rm -rf "$work"
  echo "$want" >"$stamp"
}

# toml++'s compiled half as Debian's libtomlplusplus.so has it: its headers with the flags of its
# tomlplusplus.pc (relforge's sources are compiled with the same flags, so they need no rebuild).
build_toml() {
  local header=/usr/include/toml++/toml.h stamp=$prefix/.stamp-tomlplusplus
  local flags="-DTOML_HEADER_ONLY=0 -DTOML_SHARED_LIB=1"
  [ -f "$header" ] || { echo "build-static-deps: $header is missing (apt-get install libtomlplusplus-dev)" >&2; exit 1; }
  local want
  want=$(printf '%s\n' "$flags" "$(sha256sum "$header" /usr/include/toml++/impl/*)" "$(gcc -dumpfullversion)" |
    sha256sum | cut -c1-16)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    say "toml++: up to date"
    return
  fi
  say "toml++: building"
  local work=$deps/work/tomlplusplus
  rm -rf "$work"
  mkdir -p "$work" "$prefix/lib"
  printf '#define TOML_IMPLEMENTATION\n#include <toml++/toml.h>\n' >"$work/toml.cpp"
  # shellcheck disable=SC2086
  g++ -std=c++17 -O2 -fPIC $flags -c "$work/toml.cpp" -o "$work/toml.o"
  rm -f "$prefix/lib/libtomlplusplus.a"
  ar rcs "$prefix/lib/libtomlplusplus.a" "$work/toml.o"
  rm -rf "$work"
  echo "$want" >"$stamp"
}

# Debian's libgit2.a (with Debian's security patches) needs GSSAPI; scripts/static/ has the stand-in.
build_gssapi_unavailable() {
  local source=$root/scripts/static/gssapi_unavailable.c stamp=$prefix/.stamp-gssapi-unavailable want
  want=$(sha256sum "$source" | cut -c1-16)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    say "gssapi (unavailable): up to date"
    return
  fi
  local work=$deps/work/gssapi
  rm -rf "$work"
  mkdir -p "$work" "$prefix/lib"
  gcc -std=c11 -O2 -fPIC -Wall -Wextra -Werror -c "$source" -o "$work/gssapi_unavailable.o"
  rm -f "$prefix/lib/libgssapi_unavailable.a"
  ar rcs "$prefix/lib/libgssapi_unavailable.a" "$work/gssapi_unavailable.o"
  rm -rf "$work"
  echo "$want" >"$stamp"
}

mkdir -p "$prefix"
# Two `make dist` at once (two terminals, a CI retry) take turns instead of building into one prefix.
exec 9>"$deps/.lock"
flock 9
build_gssapi_unavailable
build_toml
build_httplib
build curl "$curl_version" "${curl_options[@]}"
build libzip "$libzip_version" "${libzip_options[@]}"
for a in libcurl.a libzip.a libcpp-httplib.a libtomlplusplus.a libgssapi_unavailable.a; do
  [ -f "$prefix/lib/$a" ] || { echo "build-static-deps: $prefix/lib/$a is missing after the build" >&2; exit 1; }
done
say "static libcurl, libzip, cpp-httplib, toml++ and the GSSAPI stand-in in $prefix"
