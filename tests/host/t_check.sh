# t_check.sh - `mpolctl check` (sourced by tests/host/run): its exit status and findings
# on every fixture tree, on crafted copies of them that each carry one finding, and on
# this host. It changes nothing, so the trees and state directories are copies in a
# temporary directory; sysfs is read under --fsroot, the plugin's line from a
# --plugstack file of the case's own.

TC_FIX=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)
TC_TMP=$(mktemp -d)
TC_HWLOC=$(command -v lstopo-no-graphics || true)

# A plugstack.conf whose included file holds a good line, as Debian's does.
mkdir -p "$TC_TMP/plugstack.conf.d"
printf 'include %s/plugstack.conf.d/*.conf\n' "$TC_TMP" >"$TC_TMP/plugstack.conf"
echo "optional mem_interleave.so default=none sysfs=never" >"$TC_TMP/plugstack.conf.d/mem_interleave.conf"

# tc_tree NAME FIXTURE: a copy of FIXTURE to change (echoes its path).
tc_tree() {
	rm -rf "$TC_TMP/$1"
	cp -a "$TC_FIX/$2" "$TC_TMP/$1"
	echo "$TC_TMP/$1"
}

# tc_state NAME: an empty state directory as the plugin makes it (root's, 0700).
tc_state() {
	rm -rf "$TC_TMP/state-$1"
	mkdir -m 0700 "$TC_TMP/state-$1"
	echo "$TC_TMP/state-$1"
}

# tc_check NAME WANT_EXIT "SEVERITY:CODE..." ARGS...: mpolctl check --json ARGS exits
# WANT_EXIT and reports every SEVERITY:CODE given. Unless ARGS name them, the plugstack
# file above, an empty state directory and no bandwidth table are used.
tc_check() {
	local name=$1 want=$2 codes=$3 out rc c missing="" defaults=()
	shift 3
	[[ " $* " == *" --plugstack "* ]] || defaults+=(--plugstack "$TC_TMP/plugstack.conf")
	[[ " $* " == *" --statedir "* ]] || defaults+=(--statedir "$(tc_state "$name")")
	[[ " $* " == *" --bandwidth "* ]] || defaults+=(--bandwidth none)
	out=$("$MPOLCTL" check --json "${defaults[@]}" "$@" 2>&1)
	rc=$?
	for c in $codes; do
		jq -e --arg s "${c%%:*}" --arg c "${c#*:}" 'any(.findings[]; .severity == $s and .code == $c)' \
			<<<"$out" >/dev/null 2>&1 || missing="$missing $c"
	done
	if [ "$rc" != "$want" ] || [ -n "$missing" ] || ! jq -e ".exit == $want" <<<"$out" >/dev/null 2>&1; then
		t_fail "check: $name" "exit $rc (want $want)${missing:+, missing$missing}: $(jq -c '[.findings[] | select(.severity != "ok") | "\(.severity):\(.code)"]' <<<"$out" 2>/dev/null || head -c 400 <<<"$out")"
	else
		t_pass "check: $name"
	fi
}

if [ ! -x "$MPOLCTL" ]; then
	t_fail "check: mpolctl" "$MPOLCTL is missing (build first)"
elif ! command -v jq >/dev/null; then
	t_fail "check: jq" "jq is missing (scripts/install-deps.sh build)"
else
	# Every fixture: its findings decide the exit status (0 ok/info, 3 warnings, 4 errors).
	tc_check "fixture access0-differs: access0 faster via another initiator is fine" 0 "ok:hmat-present" --fsroot "$TC_FIX/access0-differs"
	tc_check "fixture hbm-dram: HBM faster than DRAM is info" 0 "info:faster-than-dram" --fsroot "$TC_FIX/hbm-dram"
	tc_check "fixture linux-6.1-boot: no weighted interleave" 3 "warning:weighted-interleave-unavailable" \
		--fsroot "$TC_FIX/linux-6.1-boot"
	tc_check "fixture linux-6.12-boot: weights 1 with no auto" 3 "warning:weights-stale" --fsroot "$TC_FIX/linux-6.12-boot"
	tc_check "fixture linux-6.18-auto-type: one node" 0 "info:hmat-missing ok:weights" --fsroot "$TC_FIX/linux-6.18-auto-type"
	tc_check "fixture linux-7.3-acpi: the raw HMAT used" 0 "ok:acpi-hmat ok:weights ok:plugstack" \
		--fsroot "$TC_FIX/linux-7.3-acpi"
	tc_check "fixture linux-7.3-after-hotplug" 0 "ok:hmat-present info:acpi-hmat" --fsroot "$TC_FIX/linux-7.3-after-hotplug"
	tc_check "fixture linux-7.3-boot" 0 "ok:hmat-present ok:weights" --fsroot "$TC_FIX/linux-7.3-boot"
	tc_check "fixture malformed" 4 "error:weights-unreadable warning:sysfs warning:hmat-bandwidth-zero warning:memory-only-no-hmat warning:no-initiator" \
		--fsroot "$TC_FIX/malformed"
	tc_check "fixture no-hmat" 3 "warning:hmat-missing warning:memory-only-no-hmat" --fsroot "$TC_FIX/no-hmat"
	tc_check "fixture two-socket-cxl" 0 "ok:hmat-present ok:weights" --fsroot "$TC_FIX/two-socket-cxl"

	# One finding per crafted tree.
	N=sys/devices/system/node
	t=$(tc_tree no-hmat-node two-socket-cxl)
	rm -rf "$t/$N/node1/access0" "$t/$N/node1/access1"
	tc_check "a CPU node without HMAT" 3 "warning:hmat-missing" --fsroot "$t"
	t=$(tc_tree access0-only linux-7.3-boot)
	rm -rf "$t/$N/node2/access1"
	tc_check "access0 only (its best initiator may be no CPU)" 0 "info:hmat-access0-only" --fsroot "$t"
	t=$(tc_tree bw-zero linux-7.3-boot)
	echo 0 >"$t/$N/node2/access1/initiators/write_bandwidth"
	tc_check "write bandwidth 0" 3 "warning:hmat-bandwidth-zero" --fsroot "$t"
	t=$(tc_tree rw linux-7.3-boot)
	for k in 0 1; do echo 20000 >"$t/$N/node2/access$k/initiators/read_bandwidth"; done
	tc_check "writes three times the reads (swapped?)" 3 "warning:hmat-rw-ratio" --fsroot "$t"
	t=$(tc_tree classes linux-7.3-boot)
	for f in read write; do echo 32000 >"$t/$N/node2/access0/initiators/${f}_bandwidth"; done
	tc_check "access0 worse than access1, same initiators" 3 "warning:hmat-access-mismatch" --fsroot "$t"
	t=$(tc_tree noinit linux-7.3-boot)
	rm -rf "$t/$N/node2/access0" "$t/$N/node2/access1" "$t/$N/node2/distance"
	tc_check "a memory node without initiator" 3 "warning:no-initiator warning:memory-only-no-hmat" --fsroot "$t"
	t=$(tc_tree fast linux-7.3-boot)
	for k in 0 1; do for f in read write; do echo 300000 >"$t/$N/node2/access$k/initiators/${f}_bandwidth"; done; done
	tc_check "CXL claimed faster than DRAM" 3 "warning:faster-than-dram" --fsroot "$t"
	t=$(tc_tree acpi-bad linux-7.3-acpi)
	cp "$TC_FIX/acpi/hmat-bad-checksum.bin" "$t/sys/firmware/acpi/tables/HMAT"
	tc_check "the raw HMAT refused (checksum)" 3 "warning:acpi-hmat-refused" --fsroot "$t"
	t=$(tc_tree acpi-domains linux-7.3-acpi)
	cp "$TC_FIX/acpi/srat-wrong-domain.bin" "$t/sys/firmware/acpi/tables/SRAT"
	tc_check "the raw HMAT refused (SRAT contradicts sysfs)" 3 "warning:acpi-hmat-refused" --fsroot "$t"
	t=$(tc_tree sysfs linux-7.3-boot)
	echo "Node 0 MemTotal: lots" >"$t/$N/node0/meminfo"
	tc_check "an unreadable sysfs value" 3 "warning:sysfs" --fsroot "$t"
	tc_check "no node list at all" 4 "error:topology" --fsroot "$TC_TMP/plugstack.conf.d"

	# The weights table.
	WI=sys/kernel/mm/mempolicy/weighted_interleave
	t=$(tc_tree wi-bad linux-7.3-boot)
	echo x >"$t/$WI/node0"
	tc_check "a weight that is no number" 4 "error:weights-unreadable" --fsroot "$t"
	t=$(tc_tree wi-missing linux-7.3-boot)
	rm "$t/$WI/node2"
	tc_check "a memory node without weight file" 3 "warning:weights-node-missing" --fsroot "$t"
	t=$(tc_tree wi-offline linux-6.12-boot)
	echo 5 >"$t/$WI/node3"
	tc_check "a weight for a node without memory" 3 "warning:weights-offline-node" --fsroot "$t"
	t=$(tc_tree wi-hotplug linux-7.3-after-hotplug)
	printf 'false\n' >"$t/$WI/auto"
	for nw in 0:7 1:7 2:2 3:1; do echo "${nw#*:}" >"$t/$WI/node${nw%%:*}"; done
	tc_check "auto off, weights from before a hot-add" 3 "warning:weights-stale" --fsroot "$t"
	t=$(tc_tree wi-system linux-7.3-boot)
	printf 'false\n' >"$t/$WI/auto"
	for nw in 0:7 1:1 2:2; do echo "${nw#*:}" >"$t/$WI/node${nw%%:*}"; done
	tc_check "auto off, the system weights" 0 "ok:weights" --fsroot "$t"

	# The state directory, the lease, kept placements.
	s=$(tc_state unsafe)
	chmod 0777 "$s"
	tc_check "a state directory anyone may write" 4 "error:statedir-unsafe" --fsroot "$TC_FIX/linux-7.3-boot" --statedir "$s"
	: >"$TC_TMP/state-file"
	tc_check "a state directory that is a file" 4 "error:statedir" --fsroot "$TC_FIX/linux-7.3-boot" \
		--statedir "$TC_TMP/state-file"
	tc_check "no state directory yet" 0 "info:statedir" --fsroot "$TC_FIX/linux-7.3-boot" --statedir "$TC_TMP/none"
	# a holder that exited: a child's pid and start time, after it is reaped
	sleep 0 & dead=$!
	wait $dead
	s=$(tc_state lease-dead)
	: >"$s/lock"
	printf 'slurm-mempolicy lease v1\nowner job=7 step=0 uid=0 pid=%d start=1\nsaved auto=1 0:7 1:7 2:2\n' "$dead" \
		>"$s/weights.journal"
	tc_check "a lease left by a dead step" 3 "warning:lease-dead" --fsroot "$TC_FIX/linux-7.3-boot" --statedir "$s"
	s=$(tc_state lease-live)
	: >"$s/lock"
	printf 'slurm-mempolicy lease v1\nowner job=8 step=0 uid=0 pid=%d start=%s\nsaved auto=1 0:7 1:7 2:2\n' "$$" \
		"$(cut -d' ' -f22 /proc/$$/stat)" >"$s/weights.journal"
	tc_check "a lease a live step holds" 0 "info:lease-held ok:weights" --fsroot "$TC_FIX/linux-7.3-boot" --statedir "$s"
	s=$(tc_state lease-bad)
	: >"$s/lock"
	echo garbage >"$s/weights.journal"
	tc_check "a malformed lease journal" 4 "error:lease-journal" --fsroot "$TC_FIX/linux-7.3-boot" --statedir "$s"
	s=$(tc_state kept)
	printf '{"v":1,"job":9,"step":0,"uid":0,"stepd":{"pid":%d,"start":1},"spec":"weighted","site_default":false,"site":{"algorithm":"optimal","precision":0.98,"max_weight_sum":72,"sysfs":"exclusive"},"mem_kb":0,"lease_held":false,"path":"weighted-interleave","note":"","launch_free_kb":{},"tasks":[]}\n' \
		"$dead" >"$s/step.9.0.json"
	echo '{"v":1' >"$s/step.10.0.json"
	sed "s/\"job\":9/\"job\":11/; s/\"pid\":$dead,\"start\":1/\"pid\":$$,\"start\":$(cut -d' ' -f22 /proc/$$/stat)/" \
		"$s/step.9.0.json" >"$s/step.11.0.json"
	tc_check "kept placements of a dead step, a broken one and a live one" 3 \
		"warning:kept-dead warning:kept-malformed info:kept-live" --fsroot "$TC_FIX/linux-7.3-boot" --statedir "$s"

	# The plugin's plugstack line.
	echo "required /usr/lib/slurm/mem_interleave.so sysfs=sometimes" >"$TC_TMP/bad-plugstack.conf"
	tc_check "a plugstack line that does not parse" 4 "error:plugstack-invalid" --fsroot "$TC_FIX/linux-7.3-boot" \
		--plugstack "$TC_TMP/bad-plugstack.conf"
	echo "optional other.so" >"$TC_TMP/other-plugstack.conf"
	tc_check "no line for the plugin" 3 "warning:plugstack-missing" --fsroot "$TC_FIX/linux-7.3-boot" \
		--plugstack "$TC_TMP/other-plugstack.conf"
	tc_check "no plugstack.conf" 3 "warning:plugstack-missing" --fsroot "$TC_FIX/linux-7.3-boot" \
		--plugstack "$TC_TMP/nothing.conf"

	# The programs the line names: this host's files, so checked without --fsroot only,
	# where the exit follows this host's other findings: only the codes are compared.
	tc_helpers() { # tc_helpers NAME "SEVERITY:CODE..." LINE_ARGS
		local out missing="" c
		echo "optional mem_interleave.so default=none sysfs=never $3" >"$TC_TMP/helpers.conf"
		out=$("$MPOLCTL" check --json --plugstack "$TC_TMP/helpers.conf" --statedir "$(tc_state helpers)" \
			--bandwidth none 2>&1)
		for c in $2; do
			jq -e --arg s "${c%%:*}" --arg c "${c#*:}" 'any(.findings[]; .severity == $s and .code == $c)' \
				<<<"$out" >/dev/null 2>&1 || missing="$missing $c"
		done
		[ -z "$missing" ] && t_pass "check: $1" || t_fail "check: $1" "missing$missing: $(jq -c \
			'[.findings[] | select(.code | test("dbd|preload")) | "\(.severity):\(.code)"]' <<<"$out" 2>/dev/null ||
			head -c 400 <<<"$out")"
	}
	printf '#!/bin/sh\n' >"$TC_TMP/client"
	chmod 0755 "$TC_TMP/client"
	cp "$TC_TMP/client" "$TC_TMP/open-client"
	chmod 0777 "$TC_TMP/open-client"
	echo lib >"$TC_TMP/interposer.so"
	chmod 0644 "$TC_TMP/interposer.so"
	tc_helpers "the line's client runs and its interposer reads" "ok:dbd-client ok:preload" \
		"dbd_client=$TC_TMP/client preload=$TC_TMP/interposer.so"
	tc_helpers "a missing client; preload=none" "warning:dbd-client-missing info:preload" \
		"dbd_client=$TC_TMP/missing preload=none"
	tc_helpers "record=none needs no client, even a missing one" "info:dbd-client" \
		"dbd_client=$TC_TMP/missing record=none"
	tc_helpers "a client that is no program; a directory for the interposer" \
		"warning:dbd-client-missing warning:preload-missing" "dbd_client=$TC_TMP/interposer.so preload=$TC_TMP"
	tc_helpers "a client and an interposer anyone may write" "error:dbd-client-unsafe error:preload-unsafe" \
		"dbd_client=$TC_TMP/open-client preload=$TC_TMP/open-client"
	# slurmd's courier (which this host has none of): none listens in a fresh state
	# directory; a lock file held by a process with the line's settings is a courier
	# that takes the records, one with other settings is a warning (restart slurmd).
	tc_courier() { # tc_courier NAME "SEVERITY:CODE" SETTINGS|""
		local sd out holder
		sd=$(tc_state courier)
		if [ -n "$3" ]; then
			printf '%s\n' "$3" >"$sd/courier.lock"
			chmod 0600 "$sd/courier.lock"
			(exec 8<"$sd/courier.lock" && flock -s 8 && exec sleep 30) &
			holder=$!
			for _ in 1 2 3 4 5 6 7 8 9 10; do flock -n -x "$sd/courier.lock" true || break; sleep 0.1; done
		fi
		out=$("$MPOLCTL" check --json --plugstack "$TC_TMP/helpers.conf" --statedir "$sd" --bandwidth none 2>&1)
		[ -z "$3" ] || { kill "$holder"; wait "$holder"; } 2>/dev/null
		t_expect_match "check: $1" "^\[\"$2\"\]\$" \
			"$(jq -c '[.findings[] | select(.code | test("courier")) | "\(.severity):\(.code)"]' <<<"$out" 2>&1)"
	}
	echo "optional mem_interleave.so dbd_client=$TC_TMP/client" >"$TC_TMP/helpers.conf"
	tc_courier "no courier listens: each step writes its record itself" "info:courier-none" ""
	tc_courier "slurmd's courier listens with the line's settings" "ok:courier" \
		"record=admincomment dbd_client=$TC_TMP/client"
	tc_courier "slurmd's courier listens with another dbd_client= (restart slurmd)" "warning:courier-settings" \
		"record=admincomment dbd_client=$TC_TMP/open-client"
	out=$("$MPOLCTL" check --json --plugstack "$TC_TMP/helpers.conf" --statedir "$(tc_state helpers)" --bandwidth none \
		--fsroot "$TC_FIX/linux-7.3-boot" 2>&1)
	t_expect_match "check: under --fsroot the line's programs and slurmd's courier are not checked (they are this host's)" '^\[\]$' \
		"$(jq -c '[.findings[] | select(.code | test("dbd|preload|courier"))]' <<<"$out" 2>&1)"

	# The bandwidth table (the captured guest's nodes; the raw HMAT is read too).
	guest_nodes="node 0 cpus=0-1 memory=yes
node 1 cpus=2-3 memory=yes
node 2 cpus=- memory=yes"
	tc_table() { # tc_table FILE R00 R01 R02 R10 R11 R12: a measured table of the guest
		printf 'smpol-bandwidth 1\n%s\nmeasured 0 0 %s %s\nmeasured 0 1 %s %s\nmeasured 0 2 %s %s\nmeasured 1 0 %s %s\nmeasured 1 1 %s %s\nmeasured 1 2 %s %s\n' \
			"$guest_nodes" "$2" "$2" "$3" "$3" "$4" "$4" "$5" "$5" "$6" "$6" "$7" "$7" >"$1"
		chmod 0644 "$1"
	}
	tc_table "$TC_TMP/agree.bw" 150000 75000 43000 75000 150000 32000
	tc_check "a table that agrees with the raw HMAT" 0 "ok:bandwidth-table ok:table-disagrees" \
		--fsroot "$TC_FIX/linux-7.3-acpi" --bandwidth "$TC_TMP/agree.bw"
	tc_table "$TC_TMP/remote.bw" 150000 30000 43000 75000 150000 32000
	tc_check "remote DRAM measured at 20%, HMAT says 50%" 3 "warning:table-disagrees" \
		--fsroot "$TC_FIX/linux-7.3-acpi" --bandwidth "$TC_TMP/remote.bw"
	tc_check "a named table that does not exist" 4 "error:bandwidth-table" --fsroot "$TC_FIX/linux-7.3-acpi" \
		--bandwidth "$TC_TMP/missing.bw"
	printf 'smpol-bandwidth 1\nmeasured 0 0\n' >"$TC_TMP/broken.bw"
	tc_check "a malformed table" 4 "error:bandwidth-table" --fsroot "$TC_FIX/linux-7.3-acpi" --bandwidth "$TC_TMP/broken.bw"
	printf 'smpol-bandwidth 1\nnode 0 cpus=0-7 memory=yes\n' >"$TC_TMP/foreign.bw"
	tc_check "another machine's table" 4 "error:bandwidth-table-foreign" --fsroot "$TC_FIX/linux-7.3-acpi" \
		--bandwidth "$TC_TMP/foreign.bw"
	cp "$TC_TMP/agree.bw" "$TC_TMP/open.bw"
	chmod 0666 "$TC_TMP/open.bw"
	tc_check "a table anyone may write" 3 "warning:bandwidth-table-unsafe" --fsroot "$TC_FIX/linux-7.3-acpi" \
		--bandwidth "$TC_TMP/open.bw"

	# hwloc reads the same files another way
	if [ -n "$TC_HWLOC" ]; then
		t=$(tc_tree hwloc linux-7.3-boot)
		echo 99999999999 >"$t/$N/node2/access1/initiators/read_bandwidth"
		tc_check "hwloc reads a value this reader refuses" 3 "warning:hwloc-disagrees" --fsroot "$t"
		tc_check "hwloc agrees on the captured guest" 0 "ok:hwloc" --fsroot "$TC_FIX/linux-7.3-boot"
	else
		t_skip "check: hwloc" "lstopo-no-graphics is not installed (scripts/install-deps.sh build)"
	fi

	# Output forms: one line; the text form names every code of the JSON one.
	out=$("$MPOLCTL" check --quiet --plugstack "$TC_TMP/plugstack.conf" --statedir "$(tc_state q)" --bandwidth none \
		--fsroot "$TC_FIX/no-hmat")
	t_expect_match "check --quiet: one line naming the first warning" '^mpolctl check: 0 error\(s\), [0-9]+ warning\(s\); first: ' "$out"
	[ "$(wc -l <<<"$out")" = 1 ] && t_pass "check --quiet: one line" || t_fail "check --quiet: one line" "$out"
	out=$("$MPOLCTL" check --quiet --json 2>&1)
	[ $? = 2 ] && t_pass "check --quiet --json: refused (exit 2)" || t_fail "check --quiet --json: refused" "$out"

	# The admin guide's HealthCheckProgram wrapper, as printed there: it drains on
	# errors (4) only, never on a usage error (2) or a failed check (1).
	sed -n '/^       #!\/bin\/sh$/,/^       esac$/s/^       //p' "$TC_FIX/../../doc/admin-guide.md" >"$TC_TMP/mpol-health"
	mkdir -p "$TC_TMP/bin"
	printf '#!/bin/sh\necho "scontrol $*" >>"%s/calls"\n' "$TC_TMP" >"$TC_TMP/bin/scontrol"
	printf '#!/bin/sh\necho "logger $*" >>"%s/calls"\n' "$TC_TMP" >"$TC_TMP/bin/logger"
	printf '#!/bin/sh\necho "mpolctl check: what the fake says"\nexit $FAKE_RC\n' >"$TC_TMP/bin/mpolctl"
	chmod 755 "$TC_TMP/bin/scontrol" "$TC_TMP/bin/logger" "$TC_TMP/bin/mpolctl"
	for tc_case in "0:" "3:" "4:scontrol update nodename=.* state=drain reason=mpolctl check: what the fake says" \
		"1:logger -t mpol-health mpolctl check did not run" "2:logger -t mpol-health mpolctl check did not run"; do
		rm -f "$TC_TMP/calls"
		sed "s|/usr/bin/mpolctl|$TC_TMP/bin/mpolctl|" "$TC_TMP/mpol-health" >"$TC_TMP/mpol-health-fake"
		FAKE_RC=${tc_case%%:*} PATH="$TC_TMP/bin:$PATH" sh "$TC_TMP/mpol-health-fake"
		calls=$(cat "$TC_TMP/calls" 2>/dev/null)
		if [ -z "${tc_case#*:}" ] && [ -z "$calls" ] || { [ -n "${tc_case#*:}" ] && grep -Eq -- "^${tc_case#*:}" <<<"$calls" &&
			[ "$(wc -l <<<"$calls")" = 1 ]; }; then
			t_pass "check: the admin guide's wrapper on exit ${tc_case%%:*}: ${tc_case#*:}"
		else
			t_fail "check: the admin guide's wrapper on exit ${tc_case%%:*}" "it did: '${calls}' (want '${tc_case#*:}')"
		fi
	done
	# the real mpolctl, a typo in the wrapper's line: logged, no drain
	rm -f "$TC_TMP/calls"
	sed "s|/usr/bin/mpolctl check --quiet|$MPOLCTL check --quite|" "$TC_TMP/mpol-health" >"$TC_TMP/mpol-health-typo"
	PATH="$TC_TMP/bin:$PATH" sh "$TC_TMP/mpol-health-typo"
	t_expect_match "check: a typo in the wrapper (--quite) is logged, no node drained" \
		"^logger -t mpol-health mpolctl check did not run: mpolctl check: unknown option '--quite'" \
		"$(cat "$TC_TMP/calls" 2>/dev/null)"

	# Another user: what it may not read is skipped and said, never "ok"
	if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
		s=$(tc_state nonroot)
		chmod 0755 "$TC_TMP"
		out=$(su nobody -s /bin/sh -c "'$MPOLCTL' check --quiet --fsroot '$TC_FIX/linux-7.3-boot' --statedir '$s' --bandwidth none --plugstack '$TC_TMP/plugstack.conf'" 2>&1)
		rc=$?
		if [ "$rc" = 0 ] && ! grep -q ": ok$" <<<"$out"; then
			t_expect_match "check as another user: no 'ok'; says the lease and kept placements were not checked" \
				"^mpolctl check: no warnings or errors in what this user may read; not checked: lease kept-placements \(run it as root\)$" "$out"
		else
			t_fail "check as another user: no 'ok'; says the lease and kept placements were not checked" "exit $rc: $out"
		fi
		out=$(su nobody -s /bin/sh -c "'$MPOLCTL' check --json --fsroot '$TC_FIX/linux-7.3-boot' --statedir '$s' --bandwidth none --plugstack '$TC_TMP/plugstack.conf'" 2>&1)
		t_expect_match "check --json as another user: status skipped, counted" '^skipped 2$' \
			"$(jq -r '"\(.status) \(.counts.skipped)"' <<<"$out" 2>&1)"
	else
		t_skip "check as another user" "needs root (to run it as nobody)"
	fi

	# This host: the exit status is what its findings say, and the findings are there.
	out=$("$MPOLCTL" check --json 2>&1)
	rc=$?
	want=$(jq -r 'if any(.findings[]; .severity == "error") then 4 elif any(.findings[]; .severity == "warning") then 3 else 0 end' <<<"$out" 2>/dev/null)
	if [ -n "$want" ] && [ "$rc" = "$want" ] && jq -e 'any(.findings[]; .code == "statedir") and
		any(.findings[]; .code == "bandwidth-table") and any(.findings[]; .code | startswith("plugstack"))' <<<"$out" >/dev/null; then
		t_pass "check on this host: exit $rc as its findings say ($(jq -c '[.findings[] | select(.severity != "ok") | .code]' <<<"$out"))"
	else
		t_fail "check on this host" "exit $rc, findings say ${want:-?}: $(head -c 600 <<<"$out")"
	fi
fi
rm -rf "$TC_TMP"
