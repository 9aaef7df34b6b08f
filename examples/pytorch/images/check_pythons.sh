#!/usr/bin/env bash
# Final stage: every CPython the matrix builds for must be in /opt/python/<tag> (manylinux's
# layout) with a working interpreter. Arguments: the tags, e.g. cp312-cp312 cp314-cp314t.
set -euo pipefail

for tag in "$@"; do
  python="/opt/python/${tag}/bin/python"
  if [[ ! -x "$python" ]]; then
    echo "missing CPython ${tag}: ${python} does not exist in this base image" >&2
    exit 1
  fi
  "$python" -c 'import sys; print(sys.version)'
done
