# t_layout.sh - the process boundary holds in the build (sourced by tests/host/run):
# mem_interleave.so (what slurmstepd loads) carries none of libsmpol-admin's code (a
# running task's target, migration and hotplug events, cpusets; the
# page walks that region-aware placement needs live in libsmpol), exports only what the
# SPANK loader looks up, and the plugin's files (and mpolctl's) call each other one way only.

SO=$MPOL_BUILD/src/plugins/mem_interleave/.libs/mem_interleave.so
ADMIN=$MPOL_BUILD/src/libsmpol-admin/.libs/libsmpol-admin.a
OBJS=$MPOL_BUILD/src/plugins/mem_interleave/.libs

# calls_one_way WHAT DIR PREFIX: among the objects DIR/PREFIX*.o, who calls whom (a
# file's undefined symbols that a sibling defines); no two files may call each other.
calls_one_way() {
	local what=$1 dir=$2 prefix=$3 circle="" edges="" o a b e
	local -A undef=() defs=()
	for o in "$dir/$prefix"*.o; do
		a=$(basename "$o" .o); a=${a#"$prefix"}
		undef[$a]=$(nm -u "$o" | awk '{ print $2 }' | sort -u)
		defs[$a]=$(nm --defined-only "$o" | awk '$2 == "T" { print $3 }' | sort -u)
	done
	for a in "${!undef[@]}"; do
		for b in "${!defs[@]}"; do
			[ "$a" != "$b" ] && [ -n "${defs[$b]}" ] || continue
			[ -z "$(comm -12 <(echo "${undef[$a]}") <(echo "${defs[$b]}"))" ] || edges="$edges $a->$b"
		done
	done
	edges=$(tr ' ' '\n' <<<"$edges" | sed '/^$/d' | sort | tr '\n' ' ')
	edges=" ${edges% }"
	for e in $edges; do
		a=${e%%->*} b=${e##*->}
		case " $edges " in *" $b->$a "*) circle="$circle $a<->$b" ;; esac
	done
	if [ -z "${edges// /}" ]; then
		t_fail "layout: $what call each other one way only" "no calls found between $dir/$prefix*.o"
	elif [ -z "$circle" ]; then
		t_pass "layout: $what call each other one way only ($edges )"
	else
		t_fail "layout: $what call each other one way only" "circles:$circle (calls:$edges)"
	fi
}

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
	calls_one_way "the plugin's files" "$OBJS" mem_interleave_la-
	# json-c inside the plugin where its static library is there (configure.ac: opening
	# libjson-c.so beside it cost each step about 0.4 ms in srun and again in slurmstepd)
	archive="$(pkg-config --variable=libdir json-c 2>/dev/null)/libjson-c.a"
	needed=$(readelf -d "$SO" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
	if [ ! -f "$archive" ]; then
		t_skip "layout: the plugin carries json-c inside" "no $archive here: it links libjson-c.so"
	elif [[ " $needed" == *" libjson-c."* ]] || ! grep -q ' json_object_new_object$' <<<"$(nm "$SO")"; then
		t_fail "layout: the plugin carries json-c inside" "it needs: $needed"
	else
		t_pass "layout: the plugin carries json-c inside (it needs: $needed)"
	fi
fi
# mpolctl's verbs and their helpers: the same rule.
if ls "$MPOL_BUILD"/src/mpolctl/mpolctl-*.o >/dev/null 2>&1; then
	calls_one_way "mpolctl's files" "$MPOL_BUILD/src/mpolctl" mpolctl-
else
	t_fail "layout: mpolctl's files call each other one way only" "no $MPOL_BUILD/src/mpolctl/mpolctl-*.o"
fi
# plugin.h is the dispatcher's (plugin.c) and its callees' (task.c's preload.c too):
# the record's files and release.c log through mi_log.h and never see the step context.
PLUGIN_SRC=$here/../../src/plugins/mem_interleave
users=$(grep -l '^#include "plugin.h"' "$PLUGIN_SRC"/*.c | xargs -n1 basename | sort | tr '\n' ' ')
[ "$users" = "local.c options.c plugin.c preload.c step.c task.c " ] &&
	t_pass "layout: only the dispatcher and its callees include plugin.h ($users)" ||
	t_fail "layout: only the dispatcher and its callees include plugin.h" "included by: $users"
# Every source file opens with a comment saying what it is.
bare=$(for f in "$here"/../../src/*/*.[ch] "$here"/../../src/*/*/*.[ch]; do
	[ -f "$f" ] && ! head -1 "$f" | grep -q '^/\*' && echo "${f#"$here"/../../}"
done | tr '\n' ' ')
[ -z "$bare" ] && t_pass "layout: every file under src/ opens with a comment" ||
	t_fail "layout: every file under src/ opens with a comment" "without one: $bare"
# slurm.h (Slurm's API, whose structures change between releases) is included by the
# record's Slurm I/O and the release check alone; the rest of the plugin needs spank.h.
# The record's Slurm I/O is two files: record_slurm.c (slurmctld, slurmd) and
# record_dbd.c (slurmdbd, for jobs that have ended: mem_interleave_dbd's, which links
# libslurm's accounting client); one file for both would mix two APIs.
slurm_users=$(grep -l '^#include <slurm/slurm.h>' "$PLUGIN_SRC"/*.[ch] | xargs -n1 basename | sort | tr '\n' ' ')
[ "$slurm_users" = "record_dbd.c record_slurm.c release.c " ] &&
	t_pass "layout: only record_slurm.c, record_dbd.c and release.c include slurm.h" ||
	t_fail "layout: only record_slurm.c, record_dbd.c and release.c include slurm.h" "included by: $slurm_users"
