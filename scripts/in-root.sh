#!/bin/bash
# in-root.sh - run a command inside a throw-away overlay of a Debian root made by
# scripts/debian-root.sh: the cached root never changes, and whatever the command
# writes outside the source tree (a cluster's directories, users it adds, packages it
# installs) is gone when it ends, so every run starts from the same clean system.
#
#   scripts/in-root.sh [--bind DIR | --ro-bind DIR]... ROOT COMMAND [ARG...]
#     --bind DIR, --ro-bind DIR   also DIR of the host at the same path, read-write
#                                 or read-only (a Slurm built from source into a cache
#                                 by scripts/slurm-release.sh)
#
# Inside: this source tree at the same path, read-write (build trees land in it);
# the host's /sys (the same kernel: its weighted-interleave table is the real one)
# and /dev; a fresh /proc and /run; the host's /etc/hosts (hostname -s resolves as
# outside). The network and the hostname are the host's. COMMAND runs as root in the
# source tree with a clean environment (PATH, HOME, LANG; pass more with `env VAR=...`).
# It runs in its own mount and PID namespaces: when it ends, every process it left
# behind (a daemon a crashed test did not stop) is killed, and every mount goes.
# Exits with COMMAND's status.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
binds=()
while [ $# -gt 0 ]; do
	case $1 in
	--bind | --ro-bind)
		[ -d "${2:-}" ] && [[ $2 == /* ]] || { echo "in-root: $1 needs an absolute path of a directory" >&2; exit 2; }
		binds+=("${1#--}" "$2")
		shift 2 ;;
	*) break ;;
	esac
done
root=${1:-}
[ $# -ge 2 ] || { echo "usage: $0 [--bind DIR | --ro-bind DIR]... ROOT COMMAND [ARG...]" >&2; exit 2; }
shift
[ -x "$root/bin/sh" ] || { echo "in-root: $root is not a Debian root (make one with scripts/debian-root.sh)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "in-root: run as root (it mounts an overlay and chroots)" >&2; exit 1; }

work=$(mktemp -d /var/tmp/mpol-in-root.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/upper" "$work/work" "$work/merged"

# PID 1 of the new namespace: mounts, then runs the command as its child (reaping
# orphans meanwhile) and returns its status; its exit kills what is left.
rc=0
# shellcheck disable=SC2016
unshare --mount --pid --fork --propagation private -- bash -c '
	set -e
	root=$1 work=$2 top=$3 nbinds=$4
	shift 4
	m=$work/merged
	mount -t overlay overlay -o "lowerdir=$root,upperdir=$work/upper,workdir=$work/work" "$m"
	mkdir -p "$m$top"
	mount --bind "$top" "$m$top"
	for ((i = 0; i < nbinds; i++)); do
		mkdir -p "$m$2"
		mount --bind "$2" "$m$2"
		[ "$1" = bind ] || mount -o remount,bind,ro "$m$2"
		shift 2
	done
	mount -t proc proc "$m/proc"
	mount --rbind /sys "$m/sys"
	mount --rbind /dev "$m/dev"
	mount -t tmpfs -o mode=0755 tmpfs "$m/run"
	mkdir -p "$m/run/lock"
	cp /etc/hosts "$m/etc/hosts"
	set +e
	chroot "$m" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$top" "$@"
' in-root "$root" "$work" "$top" $((${#binds[@]} / 2)) "${binds[@]}" "$@" || rc=$?
exit $rc
