# t_layout.sh - the process boundary holds in the build (sourced by tests/host/run):
# mem_interleave.so (what slurmstepd loads) carries none of libsmpol-admin's code (a
# running task's target, migration and hotplug events, cpusets, running commands; the
# page walks that region-aware placement needs live in libsmpol), exports only what the
# SPANK loader looks up, and the plugin's files call each other one way only.

SO=$MPOL_BUILD/src/plugins/mem_interleave/.libs/mem_interleave.so
ADMIN=$MPOL_BUILD/src/libsmpol-admin/.libs/libsmpol-admin.a
OBJS=$MPOL_BUILD/src/plugins/mem_interleave/.libs

if [ ! -f "$SO" ] || [ ! -f "$ADMIN" ]; then
	t_fail "layout: plugin and admin library built" "missing $SO or $ADMIN (build with Slurm first)"
else
	admin_syms=$(nm --defined-only "$ADMIN" 2>/dev/null | awk '$2 ~ /^[TDRB]$/ { print $3 }' | sort -u)
	plugin_syms=$(nm --defined-only "$SO" 2>/dev/null | awk '{ print $3 }' | sort -u)
	if [ -z "$admin_syms" ] || [ -z "$plugin_syms" ]; then
		t_fail "layout: symbol tables readable" "nm found nothing in $ADMIN or $SO"
	else
		both=$(comm -12 <(echo "$admin_syms") <(echo "$plugin_syms") | tr '\n' ' ')
		[ -z "$both" ] && t_pass "layout: mem_interleave.so holds none of libsmpol-admin's $(wc -l <<<"$admin_syms") functions" ||
			t_fail "layout: mem_interleave.so holds none of libsmpol-admin's functions" "found: $both"
		for f in smpol_place smpol_wi_read smpol_lease_acquire smpol_step_state_write; do
			grep -qx "$f" <<<"$plugin_syms" || t_fail "layout: the plugin carries $f" "not in $SO"
		done
	fi
	exported=$(nm -D --defined-only "$SO" | awk '{ print $3 }' | grep -v -E '^(slurm_spank_[a-z_]+|plugin_(name|type|version)|spank_plugin_version)$' | tr '\n' ' ')
	[ -z "$exported" ] && t_pass "layout: the plugin exports only slurm_spank_* and plugin_*" ||
		t_fail "layout: the plugin exports only slurm_spank_* and plugin_*" "also exported: $exported"
	# Who calls whom among the plugin's objects (a file's undefined symbols that a
	# sibling defines): no two files may call each other.
	circle="" edges=""
	for o in "$OBJS"/mem_interleave_la-*.o; do
		a=$(basename "$o" .o); a=${a#mem_interleave_la-}
		for p in "$OBJS"/mem_interleave_la-*.o; do
			b=$(basename "$p" .o); b=${b#mem_interleave_la-}
			[ "$a" != "$b" ] || continue
			if [ -n "$(comm -12 <(nm -u "$o" | awk '{ print $2 }' | sort -u) \
				<(nm --defined-only "$p" | awk '$2 == "T" { print $3 }' | sort -u))" ]; then
				edges="$edges $a->$b"
			fi
		done
	done
	for e in $edges; do
		a=${e%%->*} b=${e##*->}
		case " $edges " in *" $b->$a "*) circle="$circle $a<->$b" ;; esac
	done
	if [ -z "$edges" ]; then
		t_fail "layout: the plugin's files call each other one way only" "no calls found between $OBJS/*.o"
	elif [ -z "$circle" ]; then
		t_pass "layout: the plugin's files call each other one way only ($edges )"
	else
		t_fail "layout: the plugin's files call each other one way only" "circles:$circle (calls:$edges)"
	fi
fi
