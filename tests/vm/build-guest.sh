#!/bin/bash
# build-guest.sh - build everything the guest runs, statically, and pack the initramfs.
#
#   tests/vm/build-guest.sh [BUILD_DIR]          (default _build/vm-static)
#
# 1. configure --without-slurm in BUILD_DIR and link mpolctl with -all-static;
# 2. compile the tier's own programs (tests/vm/src/*.c) against that build's libsmpol;
# 3. pack BUILD_DIR/initramfs.cpio: busybox-static, the programs, guest/init and
#    guest/checks. The initramfs holds no kernel modules, so one serves every kernel.
# 4. build mem_interleave.so against this host's Slurm in BUILD_DIR-slurm and pack
#    BUILD_DIR/initramfs-slurm.cpio: the same plus a one-node Slurm (slurm-root.sh).
#    BUILD_DIR/slurm-image.txt says "ok", "skip: REASON" or "fail: REASON".
# 5. BUILD_DIR/initramfs-mpi.cpio: the Slurm image with Open MPI, MPICH and PMIx
#    (mpi-root.sh) and mpi-touch; BUILD_DIR/mpi-image.txt says the same as above.
# A program that fails to build is left out and named in BUILD_DIR/guest-missing.txt
# (with its compiler output in BUILD_DIR/guest-build.log); the checks that need it
# then fail in the guest. Exit 1 only when nothing usable could be built.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tests/vm
build=${1:-_build/vm-static}
case $build in /*) ;; *) build=$top/$build ;; esac
mkdir -p "$build"
log=$build/guest-build.log
: >"$log"
: >"$build/guest-missing.txt"
missing() { echo "$1" >>"$build/guest-missing.txt"; echo "build-guest: $1 not built (see $log)" >&2; }

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
	autoreconf -fi >>"$log" 2>&1
fi
if [ ! -f "$build/Makefile" ] || [ "$build/config.status" -ot configure ]; then
	(cd "$build" && "$top/configure" --enable-werror --without-slurm >configure.out 2>&1) ||
		{ tail -n 20 "$build/configure.out" >&2; echo "build-guest: configure failed" >&2; exit 1; }
fi
# libsmpol is a libtool convenience archive; -all-static makes libtool link mpolctl
# without any shared library, json-c and libc included.
make -C "$build" -j"$(nproc)" src/libsmpol/libsmpol.la >>"$log" 2>&1 || missing libsmpol
make -C "$build" -j"$(nproc)" LDFLAGS=-all-static src/mpolctl/mpolctl >>"$log" 2>&1 || missing mpolctl

smpol_includes=()  # libsmpol's folders, as Makefile.am puts them on the include path
for d in "$top"/src/libsmpol/*/; do smpol_includes+=(-I"${d%/}"); done
cflags=(-std=gnu11 -O2 -Wall -Wextra -Werror "${smpol_includes[@]}" -include "$build/config.h" -static)
mkdir -p "$build/guest-bin"
cc_prog() { # cc_prog NAME LIBS...
	local name=$1
	shift
	gcc "${cflags[@]}" -o "$build/guest-bin/$name" "$vm/src/$name.c" "$@" >>"$log" 2>&1 || {
		rm -f "$build/guest-bin/$name"
		missing "$name"
	}
}
cc_prog page-touch
# region-alloc, static: what LD_PRELOAD cannot reach (the Slurm image adds a dynamic one)
gcc "${cflags[@]}" -o "$build/guest-bin/region-alloc-static" "$vm/src/region-alloc.c" >>"$log" 2>&1 || {
	rm -f "$build/guest-bin/region-alloc-static"
	missing region-alloc-static
}
cc_prog pmbind-test
cc_prog jq-get -ljson-c
if [ -f "$build/src/libsmpol/.libs/libsmpol.a" ]; then
	cc_prog mpol-launch "$build/src/libsmpol/.libs/libsmpol.a" -ljson-c -lm
else
	missing mpol-launch
fi
# bench/regions -S's task, static: the sampler's case (the Slurm image adds a dynamic one)
if [ -f "$build/src/libsmpol/.libs/libsmpol.a" ]; then
	gcc "${cflags[@]}" -o "$build/guest-bin/regions-task-static" "$top/bench/regions-task.c" \
		"$build/src/libsmpol/.libs/libsmpol.a" >>"$log" 2>&1 || { rm -f "$build/guest-bin/regions-task-static"; missing regions-task-static; }
else
	missing regions-task-static
fi
# bench/stream's program, for the bandwidth check's run of every placement
make -C "$build" -j"$(nproc)" src/libsmpol-admin/libsmpol-admin.la >>"$log" 2>&1
if [ -f "$build/src/libsmpol-admin/.libs/libsmpol-admin.a" ] && [ -f "$build/src/libsmpol/.libs/libsmpol.a" ]; then
	gcc "${cflags[@]}" -I"$top/src/libsmpol-admin" -pthread -o "$build/guest-bin/stream-bench" "$top/bench/stream-bench.c" \
		"$build/src/libsmpol-admin/.libs/libsmpol-admin.a" "$build/src/libsmpol/.libs/libsmpol.a" -ljson-c -lm \
		>>"$log" 2>&1 || { rm -f "$build/guest-bin/stream-bench"; missing stream-bench; }
else
	missing stream-bench
fi

# The initramfs: everything root-owned, in a stable order.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# mktemp made the root 0700: ordinary users in the guest must get through it.
chmod 755 "$stage"
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,run,checks}
chmod 1777 "$stage/tmp"
cp /bin/busybox "$stage/bin/busybox" || { echo "build-guest: needs busybox-static (/bin/busybox)" >&2; exit 1; }
for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"; done
cp "$build"/guest-bin/* "$stage/bin/" 2>/dev/null
[ -x "$build/src/mpolctl/mpolctl" ] && ! grep -qx mpolctl "$build/guest-missing.txt" &&
	cp "$build/src/mpolctl/mpolctl" "$stage/bin/mpolctl"
cp "$vm/guest/init" "$stage/init"
cp "$vm/guest/lib.sh" "$stage/checks/lib.sh"
cp "$vm"/guest/checks/*.sh "$stage/checks/" 2>/dev/null
cp "$vm/topology.sh" "$stage/checks/topology.sh"
# The syscall number of process_mbind in the pmbind kernel (the patch says it).
"$vm/kernel/build-pmbind.sh" --nr >"$stage/checks/pmbind-nr"
chmod 755 "$stage/init" "$stage"/checks/*.sh
cp "$build/guest-missing.txt" "$stage/checks/missing.txt"
# The kernel opens /dev/console before /init can mount devtmpfs.
mknod -m 600 "$stage/dev/console" c 5 1
pack() { # pack DIR OUT
	(cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$2.new" && mv "$2.new" "$2"
}
pack "$stage" "$build/initramfs.cpio" || { echo "build-guest: cpio failed" >&2; exit 1; }

# The Slurm image: the plugin as slurmd loads it, built like any Slurm build of it.
slurm_image() {
	local sb=$build-slurm
	if ! command -v slurmd >/dev/null || ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
		echo "skip: the Slurm daemons are not installed (scripts/install-deps.sh cluster)"
		return
	fi
	mkdir -p "$sb"
	if [ ! -f "$sb/Makefile" ] || [ "$sb/config.status" -ot configure ]; then
		(cd "$sb" && "$top/configure" --enable-werror >configure.out 2>&1) ||
			{ echo "fail: configure with Slurm failed: $(tail -n 2 "$sb/configure.out" | tr '\n' ' ')"; return; }
	fi
	make -C "$sb" -j"$(nproc)" src/plugins/mem_interleave/mem_interleave.la \
		src/interpose/mem_interleave_regions.la >>"$log" 2>&1 ||
		{ echo "fail: mem_interleave.so or mem_interleave_regions.so did not build (see $log)"; return; }
	rm -rf "$stage-slurm"
	cp -a "$stage" "$stage-slurm"
	# the interposer's test program, dynamic: the guest has the C library Slurm needs
	local dynamic=() f
	for f in "${cflags[@]}"; do [ "$f" = -static ] || dynamic+=("$f"); done
	gcc "${dynamic[@]}" -o "$stage-slurm/bin/region-alloc" "$vm/src/region-alloc.c" >>"$log" 2>&1 ||
		{ echo "fail: region-alloc did not build (see $log)"; return; }
	# bench/regions -S (the slurm check runs it): the script and its dynamic task
	gcc "${dynamic[@]}" -o "$stage-slurm/bin/regions-task" "$top/bench/regions-task.c" \
		"$build/src/libsmpol/.libs/libsmpol.a" >>"$log" 2>&1 ||
		{ echo "fail: regions-task did not build (see $log)"; return; }
	mkdir -p "$stage-slurm/bench"
	cp "$top/bench/regions" "$stage-slurm/bench/regions"
	"$vm/slurm-root.sh" "$stage-slurm" "$sb/src/plugins/mem_interleave/.libs/mem_interleave.so" \
		"$sb/src/interpose/.libs/mem_interleave_regions.so" >>"$log" 2>&1 ||
		{ echo "fail: tests/vm/slurm-root.sh failed (see $log)"; return; }
	pack "$stage-slurm" "$build/initramfs-slurm.cpio" || { echo "fail: cpio of the Slurm image failed"; return; }
	echo ok
}
# The MPI image: the Slurm image plus Open MPI, MPICH and PMIx (mpi-root.sh, kept in
# the VM tier's cache, MPOL_VM_CACHE) and mpi-touch built against each MPI library.
mpi_image() {
	local t0=$SECONDS miss m root
	[ "$(cat "$build/slurm-image.txt")" = ok ] || { echo "skip: no Slurm image ($(cat "$build/slurm-image.txt"))"; return; }
	miss=$("$vm/mpi-root.sh" --check) ||
		{ echo "skip: the MPI packages are not installed: $miss (scripts/install-deps.sh vm)"; return; }
	root=$("$vm/mpi-root.sh" "${MPOL_VM_CACHE:-/var/cache/slurm-mempolicy-vm}/mpi-root" 2> >(tee -a "$log" |
		grep '^mpi-root: ' | sed 's/^/build-guest: /' >&2))
	[ -d "$root" ] || { echo "fail: tests/vm/mpi-root.sh failed (see $log)"; return; }
	rm -rf "$stage-mpi"
	cp -a "$stage-slurm" "$stage-mpi"
	cp -a "$root/." "$stage-mpi/"
	for m in openmpi mpich; do
		"mpicc.$m" -std=gnu11 -O2 -Wall -Wextra -Werror -o "$stage-mpi/bin/mpi-touch-$m" "$vm/src/mpi-touch.c" \
			>>"$log" 2>&1 || { echo "fail: mpi-touch did not build with mpicc.$m (see $log)"; return; }
	done
	pack "$stage-mpi" "$build/initramfs-mpi.cpio" || { echo "fail: cpio of the MPI image failed"; return; }
	echo "build-guest: MPI image $(du -m "$build/initramfs-mpi.cpio" | cut -f1) MB in $((SECONDS - t0)) s" >&2
	echo ok
}
rm -f "$build/initramfs-slurm.cpio" "$build/initramfs-mpi.cpio"
slurm_image >"$build/slurm-image.txt"
mpi_image >"$build/mpi-image.txt"
rm -rf "$stage-slurm" "$stage-mpi"
echo "$build/initramfs.cpio"
