# t_blocking_files.sh - files that block or never end where mpolctl reads (sourced by
# tests/host/run): a FIFO or a link to /dev/zero in a sysfs tree, a plugstack.conf
# (or a file it includes), slurm.conf, a bandwidth table, the raw ACPI tables and the
# state directory. Each command runs under `timeout`, so a reader that blocks fails
# here (exit 124) instead of hanging the run; each must also say what it refused.

TB_TMP=$(mktemp -d)
TB_FIX=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)
TB_LIMIT=30

# tb_run ARGS...: mpolctl ARGS under timeout; TB_OUT (stdout and stderr), TB_RC.
tb_run() {
	TB_OUT=$(timeout "$TB_LIMIT" "$MPOLCTL" "$@" 2>&1)
	TB_RC=$?
}

# tb_expect NAME RCS REGEX ARGS...: mpolctl ARGS ends with one of the exit statuses RCS
# (e.g. "1" or "0 1") and says REGEX.
tb_expect() {
	local name=$1 rcs=$2 re=$3
	shift 3
	tb_run "$@"
	if [ "$TB_RC" -eq 124 ]; then
		t_fail "$name" "blocked: still running after $TB_LIMIT s"
	elif ! grep -qw -- "$TB_RC" <<<"$rcs"; then
		t_fail "$name" "exit $TB_RC (want $rcs): $(head -c 600 <<<"$TB_OUT")"
	else
		t_expect_match "$name" "$re" "$TB_OUT"
	fi
}

# tb_tree NAME FILE KIND: a copy of linux-7.3-boot in $TB_TMP/NAME whose FILE is a FIFO
# (KIND fifo) or a link to /dev/zero (KIND zero).
tb_tree() {
	local root=$TB_TMP/$1
	rm -rf "$root"
	cp -a "$TB_FIX/linux-7.3-boot" "$root"
	rm -f "$root/$2"
	case $3 in
	fifo) mkfifo "$root/$2" ;;
	zero) ln -s /dev/zero "$root/$2" ;;
	esac
}

if [ ! -x "$MPOLCTL" ]; then
	t_fail "blocking: mpolctl" "$MPOLCTL is missing (build first)"
else
	# --- check hands the tree to hwloc: a FIFO anywhere hwloc reads must not hang it
	for tb_file in sys/devices/system/node/node0/meminfo \
		sys/devices/system/node/node2/access1/initiators/read_bandwidth \
		sys/devices/system/cpu/online; do
		for tb_kind in fifo zero; do
			tb_tree check "$tb_file" $tb_kind
			if command -v lstopo-no-graphics >/dev/null; then
				tb_re="hwloc could not be compared: not run: the tree holds .*/$tb_file \((a FIFO|a link to a character device)\)"
			else
				tb_re="hwloc \(lstopo-no-graphics\) is not installed"
			fi
			tb_expect "blocking: check with a $tb_kind at $tb_file ends, hwloc not run on it" "0 3" "$tb_re" \
				check --fsroot "$TB_TMP/check"
		done
	done
	tb_tree check sys/devices/system/node/node0/meminfo fifo
	tb_expect "blocking: show with a FIFO at node0/meminfo warns and goes on" 0 \
		"cannot read .*/node0/meminfo: it is not a regular file" show --fsroot "$TB_TMP/check"
	# the raw ACPI tables (a fixture that has them)
	rm -rf "$TB_TMP/acpi"
	cp -a "$TB_FIX/linux-7.3-acpi" "$TB_TMP/acpi"
	rm -f "$TB_TMP/acpi/sys/firmware/acpi/tables/HMAT"
	mkfifo "$TB_TMP/acpi/sys/firmware/acpi/tables/HMAT"
	tb_expect "blocking: show with a FIFO as the raw ACPI HMAT ends and says why it is not used" 0 \
		"raw ACPI HMAT: not used: cannot read .*/tables/HMAT: it is not a regular file" show --fsroot "$TB_TMP/acpi"

	# --- plugstack.conf, a file it includes, slurm.conf
	mkfifo "$TB_TMP/plugstack.fifo"
	ln -s /dev/zero "$TB_TMP/plugstack.zero"
	printf 'include %s\n' "$TB_TMP/plugstack.fifo" >"$TB_TMP/includes-fifo.conf"
	printf 'include %s\n' "$TB_TMP/plugstack.zero" >"$TB_TMP/includes-zero.conf"
	for tb_conf in plugstack.fifo plugstack.zero includes-fifo.conf includes-zero.conf; do
		for tb_verb in show plan; do
			tb_expect "blocking: $tb_verb --plugstack $tb_conf fails (exit 1) naming the file" 1 \
				"cannot read $TB_TMP/plugstack\.(fifo|zero): it is not a regular file" \
				$tb_verb --plugstack "$TB_TMP/$tb_conf"
		done
		tb_expect "blocking: check --plugstack $tb_conf reports it" "3 4" \
			"plugstack.*cannot read $TB_TMP/plugstack\.(fifo|zero): it is not a regular file" \
			check --plugstack "$TB_TMP/$tb_conf"
	done
	mkfifo "$TB_TMP/slurm.conf"
	SLURM_CONF=$TB_TMP/slurm.conf tb_expect "blocking: a FIFO as slurm.conf: plan ends" 0 "^initiator node" plan \
		--fsroot "$TB_FIX/linux-7.3-boot" --bandwidth none
	SLURM_CONF=/dev/zero tb_expect "blocking: /dev/zero as slurm.conf: plan ends" 0 "^initiator node" plan \
		--fsroot "$TB_FIX/linux-7.3-boot" --bandwidth none

	# --- the bandwidth table
	for tb_table in "$TB_TMP/plugstack.fifo" "$TB_TMP/plugstack.zero"; do
		tb_expect "blocking: plan --bandwidth $(basename "$tb_table") ends and says why the table is not used" 0 \
			"table not used: .*it is not a regular file" plan --fsroot "$TB_FIX/linux-7.3-boot" --bandwidth "$tb_table"
	done

	# --- the state directory: the lease journal and a kept placement as FIFOs
	mkdir -m 0700 "$TB_TMP/state"
	mkfifo -m 0600 "$TB_TMP/state/weights.journal" "$TB_TMP/state/step.42.0.json"
	tb_expect "blocking: check with FIFOs in the state directory ends, refusing the journal" 4 \
		"lease-journal .*weights.journal is not a regular file" \
		check --fsroot "$TB_FIX/linux-7.3-boot" --statedir "$TB_TMP/state" --bandwidth none
	t_expect_match "blocking: check counts a FIFO among the kept placements as malformed" \
		"kept-malformed .*1 kept placement file\(s\) in $TB_TMP/state do not parse" "$TB_OUT"
	tb_expect "blocking: recover with a FIFO as the journal ends, refusing it" "1" "weights.journal" \
		recover --fsroot "$TB_FIX/linux-7.3-boot" --statedir "$TB_TMP/state"
fi
rm -rf "$TB_TMP"
