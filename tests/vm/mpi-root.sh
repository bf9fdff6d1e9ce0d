#!/bin/bash
# mpi-root.sh - the MPI launchers for the Slurm guest image, from this host's Debian
# packages: Open MPI (mpirun, orted), MPICH (mpiexec.hydra, hydra_pmi_proxy), PMIx
# (the libpmix.so Slurm's mpi_pmix plugin opens), sbatch and scancel, with every component
# they load at run time and the shared libraries ldd names.
#
#   tests/vm/mpi-root.sh CACHE        prints the directory holding the files
#   tests/vm/mpi-root.sh --check      exit 0 when the packages are installed, else
#                                     print what is missing and exit 1
#
# Gathering them (about 470 files, 76 MB) costs 70-120 s on a busy 2-core host (ldd
# over every component), so they are kept in CACHE/KEY/root, KEY naming the packages'
# versions and this script's hash (build-guest.sh passes the VM tier's machine-wide
# cache: a fresh clone or another branch finds them there), and gathered again only for
# a new key; the three newest keys are kept. Standard error's last line says which
# and what it cost.
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
dir=$cache/$(printf '%s' "$key" | sha256sum | cut -c1-16)
if [ -d "$dir/root" ]; then
	echo "mpi-root: cached in $dir ($(du -sm "$dir/root" | cut -f1) MB, key matches): 0 s" >&2
	echo "$dir/root"
	exit 0
fi
t0=$SECONDS
mkdir -p "$cache"
root=$(mktemp -d "$cache/gather.XXXXXX")
chmod 755 "$root"   # it becomes the guest's /: ordinary users must get through it
# a gather that dies leaves nothing behind
trap 'rm -rf "$root"' EXIT

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
mkdir -p "$dir"
echo "$key" >"$dir/key"
# the rename publishes it whole; a concurrent gather of the same key lost the race
mv -T "$root" "$dir/root" 2>/dev/null || rm -rf "$root"
touch "$dir"
ls -dt "$cache"/[0-9a-f]???????????????/ | tail -n +4 | while read -r old; do rm -rf "$old"; done
echo "mpi-root: gathered into $dir ($(find "$dir/root" -type f | wc -l) files, $(du -sm "$dir/root" | cut -f1) MB): $((SECONDS - t0)) s" >&2
echo "$dir/root"
