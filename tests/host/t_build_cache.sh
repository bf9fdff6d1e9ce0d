# t_build_cache.sh - the pmbind kernel's build cache (tests/vm/kernel/build-pmbind.sh)
# on fake caches, sourced by tests/host/run: whether a build is cached, and the prune
# that keeps the newest 3 other builds, on an empty cache, one holding only this build
# (issue 19: there the prune ended the script silently after a good first build) and
# one holding six others. Nothing is built or downloaded.

bc_script=$here/../vm/kernel/build-pmbind.sh
bc_root=$(mktemp -d)
# bc_run CACHE ARG: build-pmbind.sh with that cache; output in $bc_out, status in $bc_rc.
bc_run() { bc_out=$(MPOL_VM_CACHE=$1 "$bc_script" "$2" 2>&1); bc_rc=$?; }
# bc_case NAME CONDITION...: pass when the test command holds; the run's status and output said.
bc_case() {
	local name=$1; shift
	if "$@"; then t_pass "build cache: $name"; else t_fail "build cache: $name" "exit $bc_rc: $bc_out"; fi
}
# bc_fake_build DIR KEY AGE: a build directory as a finished build leaves it, AGE minutes old.
bc_fake_build() {
	mkdir -p "$1"
	echo kernel >"$1/vmlinuz"
	echo 6.12.0-pmbind >"$1/release"
	echo "$2" >"$1/key"
	touch -d "-$3 minutes" "$1"
}

bc_run "$bc_root/empty" --path
bc_this=${bc_out#"$bc_root/empty/kernels/pmbind-builds/"}
bc_id_ok=0
[[ $bc_rc = 0 && $bc_this =~ ^[0-9a-f]{16}$ ]] && bc_id_ok=1
bc_case "--path names this patch and config's build" [ $bc_id_ok = 1 ]
bc_run "$bc_root/empty" --cached
bc_case "an empty cache holds no build" [ "$bc_rc" = 1 -a -z "$bc_out" ]
bc_run "$bc_root/empty" --prune
bc_case "pruning an empty cache is no error" [ "$bc_rc" = 0 -a -z "$bc_out" ]

# The key as a finished build writes it: the source version, then the patch's and the config's hashes.
bc_key="linux-source-6.12=6.12.0-1 patch=$(sha256sum <"$here/../vm/kernel/process_mbind.patch" | cut -d' ' -f1)"
bc_key="$bc_key config=$(sha256sum <"$here/../vm/kernel/pmbind.config" | cut -d' ' -f1)"
bc_builds=$bc_root/only/kernels/pmbind-builds
bc_fake_build "$bc_builds/$bc_this" "$bc_key" 1
bc_run "$bc_root/only" --cached
bc_case "a build of this patch and config is cached" [ "$bc_rc" = 0 ]
bc_run "$bc_root/only" --prune
bc_case "the prune with no other build keeps this one and says nothing" \
	[ "$bc_rc" = 0 -a -z "$bc_out" -a -s "$bc_builds/$bc_this/vmlinuz" ]
echo "linux-source-6.12=6.12.0-1 patch=0 config=0" >"$bc_builds/$bc_this/key"
bc_run "$bc_root/only" --cached
bc_case "a build with another key is not this one" [ "$bc_rc" = 1 ]

bc_builds=$bc_root/many/kernels/pmbind-builds
bc_fake_build "$bc_builds/$bc_this" "$bc_key" 100
for age in 10 20 30 40 50 60; do
	bc_fake_build "$bc_builds/other$age" other "$age"
done
bc_run "$bc_root/many" --prune
bc_left=$(cd "$bc_builds" && ls | sort | tr '\n' ' ')
bc_want=$(printf '%s\n' other10 other20 other30 "$bc_this" | sort | tr '\n' ' ')
bc_case "the prune keeps this build (the oldest) and the 3 newest others (left: $bc_left)" \
	[ "$bc_rc" = 0 -a "$bc_left" = "$bc_want" ]
rm -rf "$bc_root"
