#!/bin/bash
# demo-node.sh - the part of the demo that needs no cluster: this machine's memory and
# a bundled machine's (two CPU nodes, CXL memory, HMAT data), as `mpolctl show` and
# `mpolctl plan` print them. scripts/demo.sh runs it with the installed mpolctl; the
# host test tier runs it with the build's (tests/host/t_demo.sh), so the showcase a new
# admin sees first is tested on every change. Exits non-zero when any command fails.
#   scripts/demo-node.sh [MPOLCTL]      (default: mpolctl on PATH)
set -euo pipefail
mpolctl=${1:-mpolctl}
case $mpolctl in */*) mpolctl=$(realpath "$mpolctl") ;; esac   # still found after the cd
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
# show CMD...: print the command, then run it; a failure ends the demo with its status.
show() {
	local rc=0
	printf '$ %s\n' "$*"
	"$@" || rc=$?
	[ "$rc" -eq 0 ] || { printf 'demo: "%s" failed (exit %d)\n' "$*" "$rc" >&2; exit "$rc"; }
}

step "This machine's memory (mpolctl show, mpolctl plan)"
show "$mpolctl" show
show "$mpolctl" plan

# A captured machine, named as an admin in the source tree types it: a relative path.
fixture=tests/fixtures/linux-7.3-boot
step "A bundled machine with two CPU nodes, CXL memory and HMAT data ($fixture)"
show "$mpolctl" show --fsroot "$fixture"
show "$mpolctl" plan --fsroot "$fixture"
