#!/bin/bash
# build.sh - configure and build out of tree (warnings are errors).
#   scripts/build.sh [BUILD_DIR [extra configure arguments]]   (default _build/main)
# Prints the build directory on its last line.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-_build/main}
shift || true
cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
	autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ config.status -ot "$top/configure" ]; then
	"$top/configure" --enable-werror --prefix=/usr --sysconfdir=/etc "$@" >configure.out ||
		{ tail -n 20 configure.out; exit 1; }
fi
make -j"$(nproc)" >make.out 2>&1 || { tail -n 40 make.out; exit 1; }
echo "$top/$build"
