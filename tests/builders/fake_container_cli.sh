#!/bin/bash
# A stand-in for docker and podman in tests, copied into a folder as `docker` or `podman`. It
# appends each command line to argv.log beside itself (the arguments joined with single spaces),
# knows the images listed in `images` (one a line), pulls those listed in `pullable`, records
# `kill NAME` in `killed`, and runs `run ... IMAGE COMMAND...` here with bash's help: the mounts'
# container paths are mapped back to their host folders in the arguments and -e values.
set -u
here=$(cd "$(dirname "$0")" && pwd)
printf '%s\n' "$(basename "$0") $*" >>"$here/argv.log"
case "${1:-}" in
  image)
    [ "${2:-}" = inspect ] && grep -qxF -- "${3:-}" "$here/images" 2>/dev/null && exit 0
    echo "Error: No such image: ${3:-}" >&2
    exit 1 ;;
  pull)
    if grep -qxF -- "$2" "$here/pullable" 2>/dev/null; then
      echo "$2" >>"$here/images"
      echo "pulled $2"
      exit 0
    fi
    echo "Error response from daemon: pull access denied for $2" >&2
    exit 1 ;;
  kill)
    echo "$2" >>"$here/killed"
    exit 0 ;;
  run) shift ;;
  *)
    echo "fake container cli: unknown command ${1:-}" >&2
    exit 2 ;;
esac
mounts=() envs=() workdir=/
while [ $# -gt 0 ]; do
  case "$1" in
    --rm) shift ;;
    --name | --gpus | --device | --group-add) shift 2 ;;
    --volume) mounts+=("$2"); shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    -*) echo "fake container cli: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
shift  # the image
to_host() {
  local value=$1 mount host rest inside
  for mount in "${mounts[@]}"; do
    host=${mount%%:*} rest=${mount#*:}
    inside=${rest%%:*}
    value=${value//"$inside"/"$host"}
  done
  printf '%s' "$value"
}
args=()
for arg in "$@"; do args+=("$(to_host "$arg")"); done
vars=()
for spec in "${envs[@]}"; do
  case "$spec" in
    *=*) vars+=("${spec%%=*}=$(to_host "${spec#*=}")") ;;
    *) vars+=("$spec=$(to_host "${!spec-}")") ;;
  esac
done
cd "$(to_host "$workdir")" || exit 125
exec env -i PATH="$PATH" "${vars[@]}" "${args[@]}"
