# t_output_bytes.sh - what mpolctl prints, whatever bytes its inputs hold (sourced by
# tests/host/run): --json is one JSON object in valid UTF-8 on every path (--help too,
# and with --json before the verb, as scontrol takes it), text output carries no
# control byte (written \xNN, mpolctl(8)). The cases the issue found, then a property
# test over random bytes (output_bytes.py; its seed is printed to replay a failure).

TO_TMP=$(mktemp -d)
TO_FIX=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)
TO_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# to_json_ok NAME ARGS...: mpolctl ARGS prints one JSON object in strict UTF-8.
to_json_ok() {
	local name=$1 why
	shift
	"$MPOLCTL" "$@" >"$TO_TMP/out" 2>/dev/null
	if why=$(python3 -c 'import json, sys; o = json.loads(open(sys.argv[1], "rb").read().decode("utf-8")); assert isinstance(o, dict), "not an object"' "$TO_TMP/out" 2>&1); then
		t_pass "$name"
	else
		t_fail "$name" "$(tail -n 1 <<<"$why"): $(head -c 300 "$TO_TMP/out" | od -c | head -n 3)"
	fi
}

# to_text_clean NAME ARGS...: stdout and stderr of mpolctl ARGS hold no ESC, BEL or
# byte that is not UTF-8.
to_text_clean() {
	local name=$1 why
	shift
	"$MPOLCTL" "$@" >"$TO_TMP/out" 2>&1
	if why=$(python3 -c 'import sys; t = open(sys.argv[1], "rb").read().decode("utf-8"); bad = [c for c in t if (ord(c) < 32 and c not in "\n\t") or 127 <= ord(c) <= 159]; assert not bad, "control characters %r" % bad[:5]' "$TO_TMP/out" 2>&1); then
		t_pass "$name"
	else
		t_fail "$name" "$(tail -n 1 <<<"$why")"
	fi
}

if [ ! -x "$MPOLCTL" ]; then
	t_fail "output: mpolctl" "$MPOLCTL is missing (build first)"
elif ! command -v python3 >/dev/null; then
	t_skip "output: JSON and text over random bytes" "python3 is not installed"
else
	# a non-UTF-8 byte and an escape sequence in the --fsroot path
	to_root=$TO_TMP/$(printf 'r\xff\033[31m\a')
	ln -s "$TO_FIX/linux-7.3-boot" "$to_root"
	for to_verb in show plan check; do
		to_json_ok "output: $to_verb --json with a non-UTF-8 --fsroot path is valid JSON" $to_verb --json --fsroot "$to_root"
		to_text_clean "output: $to_verb with ESC, BEL and 0xff in the --fsroot path prints them escaped" \
			$to_verb --fsroot "$to_root"
	done
	to_out=$("$MPOLCTL" show --json --fsroot "$to_root" | jq -r .fsroot)
	if [ "$to_out" = "$TO_TMP/r\\xff"$'\033'"[31m"$'\a' ]; then
		t_pass "output: show --json writes a byte that is not UTF-8 as the text \\xNN, controls as JSON escapes"
	else
		t_fail "output: show --json writes a byte that is not UTF-8 as the text \\xNN, controls as JSON escapes" \
			"$(printf '%s' "$to_out" | od -c | head -n 3)"
	fi
	# a malformed bandwidth table: its first line goes into table_note and a warning
	printf '\033]0;owned\a\xfe\xff garbage\n' >"$TO_TMP/table"
	to_json_ok "output: plan --bandwidth (malformed, raw bytes) --json is valid JSON" \
		plan --json --fsroot "$TO_FIX/linux-7.3-boot" --bandwidth "$TO_TMP/table"
	to_text_clean "output: plan --bandwidth (malformed, raw bytes): ESC and BEL escaped in text" \
		plan --fsroot "$TO_FIX/linux-7.3-boot" --bandwidth "$TO_TMP/table"
	to_out=$("$MPOLCTL" plan --fsroot "$TO_FIX/linux-7.3-boot" --bandwidth "$TO_TMP/table" 2>&1)
	t_expect_match "output: plan's table note writes ESC as \\x1b" "not '\\\\x1b\\]0;owned\\\\x07\\\\xfe\\\\xff'" "$to_out"
	# --help --json, for mpolctl and every verb; --json before the verb
	to_json_ok "output: mpolctl --help --json is JSON" --help --json
	for to_verb in show plan apply recover report rebalance watch check calibrate; do
		to_json_ok "output: $to_verb --help --json is JSON" $to_verb --help --json
	done
	to_out=$("$MPOLCTL" calibrate --json --help | jq -r '.verb + ": " + .usage' 2>&1)
	t_expect_match "output: calibrate --json --help gives the usage text in JSON" "^calibrate: usage: mpolctl calibrate" "$to_out"
	to_out=$("$MPOLCTL" --json show --fsroot "$TO_FIX/linux-7.3-boot" | jq -r .online 2>&1)
	t_expect_match "output: mpolctl --json show (scontrol's order) works" "^0-2$" "$to_out"

	# the property: random bytes everywhere
	to_seed=${MPOL_OUTPUT_SEED:-$RANDOM}
	echo "output: random bytes, seed $to_seed (MPOL_OUTPUT_SEED=$to_seed replays it)"
	to_out=$(timeout 600 python3 "$TO_HERE/output_bytes.py" "$MPOLCTL" "$TO_FIX" 8 "$to_seed" 2>&1)
	to_rc=$?
	if [ "$to_rc" -eq 0 ]; then
		t_pass "output: random bytes in every input: JSON valid, text clean ($(tail -n 1 <<<"$to_out"))"
	else
		t_fail "output: random bytes in every input: JSON valid, text clean" "exit $to_rc: $(head -n 5 <<<"$to_out")"
	fi
fi
rm -rf "$TO_TMP"
