#!/usr/bin/env bash
# Toolkit stage for CUDA images: the runfile, then cuDNN, NCCL, NVSHMEM and cuSPARSELt from
# NVIDIA's redistributable archives, all under CUDA_PREFIX.
# Inputs: CUDA_VERSION (12.6.3), CUDA_DRIVER (560.35.05), CUDA_PREFIX, and optionally
# CUDNN_VERSION, NCCL_VERSION, NVSHMEM_VERSION, CUSPARSELT_VERSION.
set -euo pipefail

: "${CUDA_VERSION:?}" "${CUDA_DRIVER:?}" "${CUDA_PREFIX:?}"
arch=$(uname -m)
case "$arch" in
  x86_64) runfile_arch="linux" redist_arch="linux-x86_64" ;;
  aarch64) runfile_arch="linux_sbsa" redist_arch="linux-sbsa" ;;
  *) echo "unsupported architecture $arch" >&2; exit 1 ;;
esac
major=${CUDA_VERSION%%.*}
redist=https://developer.download.nvidia.com/compute
work=$(mktemp -d)
cd "$work"

runfile="cuda_${CUDA_VERSION}_${CUDA_DRIVER}_${runfile_arch}.run"
wget -q "$redist/cuda/${CUDA_VERSION}/local_installers/${runfile}"
sh "$runfile" --silent --toolkit --toolkitpath="$CUDA_PREFIX" --no-man-page
ln -sfn "$CUDA_PREFIX" /usr/local/cuda

fetch() {  # fetch <product> <archive name>: unpack a redist archive into CUDA_PREFIX
  wget -q "$redist/$1/redist/$2/${redist_arch}/$3.tar.xz"
  tar -xf "$3.tar.xz"
  cp -a "$3"/include/* "$CUDA_PREFIX/include/"
  cp -a "$3"/lib/* "$CUDA_PREFIX/lib64/"
}
if [[ -n "${CUDNN_VERSION:-}" ]]; then
  fetch cudnn cudnn "cudnn-${redist_arch}-${CUDNN_VERSION}_cuda${major}-archive"
fi
if [[ -n "${NCCL_VERSION:-}" ]]; then
  fetch nccl nccl "nccl-${redist_arch}-${NCCL_VERSION}_cuda${major}-archive"
fi
if [[ -n "${NVSHMEM_VERSION:-}" ]]; then
  fetch nvshmem libnvshmem "libnvshmem-${redist_arch}-${NVSHMEM_VERSION}_cuda${major}-archive"
fi
if [[ -n "${CUSPARSELT_VERSION:-}" ]]; then
  fetch cusparselt libcusparse_lt "libcusparse_lt-${redist_arch}-${CUSPARSELT_VERSION}_cuda${major}-archive"
fi
"$CUDA_PREFIX/bin/nvcc" --version
rm -rf "$work"
