#!/bin/bash
# slurm-release.sh - a Slurm release that Debian does not package (25.11, 26.05), built
# once from its source tarball (../shared/slurm-src, see its README) inside the Debian
# 13 root the slurm tiers run in (scripts/debian-root.sh with the slurm-root packages,
# which carry munge, MariaDB client and libcurl headers), and installed into a cache:
# $MPOL_SLURM_CACHE/RELEASE-KEY, KEY a hash of the tarball's sha256, the configure
# options, the root's suite and this recipe. The first call builds it (configure, make,
# make install; nice -n 19 make -j$MPOL_SLURM_JOBS, default 2) and prints what each step
# cost; later calls reuse it without building anything. Daemons and commands run from
# the cache inside that root: scripts/in-root.sh --ro-bind PREFIX.
#
#   scripts/slurm-release.sh [--cached] RELEASE   print the install prefix on its last line
#     RELEASE    a release whose tarball is there: 25.11 (slurm-25-11-*.tar.xz), 26.05
#     --cached   never build: print the prefix, or exit 1 when this build is not cached
#   scripts/slurm-release.sh --list               the releases whose tarballs are there
#   scripts/slurm-release.sh --source-dir         the folder the tarballs are looked for in
#
# Exit: 0 built or cached; 1 not cached (--cached), or no tarball or root to build
# from; 3 Slurm does not build (its log is kept next to the cache); 2 bad usage.
# Needs root (the Debian root, /var/cache). Environment: MPOL_SLURM_SRC (default
# ../shared/slurm-src of the source tree), MPOL_SLURM_CACHE (default
# /var/cache/slurm-mempolicy/slurm), MPOL_RELEASE_SUITE (default trixie).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
src=${MPOL_SLURM_SRC:-$(dirname "$top")/shared/slurm-src}
cache=${MPOL_SLURM_CACHE:-/var/cache/slurm-mempolicy/slurm}
suite=${MPOL_RELEASE_SUITE:-trixie}
jobs=${MPOL_SLURM_JOBS:-2}
# Bump when the way a release is built changes, so cached builds are made again.
recipe=1
# What the tests use, nothing that needs a library the root lacks; cgroup/v2 is off
# (the test cluster tracks processes with proctrack/linuxproc; it would need dbus).
# No static libraries and no debugging symbols: each would cost most of a build again.
options=(--sysconfdir=/etc/slurm --disable-debug --disable-static CFLAGS=-O2 --disable-cgroupv2
	--disable-slurmrestd --disable-x11 --disable-sview --with-munge=/usr --with-mysql_config=/usr/bin
	--with-libcurl)

# tarball RELEASE: the newest tarball of RELEASE (slurm-25-11-7-1.tar.xz for 25.11).
# None is no error here (under pipefail a find of a missing folder would end the script).
tarball() {
	local name
	name=$(find "$src" -maxdepth 1 -name "slurm-${1/./-}-*.tar.xz" -printf '%f\n' 2>/dev/null | sort -V | tail -n 1 || true)
	[ -z "$name" ] || echo "$src/$name"
}

case ${1:-} in
--list)
	find "$src" -maxdepth 1 -name 'slurm-[0-9]*-[0-9]*-*.tar.xz' -printf '%f\n' 2>/dev/null |
		sed 's/^slurm-\([0-9]*\)-\([0-9]*\)-.*/\1.\2/' | sort -uV || true
	exit 0 ;;
--source-dir) echo "$src"; exit 0 ;;
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
mode=build
[ "${1:-}" = --cached ] && { mode=cached; shift; }
release=${1:-}
[[ $release =~ ^[0-9]+\.[0-9]+$ ]] && [ $# -eq 1 ] ||
	{ echo "slurm-release: give one release such as 26.05 (try --help)" >&2; exit 2; }
tar=$(tarball "$release")
[ -n "$tar" ] || { echo "slurm-release: no slurm-${release/./-}-*.tar.xz in $src" >&2; exit 1; }

key=$(printf '%s\n' "recipe $recipe" "suite $suite" "$(sha256sum <"$tar" | cut -d' ' -f1)" "${options[@]}" |
	sha256sum | cut -c1-16)
prefix=$cache/$release-$key
built() { [ -f "$prefix.info" ] && [ -x "$prefix/sbin/slurmctld" ]; }
if built; then
	echo "$prefix"
	exit 0
fi
[ "$mode" = build ] || exit 1
[ "$(id -u)" -eq 0 ] || { echo "slurm-release: run as root (it builds in a Debian root under /var/cache)" >&2; exit 1; }

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
# Another run may have built it while this one waited.
if built; then
	echo "$prefix"
	exit 0
fi
mapfile -t pkgs < <("$here/install-deps.sh" --list slurm-root)
root=$("$here/debian-root.sh" "$suite" "${pkgs[@]}" | tail -n 1) ||
	{ echo "slurm-release: no Debian $suite root to build in (scripts/debian-root.sh failed)" >&2; exit 1; }

t0=$SECONDS
# What a killed run left (the lock says no other run is building).
rm -rf "$cache"/.build.*
tmp=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
log=$tmp/build.log
cost=
step() { # step NAME COMMAND...: run COMMAND in the root, add its time to the cost line
	local t=$SECONDS
	"$here/in-root.sh" --bind "$tmp" "$root" sh -c 'cd "$0" && exec nice -n 19 "$@"' "$tmp/src" "${@:2}" >>"$log" 2>&1 || {
		tail -n 25 "$log" >&2
		cp "$log" "$prefix.failed.log"
		echo "slurm-release: $1 of $(basename "$tar") failed in the $suite root (log: $prefix.failed.log)" >&2
		exit 3
	}
	cost="$cost${cost:+, }$1 $((SECONDS - t))s"
}
echo "slurm-release: building Slurm $release from $(basename "$tar") in $root into $prefix (make -j$jobs; log: $log)" >&2
mkdir "$tmp/src"
tar -xJf "$tar" -C "$tmp/src" --strip-components=1
step configure ./configure --prefix="$prefix" "${options[@]}"
step make make -j"$jobs"
step install make install DESTDIR="$tmp/dest"
version=$(sed -n 's/^#define SLURM_VERSION_NUMBER 0x\(..\)\(..\)\(..\)$/\1 \2 \3/p' "$tmp/dest$prefix/include/slurm/slurm_version.h" |
	{ read -r major minor micro && printf '%d.%02d.%d' "0x$major" "0x$minor" "0x$micro"; })
rm -rf "$prefix"
mv "$tmp/dest$prefix" "$prefix"
{
	echo "release=$release"
	echo "version=$version"
	echo "tarball=$(basename "$tar")"
	echo "options=${options[*]}"
	echo "root=$root"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "cost=$(nproc) CPUs: total $((SECONDS - t0))s: $cost"
} >"$prefix.info"
rm -f "$prefix.failed.log"
echo "slurm-release: built $version in $((SECONDS - t0))s ($cost; $(du -sm "$prefix" | cut -f1) MiB)" >&2
echo "$prefix"
