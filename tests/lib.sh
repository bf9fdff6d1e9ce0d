# tests/lib.sh - counting and reporting for the shell test tiers.
#
# Source it, call t_pass/t_fail/t_skip per case, and end with t_summary, which prints
# "N passed, N failed, N skipped" and returns non-zero when anything failed.
# A skip always carries its reason; it never counts as a pass.

T_PASSED=0 T_FAILED=0 T_SKIPPED=0
T_TIER=${T_TIER:-tests}

t_pass() { T_PASSED=$((T_PASSED + 1)); printf 'PASS: %s: %s\n' "$T_TIER" "$1"; }
t_fail() { T_FAILED=$((T_FAILED + 1)); printf 'FAIL: %s: %s%s\n' "$T_TIER" "$1" "${2:+ -- $2}"; }
t_skip() { T_SKIPPED=$((T_SKIPPED + 1)); printf 'SKIP: %s: %s -- %s\n' "$T_TIER" "$1" "$2"; }

# t_file NAME / t_file_done: a tier's file begins and ends; the end says how long it
# took (CI's time budget is spent by files, and this shows where).
t_file() { T_FILE=$1 T_FILE_STARTED=$SECONDS; echo "-- $1"; }
t_file_done() { echo "   ($T_FILE: $((SECONDS - T_FILE_STARTED)) s)"; }

# t_check NAME CMD...: pass when CMD exits 0.
t_check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then t_pass "$name"; else t_fail "$name" "$(printf '%s' "$out" | tail -n 5)"; fi
}

# t_expect_match NAME REGEX TEXT: pass when TEXT matches the extended REGEX.
t_expect_match() {
	if grep -Eq -- "$2" <<<"$3"; then t_pass "$1"; else t_fail "$1" "no match for /$2/ in: $(printf '%s' "$3" | head -c 600)"; fi
}

t_summary() {
	printf '%d passed, %d failed, %d skipped\n' "$T_PASSED" "$T_FAILED" "$T_SKIPPED"
	[ "$T_FAILED" -eq 0 ]
}
