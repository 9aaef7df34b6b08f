# shellcheck shell=bash
# start_serve RELFORGE ROOT LOG: `relforge serve` of ROOT on a free loopback port, in the
# background, its output in LOG. Sets serve_pid, and port once serve has said which (10 s at
# most); returns 1 (port empty) when serve exited or never said. The caller kills serve_pid.
start_serve() {
  "$1" serve --root "$2" --port 0 >"$3" 2>&1 &
  serve_pid=$!
  port=
  for _ in $(seq 100); do
    port=$(sed -n 's/.*(port \([0-9][0-9]*\)).*/\1/p' "$3")
    [ -n "$port" ] && return 0
    kill -0 "$serve_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
