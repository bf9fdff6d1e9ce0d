# t_folders.sh - libsmpol's folders depend on each other one way only (sourced by
# tests/host/run). Each folder may use the folders before it in this order and never
# one after it (src/libsmpol/README.md says why this order):
#   base <- machine <- decide <- kernel <- pages <- record
# Checked twice: in the sources (every #include "..." of a libsmpol file names a header
# of its own folder or of one before it, and only libsmpol's own headers) and in the
# build (no object calls a function that a later folder's object defines).

SMPOL_SRC=$here/../../src/libsmpol
SMPOL_FOLDERS=(base machine decide kernel pages record)

declare -A folder_rank=()   # each folder's place in the order
for i in "${!SMPOL_FOLDERS[@]}"; do folder_rank[${SMPOL_FOLDERS[$i]}]=$i; done

on_disk=$(cd "$SMPOL_SRC" && ls -d */ | tr -d / | sort | tr '\n' ' ')
listed=$(printf '%s\n' "${SMPOL_FOLDERS[@]}" | sort | tr '\n' ' ')
[ "$on_disk" = "$listed" ] && t_pass "folders: libsmpol's folders are the ordered ones ($listed)" ||
	t_fail "folders: libsmpol's folders are the ordered ones" "on disk: $on_disk; ordered here: $listed"

# Which folder holds each header.
declare -A header_folder=()
for h in "$SMPOL_SRC"/*/*.h; do
	d=${h%/*}
	header_folder[${h##*/}]=${d##*/}
done

backwards="" foreign=""
for f in "$SMPOL_SRC"/*/*.[ch]; do
	d=${f%/*} d=${d##*/}
	rank=${folder_rank[$d]:-}
	[ -n "$rank" ] || continue
	while read -r inc; do
		to=${header_folder[$inc]:-}
		if [ -z "$to" ]; then
			foreign="$foreign $d/${f##*/}:$inc"
		elif [ "${folder_rank[$to]}" -gt "$rank" ]; then
			backwards="$backwards $d/${f##*/}->$to/$inc"
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done
[ -z "$backwards" ] && t_pass "folders: every #include points to its own folder or an earlier one" ||
	t_fail "folders: every #include points to its own folder or an earlier one" "against the order:$backwards"
[ -z "$foreign" ] && t_pass "folders: libsmpol includes only its own headers (no Slurm, plugin or admin header)" ||
	t_fail "folders: libsmpol includes only its own headers" "found:$foreign"

# The same arrows in the build: the functions each folder's objects define and call.
# only the folders' objects: a build directory used before the move keeps stale flat ones
objs=$(for d in "${SMPOL_FOLDERS[@]}"; do ls "$MPOL_BUILD/src/libsmpol/$d/.libs/"libsmpol_la-*.o 2>/dev/null; done)
if [ -z "$objs" ]; then
	t_fail "folders: libsmpol's objects built" "no $MPOL_BUILD/src/libsmpol/*/.libs/libsmpol_la-*.o"
else
	declare -A defined_in=()
	for o in $objs; do
		d=${o%/.libs/*} d=${d##*/}
		for s in $(nm --defined-only "$o" | awk '$2 == "T" { print $3 }'); do
			defined_in[$s]=$d
		done
	done
	calls_back=""
	for o in $objs; do
		d=${o%/.libs/*} d=${d##*/}
		rank=${folder_rank[$d]:-}
		[ -n "$rank" ] || { calls_back="$calls_back $d(unordered)"; continue; }
		for s in $(nm -u "$o" | awk '{ print $2 }'); do
			to=${defined_in[$s]:-}
			if [ -n "$to" ] && [ "${folder_rank[$to]}" -gt "$rank" ]; then
				n=${o##*/libsmpol_la-}
				calls_back="$calls_back $d/${n%.o}->$to:$s"
			fi
		done
	done
	[ -z "$calls_back" ] && t_pass "folders: no object calls a later folder ($(wc -w <<<"$objs") objects)" ||
		t_fail "folders: no object calls a later folder" "against the order:$calls_back"
fi
