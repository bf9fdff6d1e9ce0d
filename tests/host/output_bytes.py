#!/usr/bin/env python3
"""output_bytes.py - a property test of what mpolctl prints (run by t_output_bytes.sh).

Random bytes go into every input that reaches the output: the --fsroot path, a
bandwidth table, a plugstack line, a sysfs file, option values and operands. Whatever
they are, `--json` must print one JSON object in valid UTF-8 on stdout, and text
output (stdout and stderr) must be valid UTF-8 without control characters other than
newline and tab (mpolctl(8): they are written \\xNN).

    output_bytes.py MPOLCTL FIXTURE_DIR ROUNDS SEED
Prints one line per failure (with the seed and the arguments) and a last line
"N runs, N failures"; exits 1 when anything failed.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

MPOLCTL, FIXTURE, ROUNDS, SEED = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(SEED)
runs = failures = 0


def noise(lo=1, hi=40, avoid=b"\0"):
    """Random bytes, biased toward the ones that break things: controls, ESC, C1, high."""
    pool = [bytes([b]) for b in range(256) if bytes([b]) not in avoid]
    special = [b"\x1b[31m", b"\x07", b"\xc2\x9b", b"\x9b", b"\xff", b"\xed\xa0\x80", b"\xc0\xaf", b"\n", b"\r",
               b"\\", b'"', b"\xe2\x82", b"\xf4\x90\x80\x80", "é".encode()]
    special = [s for s in special if not any(bytes([c]) in avoid for c in s)]
    out = b""
    for _ in range(rng.randint(lo, hi)):
        out += rng.choice(special) if rng.random() < 0.3 else rng.choice(pool)
    return out


def fail(what, args, why):
    global failures
    failures += 1
    shown = [a if isinstance(a, str) else repr(a) for a in args]
    print(f"FAIL seed={SEED}: {what}: {why}: mpolctl {' '.join(shown)}")


def check_text(what, args, data, stream):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return fail(what, args, f"{stream} is not UTF-8 ({e})")
    bad = [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f]
    if bad:
        fail(what, args, f"{stream} holds control characters {bad[:5]!r}")


def run(what, args, env_extra=None):
    """mpolctl ARGS with and without --json; check both outputs."""
    global runs
    env = dict(os.environ, **(env_extra or {}))
    for as_json in (True, False):
        argv = [MPOLCTL.encode()] + [a if isinstance(a, bytes) else a.encode() for a in args]
        if as_json:
            argv.append(b"--json")
        runs += 1
        try:
            p = subprocess.run(argv, capture_output=True, timeout=60, env=env, cwd=FIXTURE)
        except subprocess.TimeoutExpired:
            fail(what, args, "did not finish in 60 s")
            continue
        if p.returncode < 0 or p.returncode > 4:
            fail(what, args, f"exit status {p.returncode}")
        if as_json:
            try:
                obj = json.loads(p.stdout.decode("utf-8"))
                if not isinstance(obj, dict):
                    fail(what, args, "stdout is JSON but not one object")
            except (UnicodeDecodeError, ValueError) as e:
                fail(what, args, f"stdout is not one JSON object in UTF-8 ({e}): {p.stdout[:200]!r}")
            check_text(what, args, p.stderr, "stderr")
        else:
            check_text(what, args, p.stdout, "stdout")
            check_text(what, args, p.stderr, "stderr")


tmp = tempfile.mkdtemp()
boot = os.path.join(FIXTURE, "linux-7.3-boot")
try:
    for r in range(ROUNDS):
        # the --fsroot path: a link with a random name to a captured machine
        link = os.path.join(tmp.encode(), b"root-" + noise(avoid=b"\0/"))
        os.symlink(boot, link)
        for verb in (["show"], ["plan"], ["check"], ["apply", "--system", "--dry-run"]):
            run("--fsroot path", verb + [b"--fsroot", link, "--bandwidth", "none"])
        os.unlink(link)

        # a bandwidth table: random lines, and a header with a random machine name
        table = os.path.join(tmp, "table")
        with open(table, "wb") as f:
            f.write(rng.choice([b"", b"# slurm-mempolicy bandwidth table v1\nmachine " + noise() + b"\n"]) +
                    noise(1, 200) + b"\n" + noise())
        run("bandwidth table", ["plan", "--fsroot", boot, "--bandwidth", table])
        run("bandwidth table", ["show", "--fsroot", boot, "--bandwidth", table])

        # a plugstack line with random arguments, and a random include
        conf = os.path.join(tmp, "plugstack.conf")
        with open(conf, "wb") as f:
            f.write(b"required /usr/lib/slurm/mem_interleave.so " + noise(avoid=b"\0\n#") + b"\n")
        for verb in ("show", "plan", "check"):
            run("plugstack line", [verb, "--fsroot", boot, "--plugstack", conf])
        with open(conf, "wb") as f:
            f.write(b"include " + noise(avoid=b"\0\n# \t") + b"\n")
        run("plugstack include", ["check", "--fsroot", boot, "--plugstack", conf])

        # a sysfs file's content (a copy of the machine, one file changed)
        tree = os.path.join(tmp, "tree")
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(boot, tree, symlinks=True)
        victim = rng.choice(["sys/devices/system/node/online", "sys/devices/system/node/node0/meminfo",
                             "sys/devices/system/node/node2/access1/initiators/read_bandwidth",
                             "sys/kernel/mm/mempolicy/weighted_interleave/node0",
                             "sys/kernel/mm/mempolicy/weighted_interleave/auto",
                             "sys/devices/system/node/node0/cpulist"])
        with open(os.path.join(tree, victim), "wb") as f:
            f.write(noise(1, 80))
        for verb in (["show"], ["plan"], ["check"], ["apply", "--system", "--dry-run"]):
            run(f"sysfs file {victim}", verb + ["--fsroot", tree])

        # option values and operands
        word = noise(avoid=b"\0")
        for args in (["plan", "--fsroot", boot, "--scope", word], ["plan", "--fsroot", boot, "--cpus", word],
                     ["plan", "--fsroot", boot, "--mem", word], ["plan", "--fsroot", boot, "--nodes", word],
                     ["show", word], [word], ["report", "-j", word], ["rebalance", "--dry-run", "--pid", word],
                     ["calibrate", "--repeats", word], ["check", "--fsroot", word], ["show", b"--" + word]):
            run("option value", args)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print(f"{runs} runs, {failures} failures")
sys.exit(1 if failures else 0)
