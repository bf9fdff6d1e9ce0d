#!/bin/bash
# install-deps.sh - install every Debian 12 package the build, the demo and the tests
# need. Idempotent: only missing packages are installed. Run as root.
#   scripts/install-deps.sh [build|cluster|vm|roots|pkg|all]   (default all)
#   scripts/install-deps.sh --list slurm-root
#       print, one a line, what a Debian root needs to build the project, run the
#       slurm tier in it and build and lint the Debian package (scripts/debian-root.sh):
#       the build, cluster and packaging packages without the release-specific fuzzing
#       compiler and rpm, and what building Slurm from source needs; installs nothing.
set -euo pipefail

compile_pkgs=(build-essential autoconf automake libtool pkg-config
	libjson-c-dev libcmocka-dev libslurm-dev jq hwloc)
fuzz_pkgs=(clang-14 libclang-rt-14-dev)
# python3: the slurm tier's tasks touch memory with it.
cluster_pkgs=(slurmctld slurmd slurm-client slurmdbd munge mariadb-server
	iproute2 procps util-linux python3
	prometheus-node-exporter python3-prometheus-client curl)
vm_pkgs=(qemu-system-x86 busybox-static cpio kmod zstd xz-utils python3
	flex bison bc libelf-dev   # these four build the pmbind guest kernel
	openmpi-bin libopenmpi-dev mpich libmpich-dev libpmix2 libpmix-dev)   # the mpi check's launchers
vm_pkgs+=(libmemkind0)        # memkind in the Slurm guest image, for bench/regions -S
# The slurm tier traces slurmd's forks (t_acct_85_courier.sh); on this machine only,
# not in the Debian roots, where that case skips.
trace_pkgs=(strace)
# Slurm releases Debian does not package, built from source in the root
# (tests/slurm/build-release.sh): munge and MariaDB client headers, and libcurl for
# the jobcomp/elasticsearch plugin the jobcomp case sends records through.
slurm_src_pkgs=(libmunge-dev libmariadb-dev libcurl4-openssl-dev)
# scripts/debian-root.sh: Debian roots of other releases (Slurm 24.11 from trixie).
root_pkgs=(mmdebstrap)
# The pkg tier: build and lint the Debian package, build the RPM (tests/pkg/run).
pkg_pkgs=(debhelper dpkg-dev lintian)
rpm_pkgs=(rpm)

if [ "${1:-}" = --list ]; then
	case ${2:-} in
	slurm-root) printf '%s\n' "${compile_pkgs[@]}" "${cluster_pkgs[@]}" "${pkg_pkgs[@]}" "${slurm_src_pkgs[@]}" ;;
	*) echo "usage: $0 --list slurm-root" >&2; exit 2 ;;
	esac
	exit 0
fi

case ${1:-all} in
build) want=("${compile_pkgs[@]}" "${fuzz_pkgs[@]}") ;;
cluster) want=("${compile_pkgs[@]}" "${fuzz_pkgs[@]}" "${cluster_pkgs[@]}" "${trace_pkgs[@]}") ;;
vm) want=("${compile_pkgs[@]}" "${fuzz_pkgs[@]}" "${vm_pkgs[@]}") ;;
roots) want=("${root_pkgs[@]}") ;;
pkg) want=("${compile_pkgs[@]}" "${root_pkgs[@]}" "${pkg_pkgs[@]}" "${rpm_pkgs[@]}") ;;
all) want=("${compile_pkgs[@]}" "${fuzz_pkgs[@]}" "${cluster_pkgs[@]}" "${trace_pkgs[@]}" "${vm_pkgs[@]}" "${root_pkgs[@]}"
	"${pkg_pkgs[@]}" "${rpm_pkgs[@]}") ;;
*) echo "usage: $0 [build|cluster|vm|roots|pkg|all] | --list slurm-root" >&2; exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (it installs Debian packages)" >&2
	exit 1
fi

missing=()
for p in "${want[@]}"; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
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
