#!/bin/bash
# debian-root.sh - a Debian root directory of one suite with a list of packages, for
# building and testing against another Debian release's Slurm (the slurm-24.11 tier)
# or for installing a package into a clean system. Built once with mmdebstrap from the
# Debian archive this machine's apt sources already use (scripts/apt-archive-uri.sh),
# cached under $MPOL_ROOT_CACHE/SUITE-KEY, KEY a hash of the suite, the sorted package
# list and the way roots are made here: the first call on a machine builds it and
# prints the cost, later calls reuse it without asking apt anything.
# Package scripts never start daemons: the root keeps a /usr/sbin/policy-rc.d that
# refuses (as scripts/install-deps.sh does on the host). Use the root through
# scripts/in-root.sh, which runs commands in a throw-away overlay of it.
#
#   scripts/debian-root.sh [--rebuild | --cached] SUITE [PACKAGE...]
#     SUITE      a Debian release the archive serves, e.g. bookworm (12) or trixie (13);
#                its -updates and -security suites are added
#     PACKAGE    installed on top of the minimal base (minbase), without recommends
#     --rebuild  build afresh even when cached
#     --cached   never build: print the cached root, or exit 1 when there is none
# Prints the root's path on its last line. Needs root and mmdebstrap
# (scripts/install-deps.sh roots).
# Environment: MPOL_ROOT_CACHE (default /var/cache/slurm-mempolicy/roots).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${MPOL_ROOT_CACHE:-/var/cache/slurm-mempolicy/roots}
variant=minbase
# Bump when the way a root is made changes, so cached roots are made again.
recipe=1
mode=build
case ${1:-} in
--rebuild) mode=rebuild; shift ;;
--cached) mode=cached; shift ;;
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
suite=${1:-}
[[ $suite =~ ^[a-z]+$ ]] || { echo "debian-root: give a suite such as trixie or bookworm, not '${suite}'" >&2; exit 2; }
shift
for p in "$@"; do
	[[ $p =~ ^[a-z0-9][a-z0-9.+-]+$ ]] || { echo "debian-root: '$p' is not a Debian package name" >&2; exit 2; }
done
mapfile -t pkgs < <(printf '%s\n' "$@" | sed '/^$/d' | sort -u)
key=$(printf '%s\n' "recipe $recipe" "$suite" "$variant" "${pkgs[@]}" | sha256sum | cut -c1-16)
root=$cache/$suite-$key

built() { [ -f "$root.info" ] && [ -x "$root/bin/sh" ]; }
if [ "$mode" = cached ]; then
	built && echo "$root"
	exit
fi
if [ "$mode" = build ] && built; then
	echo "$root"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "debian-root: run as root (mmdebstrap installs packages into the root)" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { echo "debian-root: mmdebstrap is missing: scripts/install-deps.sh roots" >&2; exit 1; }

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
# Another run may have built it while this one waited.
if [ "$mode" = build ] && built; then
	echo "$root"
	exit 0
fi
uri=$("$here/apt-archive-uri.sh" bookworm) ||
	{ echo "debian-root: add an apt source for bookworm (the archive is reused), then retry" >&2; exit 1; }
mirrors=("deb $uri $suite main" "deb $uri $suite-updates main")
# The security archive, where this machine has one.
if security_uri=$("$here/apt-archive-uri.sh" bookworm-security 2>/dev/null); then
	mirrors+=("deb $security_uri $suite-security main")
fi

tmp=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
echo "debian-root: building $suite ($variant + ${#pkgs[@]} packages) into $root; log: $tmp/mmdebstrap.log"
if ! TMPDIR=$tmp nice -n 10 mmdebstrap --mode=root --variant="$variant" \
	--aptopt='APT::Install-Recommends "false"' \
	${pkgs[0]+--include="$(IFS=,; echo "${pkgs[*]}")"} \
	"$suite" "$tmp/root" "${mirrors[@]}" >"$tmp/mmdebstrap.log" 2>&1; then
	tail -n 20 "$tmp/mmdebstrap.log" >&2
	cp "$tmp/mmdebstrap.log" "$cache/$suite-$key.failed.log" 2>/dev/null || true
	echo "debian-root: mmdebstrap failed (log: $cache/$suite-$key.failed.log)" >&2
	exit 1
fi
# mmdebstrap keeps daemons down only while it runs; later installs must not start any.
printf '#!/bin/sh\n# Written by slurm-mempolicy scripts/debian-root.sh: no daemon starts from package scripts.\nexit 101\n' \
	>"$tmp/root/usr/sbin/policy-rc.d"
chmod 755 "$tmp/root/usr/sbin/policy-rc.d"
cost=$(($(date +%s) - start))
rm -rf "$root" "$root.info"
mv "$tmp/root" "$root"
{
	echo "suite=$suite"
	echo "variant=$variant"
	echo "packages=${pkgs[*]}"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "cost_seconds=$cost"
} >"$root.info"
echo "debian-root: built $suite in ${cost}s ($(du -sm "$root" | cut -f1) MiB)"
echo "$root"
