#!/bin/bash
# build-pmbind.sh - build the VM tier's guest kernel that has process_mbind: Debian's
# 6.12 source (linux-source-6.12, bookworm-backports first) with process_mbind.patch,
# configured as allnoconfig + pmbind.config (everything built in), into the cache the
# tier boots kernels from ($MPOL_VM_CACHE, default /var/cache/slurm-mempolicy-vm).
#
#   tests/vm/kernel/build-pmbind.sh [--debug] [--refresh]   build unless cached
#   tests/vm/kernel/build-pmbind.sh [--debug] --cached      exit 0 when a build is cached, else 1
#   tests/vm/kernel/build-pmbind.sh --nr          print process_mbind's syscall number
#   tests/vm/kernel/build-pmbind.sh [--debug] --prune       remove other builds but the newest 3
#   tests/vm/kernel/build-pmbind.sh [--debug] --path        print where this patch and config's build goes
#
# --debug: the same patch with pmbind.config plus pmbind-debug.config (DEBUG_VM,
# PROVE_LOCKING, KASAN; a later line wins), as kernels/pmbind-debug, a link to
# kernels/pmbind-debug-builds/ID: the kernel the pmbind checks also run on, for a
# clean kernel log under the kernel's own checkers. It builds slower (see README.md).
#
# Result: $MPOL_VM_CACHE/kernels/pmbind/{vmlinuz,config,release,package,key,cost}, a link
# to kernels/pmbind-builds/ID, one build per patch and config (ID: their hashes'), so
# branches with different configs each keep theirs (a new build keeps the 3 newest
# others and removes older ones). key is "linux-source-6.12=VERSION
# patch=SHA256 config=SHA256": a cached build whose patch and config hashes match costs
# nothing (no apt call; the link is pointed at it); --refresh resolves the newest source
# version again and rebuilds when any part of the key changed. The cold
# build prints what each step cost (cost keeps the line). Build: nice -n 19 make
# -j$MPOL_VM_KERNEL_JOBS (default 2). Needs root (apt sources, /var/cache) and flex,
# bison, bc, libelf-dev (scripts/install-deps.sh vm).
# Exit: 0 built or cached; 1 the source or tools are not available (the tier skips);
# 3 the kernel does not build (the patch does not apply, an option of pmbind.config
# is lost, a compile error: the tier fails); 2 bad usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vm=$(dirname "$here")
patch=$here/process_mbind.patch
fragment=$here/pmbind.config
debug_fragment=$here/pmbind-debug.config
cache=${MPOL_VM_CACHE:-/var/cache/slurm-mempolicy-vm}
jobs=${MPOL_VM_KERNEL_JOBS:-2}
pkg=linux-source-6.12
# builds of other patches or configs kept besides this one (3 MB each)
KEEP_OLD=3

# The syscall number lives in one place, the patch's line of syscall_64.tbl.
syscall_nr() { sed -n 's/^+\([0-9][0-9]*\)[[:space:]]\{1,\}64[[:space:]]\{1,\}process_mbind[[:space:]].*/\1/p' "$patch"; }

refresh=0 flavour=pmbind
if [ "${1:-}" = --debug ]; then
	flavour=pmbind-debug
	shift
fi
case ${1:-} in
--nr) syscall_nr; exit 0 ;;
--refresh) refresh=1 ;;
--cached | --prune | --path | "") ;;
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) echo "build-pmbind: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "build-pmbind: --debug, then one argument at most" >&2; exit 2; }
link=$cache/kernels/$flavour

sha() { sha256sum <"$1" | cut -d' ' -f1; }
hashes="patch=$(sha "$patch") config=$(sha "$fragment")"
[ $flavour = pmbind ] || hashes="$hashes debug=$(sha "$debug_fragment")"
build_id() { printf '%s' "$1" | sha256sum | cut -c1-16; }
out=$cache/kernels/$flavour-builds/$(build_id "$hashes")
cached() { [ -s "$out/vmlinuz" ] && [ -s "$out/release" ] && [ "$(cut -d' ' -f2- "$out/key" 2>/dev/null)" = "$hashes" ]; }
# use: point kernels/pmbind (what tests/vm/run boots) at this build.
use() {
	ln -sfn "$flavour-builds/${out##*/}" "$link.new" && mv -T "$link.new" "$link"
}
# prune_old_builds: builds of other patches or configs (other branches) are kept,
# the newest KEEP_OLD; this one never goes. None to remove is no error (under
# pipefail a grep that selects nothing would end the script after a good build).
prune_old_builds() {
	local others
	others=$(ls -1dt "$cache/kernels/$flavour-builds"/*/ 2>/dev/null | sed 's:/$::' | grep -vxF "$out" || true)
	[ -n "$others" ] || return 0
	tail -n +$((KEEP_OLD + 1)) <<<"$others" | xargs -r rm -rf
}
# A build from before pmbind-builds/ (a directory at the link's place) moves under its
# ID, under the build lock (another run may be moving it too).
if [ $flavour = pmbind ] && [ -d "$link" ] && [ ! -L "$link" ] && [ "$(id -u)" -eq 0 ]; then
	{
		flock 9
		if [ -d "$link" ] && [ ! -L "$link" ]; then
			old=$cache/kernels/pmbind-builds/$(build_id "$(cut -d' ' -f2- "$link/key" 2>/dev/null)")
			mkdir -p "${old%/*}" && rm -rf "$old" && mv -T "$link" "$old" && ln -s "pmbind-builds/${old##*/}" "$link"
		fi
	} 9>"$cache/pmbind.lock"
fi
if [ "${1:-}" = --cached ]; then cached; exit; fi
if [ "${1:-}" = --path ]; then echo "$out"; exit 0; fi
if [ "${1:-}" = --prune ]; then prune_old_builds; exit 0; fi
if [ $refresh = 0 ] && cached; then
	use
	echo "build-pmbind: $(cat "$out/release") (cached, $(cut -d' ' -f1 "$out/key"))"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "build-pmbind: run as root: the apt sources and $cache need it" >&2
	exit 1
fi
for tool in flex bison bc gcc make patch xz; do
	command -v $tool >/dev/null || { echo "build-pmbind: $tool is missing: scripts/install-deps.sh vm" >&2; exit 1; }
done
[ -f /usr/include/libelf.h ] || { echo "build-pmbind: libelf-dev is missing: scripts/install-deps.sh vm" >&2; exit 1; }

mkdir -p "$cache/kernels"
exec 9>"$cache/$flavour.lock"
flock 9
# Another run may have built it while this one waited.
if [ $refresh = 0 ] && cached; then
	use
	echo "build-pmbind: $(cat "$out/release") (cached, built meanwhile)"
	exit 0
fi
. "$vm/apt-suites.sh"
configure_apt

# The newest linux-source-6.12 of bookworm-backports, else of bookworm(-security).
version=$(apt-cache madison $pkg | awk -F'|' '
	{ gsub(/ /, "", $2); split($3, s, " "); suite = s[2]; sub(/\/.*/, "", suite) }
	suite == "bookworm-backports" { print 1, $2 }
	suite ~ /^bookworm(-security|-updates)?$/ { print 2, $2 }' | sort -k1,1n -k2,2V | awk 'NR == 1 { p = $1 } $1 == p { v = $2 } END { print v }')
if [ -z "$version" ]; then
	echo "build-pmbind: no $pkg in bookworm-backports or bookworm in the apt lists" >&2
	exit 1
fi
key="$pkg=$version $hashes"
if [ -s "$out/vmlinuz" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	use
	echo "build-pmbind: $(cat "$out/release") (cached, $pkg=$version is still the newest)"
	exit 0
fi

t0=$SECONDS
# What a killed run left (the lock says no other run is building).
rm -rf "$cache/tmp-$flavour".*
tmp=$(mktemp -d "$cache/tmp-$flavour.XXXXXX")
# apt-get download runs as _apt where it can: let it write here.
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
log=$tmp/build.log
step() { # step NAME START: one line of the cost report
	printf '%s %ds' "$1" $((SECONDS - $2))
}
fail_build() { # fail_build MESSAGE: the kernel does not build from this tree
	tail -n 25 "$log" >&2 2>/dev/null || true
	echo "build-pmbind: $1" >&2
	exit 3
}

t=$SECONDS
(cd "$tmp" && apt-get download -q "$pkg=$version" >"$log" 2>&1) ||
	{ tail -n 5 "$log" >&2; echo "build-pmbind: apt-get download $pkg=$version failed" >&2; exit 1; }
cost="$(step download $t)"

t=$SECONDS
deb=$(ls "$tmp"/*.deb)
mkdir "$tmp/src"
dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
	xz -dc -T2 | tar -x -C "$tmp/src" --strip-components=1 ||
	{ echo "build-pmbind: cannot unpack the kernel source of $deb" >&2; exit 1; }
rm -f "$deb"
cost="$cost, $(step unpack $t)"

t=$SECONDS
patch -d "$tmp/src" -p1 --forward --batch --fuzz=0 <"$patch" >>"$log" 2>&1 ||
	fail_build "tests/vm/kernel/process_mbind.patch does not apply to $pkg=$version"
mkdir "$tmp/build"
# The debug build's lines come after pmbind.config's, and only the last line of an
# option stays (Kconfig would take the last one too, but the check below reads them all).
config=$tmp/allconfig
if [ $flavour = pmbind ]; then
	cp "$fragment" "$config"
else
	cat "$fragment" "$debug_fragment" | grep -v -e '^#' -e '^$' |
		awk '{ key = $0; sub(/=.*/, "", key); last[key] = NR; line[NR] = $0 }
			END { for (i = 1; i <= NR; i++) { key = line[i]; sub(/=.*/, "", key); if (last[key] == i) print line[i] } }' >"$config"
fi
names="pmbind.config$([ $flavour = pmbind ] || echo " and pmbind-debug.config")"
make -C "$tmp/src" -s O="$tmp/build" ARCH=x86_64 KCONFIG_ALLCONFIG="$config" allnoconfig >>"$log" 2>&1 ||
	fail_build "make allnoconfig with $names failed"
# Kconfig drops an option whose dependencies are not met, silently: say which.
lost=$({ grep -v -e '^#' -e '^$' "$config" || true; } | while IFS= read -r line; do
	if [ "${line#*=}" = n ]; then
		! grep -q "^${line%%=*}=" "$tmp/build/.config" || echo "$line"
	else
		grep -qxF "$line" "$tmp/build/.config" || echo "$line"
	fi
done)
[ -z "$lost" ] || fail_build "$names options lost (their dependencies are not set): $(echo $lost)"
cost="$cost, $(step config $t)"

t=$SECONDS
nice -n 19 make -C "$tmp/src" -s O="$tmp/build" ARCH=x86_64 -j"$jobs" bzImage >>"$log" 2>&1 ||
	fail_build "the kernel did not build (make bzImage, log above)"
cost="$cost, $(step "build (make -j$jobs)" $t)"
release=$(make -C "$tmp/src" -s O="$tmp/build" ARCH=x86_64 kernelrelease)

rm -rf "$out.new"
mkdir -p "$out.new"
cp "$tmp/build/arch/x86/boot/bzImage" "$out.new/vmlinuz"
cp "$tmp/build/.config" "$out.new/config"
echo "$release" >"$out.new/release"
echo "$pkg=$version" >"$out.new/package"
echo "$key" >"$out.new/key"
echo "$(date -u +%Y-%m-%dT%H:%MZ) $(nproc) CPUs: total $((SECONDS - t0))s: $cost" >"$out.new/cost"
rm -rf "$out"
mv "$out.new" "$out"
use
prune_old_builds
echo "build-pmbind: $release built from $pkg=$version in $((SECONDS - t0))s ($cost)"
