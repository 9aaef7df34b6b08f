#!/usr/bin/env bash
# minitensor's recipe: compiles the core and the CPython extension for one matrix cell and writes
# an unrepaired `linux_x86_64` wheel into $RELFORGE_OUT. relforge runs it with a clean environment:
#   RELFORGE_PYTHON       the interpreter to build for (its headers and extension suffix)
#   RELFORGE_CELL         the cell id, e.g. 3.11-cu130 (for messages)
#   RELFORGE_VERSION      the public version (0.3.0.dev20260101); `relforge wheel repair` adds +cpu/+cu130
#   RELFORGE_LOCAL_VERSION the variant (cpu, cu130), baked into minitensor.__version__
#   GPU_ARCH_TYPE         cpu or cuda; GPU_ARCH_VERSION 13.0; DESIRED_CUDA cu130
#   TORCH_CUDA_ARCH_LIST  "7.5;8.0;...;12.0": SASS for each, PTX for the newest
#   MAX_JOBS              parallel compile jobs; RELFORGE_OUT where the wheel goes
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${RELFORGE_PYTHON:?the interpreter to build for}" "${RELFORGE_VERSION:?the version}" "${RELFORGE_OUT:?the output folder}"
arch_type=${GPU_ARCH_TYPE:-cpu}
local_version=${RELFORGE_LOCAL_VERSION:-}
jobs=${MAX_JOBS:-1}
echo "minitensor recipe: cell ${RELFORGE_CELL:-?}, python $RELFORGE_PYTHON, $arch_type ${GPU_ARCH_VERSION:-}, jobs $jobs"

include=$("$RELFORGE_PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
suffix=$("$RELFORGE_PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
[ -f "$include/Python.h" ] || { echo "error: $include/Python.h is missing: install the Python development headers (python3-dev)" >&2; exit 1; }

build=$PWD/build
stage=$PWD/stage
rm -rf "$build" "$stage"
mkdir -p "$build" "$stage/minitensor" "$RELFORGE_OUT"

# No exceptions, RTTI or libstdc++: the extension then needs only libc (manylinux friendly).
cxxflags=(-std=c++17 -O2 -fPIC -fno-exceptions -fno-rtti -fvisibility=hidden -Wall -Wextra)
# relforge's CXXFLAGS map the source and work folders to "." (__FILE__ in asserts would otherwise
# put this checkout's path into the extension); see docs/building.md "Reproducible builds".
read -r -a extra_cxxflags <<<"${CXXFLAGS:-}"
cxxflags+=("${extra_cxxflags[@]}")
objects=()
compile() {  # compile SOURCE OBJECT [extra flags]
  local source=$1 object=$2; shift 2
  g++ "${cxxflags[@]}" "$@" -c "$source" -o "$object"
}
compile "$here/csrc/tensor.cpp" "$build/tensor.o" &
core=$!
compile "$here/csrc/module.cpp" "$build/module.o" -I"$include"
wait "$core"
objects+=("$build/tensor.o" "$build/module.o")

link=(g++ -shared -nodefaultlibs -o "$stage/minitensor/_C$suffix")
libs=(-lc -lgcc_s)
cuda_version=None
case "$arch_type" in
  cpu)
    compile "$here/csrc/cpu_backend.cpp" "$build/cpu_backend.o"
    objects+=("$build/cpu_backend.o")
    ;;
  cuda)
    nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
    [ -x "$nvcc" ] || { echo "error: $nvcc not found: the CUDA ${GPU_ARCH_VERSION:-} toolkit is needed for cell ${RELFORGE_CELL:-}" >&2; exit 1; }
    IFS=';' read -r -a arches <<<"${TORCH_CUDA_ARCH_LIST:?the CUDA arch list}"
    gencode=()
    for arch in "${arches[@]}"; do
      sm=${arch//./}
      gencode+=(-gencode "arch=compute_$sm,code=sm_$sm")
    done
    newest=${arches[-1]//./}
    gencode+=(-gencode "arch=compute_$newest,code=compute_$newest")  # PTX only for the newest
    # Reproducible device code: cudafe++ hashes the source's absolute path into the module id (and
    # so into every anonymous-namespace kernel name), unless it is told a relative one; --keep names
    # the intermediate files after the source instead of tmpxft_<pid>_..., which would otherwise be
    # the host object's STT_FILE symbol. nvcc adds relforge's NVCC_APPEND_FLAGS (prefix maps).
    mkdir -p "$build/nvcc"
    "$nvcc" -std=c++17 -O2 -Xcompiler -fPIC,-fvisibility=hidden --threads "$jobs" "${gencode[@]}" \
      --keep --keep-dir "$build/nvcc" -Xcudafe --orig_src_path_name=csrc/cuda_ops.cu \
      -c "$here/csrc/cuda_ops.cu" -o "$build/cuda_ops.o"
    objects+=("$build/cuda_ops.o")
    # cudart statically: the wheel imports on machines without CUDA and reports no GPU there.
    cudalib=$(dirname "$nvcc")/../lib64
    libs=(-L"$cudalib" -lcudart_static -lrt -lpthread -ldl)
    link=(g++ -shared -o "$stage/minitensor/_C$suffix")
    cuda_version="'${GPU_ARCH_VERSION:?the CUDA version}'"
    ;;
  *)
    echo "error: GPU_ARCH_TYPE '$arch_type' is not supported by minitensor (cpu, cuda)" >&2
    exit 1
    ;;
esac
"${link[@]}" "${objects[@]}" "${libs[@]}"

# manylinux_2_28 allows GLIBC_2.28 at most, but linking on a newer host binds cudart_static's
# dlopen/pthread_*/sem_* calls to their GLIBC_2.34 versions. Rebind them to the older versions
# the same libc still exports: rename them in a copy of cudart_static and jump through stubs that
# name the old version explicitly (.symver).
if [ "$arch_type" = cuda ]; then
  so="$stage/minitensor/_C$suffix"
  mapfile -t newer < <(objdump -T "$so" | awk '/\*UND\*/ && $(NF-1) ~ /^\(GLIBC_2\.(29|[3-9][0-9])\)$/ {print $NF}' | sort -u)
  if [ "${#newer[@]}" -gt 0 ]; then
    libc=$(g++ -print-file-name=libc.so.6)
    [ -f "$libc" ] || libc=/lib/x86_64-linux-gnu/libc.so.6
    exports=$(objdump -T "$libc")
    redefine=()
    {
      echo '.text'
      for sym in "${newer[@]}"; do
        old=$(awk -v s="$sym" '$NF == s {v = $(NF-1); gsub(/[()]/, "", v); print v}' <<<"$exports" | sort -V | head -1)
        [ -n "$old" ] || { echo "error: $sym has no older version in $libc" >&2; exit 1; }
        redefine+=(--redefine-sym "$sym=mt_compat_$sym")
        printf '.symver %s_v, %s@%s\n.globl mt_compat_%s\n.hidden mt_compat_%s\n.type mt_compat_%s,@function\nmt_compat_%s: jmp %s_v@PLT\n' \
          "$sym" "$sym" "$old" "$sym" "$sym" "$sym" "$sym" "$sym"
      done
      echo '.section .note.GNU-stack,"",@progbits'
    } >"$build/compat.s"
    cp "$cudalib/libcudart_static.a" "$build/libcudart_static.a"
    objcopy "${redefine[@]}" "$build/libcudart_static.a"
    gcc -c "$build/compat.s" -o "$build/compat.o"
    echo "rebinding ${#newer[@]} glibc symbols newer than 2.28 to their older versions"
    "${link[@]}" "${objects[@]}" "$build/compat.o" -L"$build" -lcudart_static -lrt -lpthread -ldl
  fi
fi

full_version=$RELFORGE_VERSION${local_version:++$local_version}
cp "$here/python/minitensor/__init__.py" "$stage/minitensor/"
cat >"$stage/minitensor/version.py" <<PY
__version__ = '$full_version'
cuda = $cuda_version
PY
"$RELFORGE_PYTHON" "$here/write_wheel.py" "$stage" "$RELFORGE_VERSION" "$RELFORGE_OUT"
