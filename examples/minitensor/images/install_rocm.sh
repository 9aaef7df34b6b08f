#!/usr/bin/env bash
# Toolkit stage for ROCm images: AMD's repository for ROCM_VERSION, the development packages,
# installed under ROCM_PREFIX. Inputs: ROCM_VERSION (7.2), PYTORCH_ROCM_ARCH, ROCM_PREFIX.
set -euo pipefail

: "${ROCM_VERSION:?}" "${PYTORCH_ROCM_ARCH:?}" "${ROCM_PREFIX:?}"
cat > /etc/yum.repos.d/rocm.repo <<REPO
[rocm]
name=ROCm ${ROCM_VERSION}
baseurl=https://repo.radeon.com/rocm/el8/${ROCM_VERSION}/main
enabled=1
gpgcheck=1
gpgkey=https://repo.radeon.com/rocm/rocm.gpg.key
REPO
dnf install -y rocm-dev rocm-libs miopen-hip-devel rccl-devel hipblaslt-devel
dnf clean all
test -d "$ROCM_PREFIX"
echo "ROCm ${ROCM_VERSION} for ${PYTORCH_ROCM_ARCH}"
