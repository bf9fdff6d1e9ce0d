# t_interpose.sh - the interposer, mem_interleave_regions.so, on this kernel (sourced by
# tests/host/run): run with it preloaded and an 8 MiB minimum, interpose-check finds
# every way of allocating 16 MiB (the malloc family, mmap, mremap, realloc across the
# minimum, free and malloc again at one address 10 times, a fork child, threads, a
# dlopen'ed library) in a mapping with the plan's policy before its first touch, and
# everything smaller on the task's own; without the library the same checks fail. It
# joins another preloaded library, passes everything through without its variable,
# and a static program it cannot reach runs unharmed.

REGIONS_SO=$MPOL_BUILD/src/interpose/.libs/mem_interleave_regions.so
ICHECK=$MPOL_BUILD/tests/host/interpose-check
ISTATIC=$MPOL_BUILD/tests/host/interpose-static
IDL=$MPOL_BUILD/tests/host/.libs/interpose-dl.so
# interpose-check's check names, in order; a check that never reported is a failure too
ICHECKS="malloc-large malloc-small malloc-middle calloc-large calloc-small posix_memalign-large
aligned_alloc-large memalign-large valloc-large pvalloc-large mmap-anonymous-large mmap-anonymous-small
mremap-grown-large realloc-grow-keeps-contents realloc-grow-large realloc-large-keeps-contents
realloc-larger-large realloc-shrink-keeps-contents realloc-shrink-small free-unmaps
free-malloc-same-address-10 free-malloc-placed-10 fork-child-large fork-child-small fork-child-inherited fork-child-exit
thread0-large thread0-small thread1-large thread1-small thread2-large thread2-small thread3-large
thread3-small dlopen-large"

# interposed LABEL LARGE SMALL [PRELOAD]: run interpose-check under PRELOAD (default:
# the interposer alone) and count each of its checks as a case.
interposed() {
	local label=$1 large=$2 small=$3 preload=${4:-$REGIONS_SO} out name line
	out=$(LD_PRELOAD=$preload "$ICHECK" "$large" "$small" "$IDL" 2>&1)
	for name in $ICHECKS; do
		line=$(grep -E "^(ok|FAIL) $name(:|\$)" <<<"$out")
		case $line in
		"ok $name") t_pass "interpose: $label: $name" ;;
		"") t_fail "interpose: $label: $name" "no report (exit $?): $(tail -n 3 <<<"$out")" ;;
		*) t_fail "interpose: $label: $name" "${line#FAIL $name: }" ;;
		esac
	done
	grep -qx done <<<"$out" || t_fail "interpose: $label: ran to its end" "$(tail -n 3 <<<"$out")"
}

if [ ! -f "$REGIONS_SO" ] || [ ! -x "$ICHECK" ] || [ ! -f "$IDL" ]; then
	t_fail "interpose: built" "missing $REGIONS_SO, $ICHECK or $IDL (build first)"
else
	exports=$(nm -D --defined-only "$REGIONS_SO" | awk '{ print $3 }' | sort | tr '\n' ' ')
	want="aligned_alloc calloc free malloc malloc_usable_size memalign mmap mmap64 mremap posix_memalign pvalloc realloc reallocarray valloc "
	[ "$exports" = "$want" ] && t_pass "interpose: exports only the functions it stands in front of" ||
		t_fail "interpose: exports only the functions it stands in front of" "exports: $exports"
	needed=$(objdump -p "$REGIONS_SO" | awk '$1 == "NEEDED" { print $2 }' | tr '\n' ' ')
	[ "$needed" = "libc.so.6 " ] && t_pass "interpose: needs the C library only" ||
		t_fail "interpose: needs the C library only" "NEEDED: $needed"

	if [ -d /sys/kernel/mm/mempolicy/weighted_interleave ]; then
		SLURM_MEM_INTERLEAVE_REGION_POLICY="8388608 weighted 0" interposed weighted "weighted interleave:0" default
	else
		t_skip "interpose: weighted" "this kernel has no weighted interleave (Linux 6.9)"
	fi
	SLURM_MEM_INTERLEAVE_REGION_POLICY="8388608 interleave 0" interposed interleave "interleave:0" default
	# the checks can fail: without the library nothing large has the policy
	out=$(SLURM_MEM_INTERLEAVE_REGION_POLICY="8388608 interleave 0" "$ICHECK" "interleave:0" default 2>&1)
	grep -q "^FAIL malloc-large: policy 'default', not 'interleave:0'" <<<"$out" &&
		grep -q "^ok malloc-small" <<<"$out" && t_pass "interpose: without it the large checks fail" ||
		t_fail "interpose: without it the large checks fail" "$(head -n 3 <<<"$out")"

	# joined with another preloaded library, both at work
	out=$(INTERPOSE_DL_SAY=1 SLURM_MEM_INTERLEAVE_REGION_POLICY="8388608 interleave 0" \
		LD_PRELOAD="$IDL:$REGIONS_SO" "$ICHECK" "interleave:0" default 2>&1)
	grep -qx "interpose-dl: loaded" <<<"$out" && ! grep -q "^FAIL" <<<"$out" && grep -qx done <<<"$out" &&
		t_pass "interpose: joined with another preloaded library, both work" ||
		t_fail "interpose: joined with another preloaded library, both work" "$(grep -v '^ok' <<<"$out" | head -n 5)"

	# no variable, or one it cannot read: it places nothing and changes nothing
	for v in unset "64M weighted 0" "8388608 bind 0"; do
		if [ "$v" = unset ]; then
			out=$(env -u SLURM_MEM_INTERLEAVE_REGION_POLICY LD_PRELOAD="$REGIONS_SO" "$ICHECK" default default 2>&1)
		else
			out=$(SLURM_MEM_INTERLEAVE_REGION_POLICY=$v LD_PRELOAD="$REGIONS_SO" "$ICHECK" default default 2>&1)
		fi
		# (glibc serves the array from its heap once one was freed: not one address)
		! grep -v "^FAIL free-malloc-same-address-10:" <<<"$out" | grep -q "^FAIL" && grep -qx done <<<"$out" &&
			t_pass "interpose: variable $v: everything passes through" ||
			t_fail "interpose: variable $v: everything passes through" "$(grep '^FAIL' <<<"$out" | head -n 3)"
	done

	# a static program: the loader cannot preload it; it runs, its memory unplaced
	if [ -x "$ISTATIC" ]; then
		out=$(SLURM_MEM_INTERLEAVE_REGION_POLICY="8388608 interleave 0" LD_PRELOAD="$REGIONS_SO" "$ISTATIC" 2>&1)
		rc=$?
		[ $rc -eq 0 ] && [ "$out" = "policy default" ] && t_pass "interpose: a static program runs, unplaced" ||
			t_fail "interpose: a static program runs, unplaced" "exit $rc: $out"
	else
		t_skip "interpose: a static program" "$ISTATIC was not built (no static C library)"
	fi
fi
