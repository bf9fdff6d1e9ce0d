#!/bin/bash
# test.sh - install what is needed, build, and run every test tier:
#   unit (cmocka, also under ASan/UBSan), fuzz (libFuzzer on every parser), host (this
#   kernel), slurm (a real local cluster with accounting, this host's Slurm 22.05),
#   slurm-24.11 (the same tier against Debian 13's Slurm 24.11, in a cached Debian 13
#   root; slurm24 is the same), slurm-25.11 and slurm-26.05 (against those releases
#   built from source in that root, where scripts/slurm-release.sh has built them once:
#   skipped with the command that builds them elsewhere), pkg (the deb for both
#   releases and the rpm, built, linted, installed into clean Debian roots where a job
#   runs), vm (QEMU guests with NUMA, HMAT and hotplug). Each Slurm tier is summed
#   under its release ("slurm-26.05").
# Ends with "N passed, N failed, N skipped" summed over the tiers; exits non-zero
# when anything failed.
#   scripts/test.sh [TIER...]   (default: unit asan fuzz dist host slurm slurm-24.11
#                               slurm-25.11 slurm-26.05 pkg vm)
#   dist: `make distcheck` (the tarball builds, passes its unit tests, installs) counts as one test.
# The tiers that keep the CPUs busy (asan fuzz dist pkg vm) run at low priority beside
# the cluster tiers (slurm, slurm-R), which mostly wait on their daemons; they start
# once the host tier is done (it moves the host's pages, timing them) and print their
# output when they are all done. MPOL_TEST_BESIDE=0 runs every tier in turn. Only one
# lane writes the host's weights at a time: the pkg tier's jobs in clean roots and the
# cluster tiers both take /var/tmp/mpol-cluster-tests.lock, the vm tier's are its
# guests' own.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tiers=("$@")
[ ${#tiers[@]} -gt 0 ] || tiers=(unit asan fuzz dist host slurm slurm-24.11 slurm-25.11 slurm-26.05 pkg vm)
logs=$top/_build/logs
mkdir -p "$logs"

scripts/install-deps.sh all || { echo "test.sh: installing dependencies failed"; echo "0 passed, 1 failed"; exit 1; }
build=$(scripts/build.sh _build/main | tail -n 1) || { echo "test.sh: build failed"; echo "0 passed, 1 failed"; exit 1; }
export MPOL_BUILD=$build

counts=$logs/counts
: >"$counts"
add_counts() { # add_counts TIER P F S
	printf '== %s: %d passed, %d failed, %d skipped (%d s)\n' "$1" "$2" "$3" "$4" $((SECONDS - tier_started))
	echo "$2 $3 $4" >>"$counts"
}
# Counts from automake's test-suite.log (TAP: one line per cmocka case).
unit_counts() { # unit_counts TIER BUILD_DIR RC
	local log=$2/test-suite.log p f s e
	if [ ! -f "$log" ]; then add_counts "$1" 0 1 0; return; fi
	p=$(sed -n 's/^# PASS: *//p' "$log" | head -n 1)
	f=$(sed -n 's/^# FAIL: *//p' "$log" | head -n 1)
	s=$(sed -n 's/^# SKIP: *//p' "$log" | head -n 1)
	e=$(sed -n 's/^# ERROR: *//p' "$log" | head -n 1)
	f=$(( ${f:-0} + ${e:-0} ))
	[ "$3" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	add_counts "$1" "${p:-0}" "$f" "${s:-0}"
}
# Counts from a shell tier's last summary line.
tier_counts() { # tier_counts TIER LOG RC
	local line
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1)
	if [ -z "$line" ]; then add_counts "$1" 0 1 0; return; fi
	read -r p _ f _ s _ <<<"${line//,/}"
	[ "$3" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	add_counts "$1" "$p" "$f" "${s:-0}"
}

run_tier() { # run_tier TIER
	local tier=$1 rc other
	echo "== tier $tier"
	tier_started=$SECONDS
	case $tier in
	unit)
		make -C "$build" check >"$logs/unit.log" 2>&1; rc=$?
		grep -E '^(FAIL|ERROR)' "$build"/tests/unit/*.log 2>/dev/null | head -n 40
		unit_counts unit "$build" $rc ;;
	asan)
		asan=$(scripts/build.sh _build/asan --enable-sanitizers --without-slurm | tail -n 1) &&
			make -C "$asan" check >"$logs/asan.log" 2>&1; rc=$?
		grep -E '^(FAIL|ERROR)' "$top"/_build/asan/tests/unit/*.log 2>/dev/null | head -n 40
		unit_counts asan "$top/_build/asan" $rc ;;
	dist)
		if make -C "$build" distcheck >"$logs/dist.log" 2>&1; then
			add_counts dist 1 0 0
		else
			tail -n 30 "$logs/dist.log"
			add_counts dist 0 1 0
		fi ;;
	slurm)
		# The plugin built for Slurm 24.11 (with this host's C library), which
		# t_release_*.sh loads into this 22.05 cluster; without it those cases skip.
		other=$(tests/slurm/run-release --host-build 2>"$logs/slurm-24.11-host-build.log" | tail -n 1) ||
			{ other=; echo "test.sh: no plugin built for Slurm 24.11: $(tail -n 1 "$logs/slurm-24.11-host-build.log")"; }
		grep -h '^debian-root: built' "$logs/slurm-24.11-host-build.log"   # the root's cost, on its first build
		MPOL_OTHER_BUILD=$other T_TIER=slurm tests/slurm/run 2>&1 | tee "$logs/slurm.log"; rc=${PIPESTATUS[0]}
		tier_counts slurm "$logs/slurm.log" "$rc" ;;
	slurm24 | slurm-[0-9]*.[0-9]*)
		[ "$tier" = slurm24 ] && tier=slurm-24.11
		tests/slurm/run-release --release "${tier#slurm-}" 2>&1 | tee "$logs/$tier.log"; rc=${PIPESTATUS[0]}
		tier_counts "$tier" "$logs/$tier.log" "$rc" ;;
	fuzz | host | pkg | vm)
		T_TIER=$tier "tests/$tier/run" 2>&1 | tee "$logs/$tier.log"; rc=${PIPESTATUS[0]}
		tier_counts "$tier" "$logs/$tier.log" "$rc" ;;
	*) echo "test.sh: unknown tier '$tier' (unit asan fuzz dist host slurm slurm-24.11 slurm-25.11 slurm-26.05 pkg vm)"; add_counts "$tier" 0 1 0 ;;
	esac
}

# The tiers beside the cluster tiers (see the top), in this order: the longest (vm)
# first, pkg last, since its jobs wait for the cluster tiers' lock.
beside_order=(vm asan fuzz dist pkg)
beside=() inturn=()
for tier in "${tiers[@]}"; do
	[ "${MPOL_TEST_BESIDE:-1}" = 1 ] && [[ " ${beside_order[*]} " == *" $tier "* ]] || inturn+=("$tier")
done
for tier in "${beside_order[@]}"; do
	[ "${MPOL_TEST_BESIDE:-1}" = 1 ] && [[ " ${tiers[*]} " == *" $tier "* ]] && beside+=("$tier")
done
beside_pid=
start_beside() {
	[ ${#beside[@]} -gt 0 ] && [ -z "$beside_pid" ] || return 0
	echo "== tiers ${beside[*]}: beside the cluster tiers at low priority (their output follows those)"
	(
		renice -n 10 -p $BASHPID >/dev/null
		for tier in "${beside[@]}"; do run_tier "$tier"; done
		echo "== tiers ${beside[*]}: done at $SECONDS s"
	) >"$logs/beside.log" 2>&1 &
	beside_pid=$!
}
for tier in "${inturn[@]}"; do
	case $tier in slurm | slurm24 | slurm-[0-9]*) start_beside ;; esac
	run_tier "$tier"
done
start_beside
if [ -n "$beside_pid" ]; then
	wait "$beside_pid"
	echo "== tiers ${beside[*]}, which ran beside the cluster tiers:"
	cat "$logs/beside.log"
fi
read -r passed failed skipped < <(awk '{ p += $1; f += $2; s += $3 } END { print p + 0, f + 0, s + 0 }' "$counts")
echo "test.sh: $SECONDS s in all, installing and building included"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
