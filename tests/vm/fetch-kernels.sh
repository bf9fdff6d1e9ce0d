#!/bin/bash
# fetch-kernels.sh - fetch the Debian cloud kernels the VM tier boots, into a cache
# outside the source tree ($MPOL_VM_CACHE, default /var/cache/slurm-mempolicy-vm).
#
#   tests/vm/fetch-kernels.sh [--refresh] [6.1] [6.12] [newest]   (default: all three)
#
# Result per key K: $MPOL_VM_CACHE/kernels/K/{vmlinuz,config,release,package}.
# A key already in the cache costs nothing (no apt call); --refresh resolves again.
#   6.1    bookworm(-security)  linux-image-cloud-amd64 6.1.x
#   6.12   bookworm-backports   linux-image-cloud-amd64 6.12.x
#   newest trixie-backports     the newest linux-image-cloud-amd64
# The apt sources for bookworm-backports, trixie and trixie-backports are added by
# reusing the archive URI this machine already uses for bookworm; trixie is pinned at
# priority 50 so nothing installed is ever upgraded from it. Only `apt-get download`
# is used: nothing is installed. Needs root for the apt configuration.
set -euo pipefail
cache=${MPOL_VM_CACHE:-/var/cache/slurm-mempolicy-vm}
refresh=0
keys=()
for a in "$@"; do
	case $a in
	--refresh) refresh=1 ;;
	6.1 | 6.12 | newest) keys+=("$a") ;;
	-h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "fetch-kernels: unknown argument '$a' (kernels: 6.1 6.12 newest)" >&2; exit 2 ;;
	esac
done
[ ${#keys[@]} -gt 0 ] || keys=(6.1 6.12 newest)

cached() { [ -s "$cache/kernels/$1/vmlinuz" ] && [ -s "$cache/kernels/$1/release" ]; }

todo=()
for k in "${keys[@]}"; do
	if [ "$refresh" = 1 ] || ! cached "$k"; then todo+=("$k"); fi
done
if [ ${#todo[@]} -eq 0 ]; then
	for k in "${keys[@]}"; do echo "fetch-kernels: $k: $(cat "$cache/kernels/$k/release") (cached)"; done
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "fetch-kernels: run as root: adding apt sources needs it (missing: ${todo[*]})" >&2
	exit 1
fi

. "$(dirname "$0")/apt-suites.sh"

# The linux-image-cloud-amd64 version that key K stands for.
meta_version() {
	apt-cache madison linux-image-cloud-amd64 | awk -F'|' -v key="$1" '
		{ gsub(/ /, "", $2); split($3, s, " "); suite = s[2]; sub(/\/.*/, "", suite) }
		key == "6.1"    && suite ~ /^bookworm(-security|-updates)?$/ && $2 ~ /^6\.1\./  { print $2 }
		key == "6.12"   && suite == "bookworm-backports" && $2 ~ /^6\.12\./ { print $2 }
		key == "newest" && suite == "trixie-backports" { print $2 }' | sort -V | tail -n 1
}

# Versioned packages behind the meta package: the image, and on 7.x the split
# binary (vmlinuz) and base (config) packages. Modules are left out: the guest loads none.
kernel_packages() { # kernel_packages VERSION
	local todo=(linux-image-cloud-amd64) seen=() p deps
	while [ ${#todo[@]} -gt 0 ]; do
		p=${todo[0]}
		todo=("${todo[@]:1}")
		deps=$(apt-cache show "$p=$1" 2>/dev/null | sed -n 's/^\(Pre-\)\{0,1\}Depends: //p' | tr ',|' '\n\n' |
			sed -E 's/^ *//; s/ .*//' | grep -E '^linux-(image|binary|base)-[0-9]' || true)
		for d in $deps; do
			[[ " ${seen[*]} " == *" $d "* ]] && continue
			seen+=("$d")
			todo+=("$d")
		done
	done
	printf '%s\n' "${seen[@]}"
}

fetch_one() { # fetch_one KEY
	local k=$1 ver pkgs tmp release
	ver=$(meta_version "$k")
	if [ -z "$ver" ]; then
		echo "fetch-kernels: $k: no linux-image-cloud-amd64 version found in the apt lists" >&2
		return 1
	fi
	mapfile -t pkgs < <(kernel_packages "$ver")
	if [ ${#pkgs[@]} -eq 0 ]; then
		echo "fetch-kernels: $k: linux-image-cloud-amd64=$ver names no kernel package" >&2
		return 1
	fi
	tmp=$(mktemp -d "$cache/tmp.XXXXXX")
	# apt-get download names files by the package's own version, which is the meta
	# package's version for Debian kernels.
	(cd "$tmp" && apt-get download -q "${pkgs[@]/%/=$ver}" >download.log 2>&1) ||
		{ tail -n 5 "$tmp/download.log" >&2; rm -rf "$tmp"; echo "fetch-kernels: $k: apt-get download ${pkgs[*]} failed" >&2; return 1; }
	mkdir "$tmp/root"
	for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
	local vmlinuz config
	vmlinuz=$(find "$tmp/root/boot" "$tmp/root/usr/lib/modules" -maxdepth 2 \( -name 'vmlinuz*' \) -type f -print -quit 2>/dev/null)
	config=$(find "$tmp/root/boot" "$tmp/root/usr/lib/modules" -maxdepth 2 \( -name 'config-*' -o -name config \) -type f -print -quit 2>/dev/null)
	if [ -z "$vmlinuz" ]; then
		rm -rf "$tmp"
		echo "fetch-kernels: $k: no vmlinuz in ${pkgs[*]}" >&2
		return 1
	fi
	case $vmlinuz in
	*/boot/vmlinuz-*) release=${vmlinuz##*/vmlinuz-} ;;
	*) release=$(basename "$(dirname "$vmlinuz")") ;;
	esac
	rm -rf "$cache/kernels/$k.new"
	mkdir -p "$cache/kernels/$k.new"
	cp "$vmlinuz" "$cache/kernels/$k.new/vmlinuz"
	[ -z "$config" ] || cp "$config" "$cache/kernels/$k.new/config"
	echo "$release" >"$cache/kernels/$k.new/release"
	printf "%s=$ver\n" "${pkgs[@]}" >"$cache/kernels/$k.new/package"
	rm -rf "$cache/kernels/$k" "$tmp"
	mv "$cache/kernels/$k.new" "$cache/kernels/$k"
	echo "fetch-kernels: $k: $release ($(stat -c %s "$cache/kernels/$k/vmlinuz") bytes)"
}

mkdir -p "$cache/kernels"
exec 9>"$cache/lock"
flock 9
configure_apt
rc=0
for k in "${todo[@]}"; do fetch_one "$k" || rc=1; done
exit $rc
