# t_reading.sh - output an admin can read without the source (sourced by
# tests/host/run): sizes in binary units said as such beside decimal MB/s, the TIER
# column explained, report --json in bytes and ISO 8601 beside the record's pages and
# Unix seconds, apply's note that the system table is per socket, and plan's note that
# sysfs HMAT gives best-initiator numbers only.

TR_TMP=$(mktemp -d)
TR_FIX=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)

if [ ! -x "$MPOLCTL" ]; then
	t_fail "reading: mpolctl" "$MPOLCTL is missing (build first)"
else
	tr_out=$("$MPOLCTL" show --fsroot "$TR_FIX/linux-7.3-boot" 2>&1)
	t_expect_match "reading: show gives sizes with binary units (1.4 GiB)" "^0 +DRAM +0-1 +1\.4 GiB +1\.4 GiB " "$tr_out"
	t_expect_match "reading: show gives MiB too (1005.9 MiB)" "^2 +CXL +- +1005\.9 MiB " "$tr_out"
	t_expect_match "reading: show says what MB/s and the binary units are" \
		"sizes in binary units \(1 GiB = 2\^30 bytes\); bandwidth in decimal MB/s \(10\^6 bytes per" "$tr_out"
	t_expect_match "reading: show explains TIER" "TIER: the kernel's memory tier" "$tr_out"
	tr_out=$("$MPOLCTL" plan --fsroot "$TR_FIX/asym-rw" --cpus 0 --mem 4G 2>&1)
	t_expect_match "reading: plan says job memory in GiB and MB/s as decimal" \
		"job memory 4 GiB; bandwidth in decimal MB/s \(10\^6 bytes/s\)" "$tr_out"

	# report --json: a record with pages and a Unix time
	mkdir -p "$TR_TMP/bin"
	cat >"$TR_TMP/bin/sacct" <<'SACCT'
#!/bin/sh
echo '7|{"mempolicy":{"v":1,"unit_kib":4,"steps":{"0":{"n1":{"mode":"weighted","t":1764806400,"last":{"0":256,"2":1},"peak":{"0":512}}}}}}'
SACCT
	chmod 755 "$TR_TMP/bin/sacct"
	tr_out=$(PATH="$TR_TMP/bin:$PATH" "$MPOLCTL" report -j 7 --json 2>&1)
	t_expect_match "reading: report --json gives last and peak in bytes and the time in ISO 8601" \
		'^1048576 4096 2097152 2025-12-04T00:00:00Z 256$' \
		"$(jq -r '.mempolicy.steps["0"].n1 | "\(.last_bytes["0"]) \(.last_bytes["2"]) \(.peak_bytes["0"]) \(.time) \(.last["0"])"' <<<"$tr_out" 2>&1)"
	tr_out=$(PATH="$TR_TMP/bin:$PATH" "$MPOLCTL" report -j 7 2>&1)
	t_expect_match "reading: report gives LAST and PEAK with binary units" "^n1 +0 .* 1 MiB +2 MiB$" "$tr_out"

	# apply: the system table is each socket's plan
	tr_out=$("$MPOLCTL" apply --system --dry-run --fsroot "$TR_FIX/linux-7.3-boot" --statedir "$TR_TMP/state" 2>&1)
	t_expect_match "reading: apply --dry-run says the table holds each socket's plan and what scope=all reads" \
		"note: the table holds each socket's own plan \(node0: nodes 0,2 weights 7:2; node1: nodes 1 weights 1\); a job with scope=all" \
		"$tr_out"
	# plan --scope all on sysfs HMAT: remote nodes weighed by their best initiator's numbers
	tr_out=$("$MPOLCTL" plan --fsroot "$TR_FIX/two-socket-cxl" --scope all --cpus 0 2>&1)
	t_expect_match "reading: plan --scope all says sysfs gives best-initiator numbers for the remote nodes" \
		"note: nodes 1,3 are weighed by sysfs HMAT, which gives each node's bandwidth from its best" "$tr_out"
	tr_out=$("$MPOLCTL" plan --fsroot "$TR_FIX/two-socket-cxl" --scope all --cpus 0 --json 2>&1)
	t_expect_match "reading: plan --json names them (best_initiator_only)" '^1,3$' \
		"$(jq -r '.plans[0].best_initiator_only' <<<"$tr_out" 2>&1)"
	tr_out=$("$MPOLCTL" plan --fsroot "$TR_FIX/two-socket-cxl" --cpus 0 2>&1)
	if grep -q "weighed by sysfs HMAT" <<<"$tr_out"; then
		t_fail "reading: plan --scope socket needs no such note" "$tr_out"
	else
		t_pass "reading: plan --scope socket needs no such note"
	fi
fi
rm -rf "$TR_TMP"
