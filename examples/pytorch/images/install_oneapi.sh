#!/usr/bin/env bash
# Toolkit stage for XPU images: Intel's oneAPI deep-learning essentials of ONEAPI_VERSION under
# ONEAPI_PREFIX (/opt/intel/oneapi). Inputs: ONEAPI_VERSION (2025.2), ONEAPI_PREFIX.
set -euo pipefail

: "${ONEAPI_VERSION:?}" "${ONEAPI_PREFIX:?}"
cat > /etc/yum.repos.d/oneAPI.repo <<REPO
[oneAPI]
name=Intel oneAPI
baseurl=https://yum.repos.intel.com/oneapi
enabled=1
gpgcheck=1
gpgkey=https://yum.repos.intel.com/intel-gpg-keys/GPG-PUB-KEY-INTEL-SW-PRODUCTS.PUB
REPO
dnf install -y "intel-deep-learning-essentials-${ONEAPI_VERSION}"
dnf clean all
test -d "$ONEAPI_PREFIX"
