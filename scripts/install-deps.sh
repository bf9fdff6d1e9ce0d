#!/bin/bash
# install-deps.sh - install every Debian 12 package the build, the demo and the tests
# need. Idempotent: only missing packages are installed. Run as root.
#   scripts/install-deps.sh [build|cluster|vm|all]   (default all)
set -euo pipefail

build_pkgs=(build-essential autoconf automake libtool pkg-config
	libjson-c-dev libcmocka-dev libslurm-dev jq hwloc
	clang-14 libclang-rt-14-dev)
cluster_pkgs=(slurmctld slurmd slurm-client slurmdbd munge mariadb-server
	iproute2 procps util-linux)
vm_pkgs=(qemu-system-x86 busybox-static cpio kmod zstd xz-utils python3)

case ${1:-all} in
build) want=("${build_pkgs[@]}") ;;
cluster) want=("${build_pkgs[@]}" "${cluster_pkgs[@]}") ;;
vm) want=("${build_pkgs[@]}" "${vm_pkgs[@]}") ;;
all) want=("${build_pkgs[@]}" "${cluster_pkgs[@]}" "${vm_pkgs[@]}") ;;
*) echo "usage: $0 [build|cluster|vm|all]" >&2; exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (it installs Debian packages)" >&2
	exit 1
fi

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#want[@]} packages present"
	exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# Daemons are started by the project's scripts, never by package maintainer scripts.
printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
chmod +x /usr/sbin/policy-rc.d
trap 'rm -f /usr/sbin/policy-rc.d' EXIT
apt-get install -y -q --no-install-recommends "${missing[@]}"
