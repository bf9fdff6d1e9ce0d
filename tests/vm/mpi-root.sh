#!/bin/bash
# mpi-root.sh - the MPI launchers for the Slurm guest image, from this host's Debian
# packages: Open MPI (mpirun, orted), MPICH (mpiexec.hydra, hydra_pmi_proxy), PMIx
# (the libpmix.so Slurm's mpi_pmix plugin opens), sbatch and scancel, with every component
# they load at run time and the shared libraries ldd names.
#
#   tests/vm/mpi-root.sh CACHE        files into CACHE/root (kept: see below)
#   tests/vm/mpi-root.sh --check      exit 0 when the packages are installed, else
#                                     print what is missing and exit 1
#
# Gathering them (about 900 files, 150 MB) costs 10-20 s, so CACHE/root is kept with
# CACHE/key (the packages' versions and this script's hash) and gathered again only
# when the key changes; either way the last line says which and what it cost.
set -euo pipefail
pkgs=(openmpi-bin openmpi-common libopenmpi3 libpmix2 libpmix-dev mpich libmpich12
	libucx0 libfabric1 slurm-client)
# slurm-client only for sbatch and scancel (slurm-root.sh copies the rest)
extra_bins=(/usr/bin/sbatch /usr/bin/scancel)

missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
if [ "${1:-}" = --check ]; then
	[ ${#missing[@]} -eq 0 ] && exit 0
	echo "${missing[*]}"
	exit 1
fi
cache=${1:?usage: mpi-root.sh CACHE | --check}
[ ${#missing[@]} -eq 0 ] || { echo "mpi-root: not installed: ${missing[*]} (scripts/install-deps.sh vm)" >&2; exit 1; }

key="$(dpkg-query -W -f='${Package}=${Version} ' "${pkgs[@]}")script=$(sha256sum "$0" | cut -c1-16)"
if [ -d "$cache/root" ] && [ "$(cat "$cache/key" 2>/dev/null)" = "$key" ]; then
	echo "mpi-root: cached in $cache/root ($(du -sm "$cache/root" | cut -f1) MB, key matches): 0 s"
	exit 0
fi
t0=$SECONDS
rm -rf "$cache/root" "$cache/key"
mkdir -p "$cache"
root=$cache/root.new
rm -rf "$root"
mkdir -p "$root"

# Each package's files and links, without documentation, headers and static archives.
for p in "${pkgs[@]}"; do
	[ "$p" = slurm-client ] && continue
	dpkg -L "$p" | grep -v -E '^/usr/share/(doc|man|lintian|bug)/|^/usr/include/|\.a$|/pkgconfig/' |
		while read -r f; do
			[ -f "$f" ] || [ -L "$f" ] || continue
			# a path through a linked folder: the package lists the real one too
			[ "$(realpath "$(dirname "$f")")" = "$(dirname "$f")" ] || continue
			mkdir -p "$root$(dirname "$f")"
			cp -a "$f" "$root$f"
		done
done
for b in "${extra_bins[@]}"; do mkdir -p "$root$(dirname "$b")" && cp -a "$b" "$root$b"; done
# Alternatives and links point into /etc/alternatives: the guest calls every program
# by its own name (mpirun.openmpi, mpiexec.hydra), so those links are dropped.
find "$root" -xtype l -lname '/etc/alternatives/*' -delete
# Shared libraries of every program and component, from wherever the host has them.
find "$root" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
	{ xargs -0 ldd 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
	while read -r lib; do
		[ ! -e "$root$lib" ] || continue
		mkdir -p "$root$(dirname "$lib")"
		# ldd names /lib/... for what the packages put in /usr/lib (merged /usr)
		if [[ $lib == /lib/* ]] && [ -e "$root/usr$lib" ]; then
			ln -s "/usr$lib" "$root$lib"
		else
			cp -L "$lib" "$root$lib"
		fi
	done
mv "$root" "$cache/root"
echo "$key" >"$cache/key"
echo "mpi-root: gathered into $cache/root ($(find "$cache/root" -type f | wc -l) files, $(du -sm "$cache/root" | cut -f1) MB): $((SECONDS - t0)) s"
