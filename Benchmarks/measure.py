#!/usr/bin/env python3
"""Measuring helpers for Benchmarks/run.sh.

    measure.py patterns RULES_DIR OUT.txt [--utf]   the rules' `pattern` fields, one per line, for pcre2grep
    measure.py wall --runs N [--stdin FILE] -- CMD...   wall time and peak RSS of CMD (stdout discarded), as JSON
    measure.py pairs --runs N -- A... -- B...       A and B alternately N times: their wall times and the
                                                    median of A/B, as JSON
    measure.py ttfr --runs N -- CMD...              time until CMD writes its first output line, as JSON
    measure.py rss --seconds S -- CMD...            peak RSS of CMD sampled every 0.2 s for at most S seconds
                                                    (then CMD is stopped), and the output lines it wrote

Times are medians over the runs; peak RSS (ru_maxrss of the child, KiB) is the largest seen.
"""

import glob
import json
import os
import statistics
import subprocess
import sys
import time


def patterns(rules_dir, out_path, utf):
    """Writes every rule's `pattern` that pcre2grep compiles (in the mode run.sh uses) to out_path."""
    import yaml

    found, failed = [], []
    for path in sorted(glob.glob(os.path.join(rules_dir, "**", "*.y*ml"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            document = yaml.safe_load(f) or {}
        for rule in document.get("rules", []):
            if rule.get("disabled") or "pattern" not in rule:
                continue
            pattern = rule["pattern"]
            if "\n" in pattern:
                failed.append((rule["id"], "contains a line break"))
                continue
            # Our compile options are UTF | UCP | CASELESS; pcre2grep -u -i gives UTF and caseless, (*UCP) the rest.
            line = ("(*UCP)" + pattern) if utf else pattern
            check = subprocess.run(
                ["pcre2grep", "-i"] + (["-u"] if utf else []) + ["-e", line, "/dev/null"],
                capture_output=True, text=True)
            if check.returncode == 2:
                failed.append((rule["id"], check.stderr.strip().splitlines()[0] if check.stderr else "error"))
            else:
                found.append(line)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(found) + "\n")
    print(json.dumps({"patterns": len(found) + len(failed), "compiled": len(found), "failed": len(failed),
                      "failures": [f"{rule}: {reason}" for rule, reason in failed]}))


def split_command(args):
    runs, stdin = 3, None
    while args and args[0] != "--":
        if args[0] == "--runs":
            runs = int(args[1])
            args = args[2:]
        elif args[0] == "--stdin":
            stdin = args[1]
            args = args[2:]
        else:
            sys.exit(f"measure.py: unknown option {args[0]}")
    return runs, stdin, args[1:]


def run_once(command, stdin):
    """One run of `command`: wall time, CPU time (user + sys), peak RSS in KiB, exit code, stderr."""
    with open(stdin or os.devnull, "rb") as source, open(os.devnull, "wb") as sink:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdin=source, stdout=sink, stderr=subprocess.PIPE)
        # wait4 instead of wait: the child's own peak RSS.
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        err = process.stderr.read().decode(errors="replace")
        process.stderr.close()
        return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status), err


def wall(args):
    runs, stdin, command = split_command(args)
    times, cpus, rss, codes, err = [], [], 0, set(), ""
    for _ in range(runs):
        elapsed, cpu, maxrss, code, err = run_once(command, stdin)
        times.append(elapsed)
        cpus.append(cpu)
        codes.add(code)
        rss = max(rss, maxrss)
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times),
                      "runs": [round(t, 4) for t in times],
                      "cpu_median_s": statistics.median(cpus), "maxrss_kib": rss, "exit_codes": sorted(codes),
                      "stderr_tail": err[-300:]}))


def pairs(args):
    """Two commands (`-- A ... -- B ...`) run alternately, A then B, `--runs` times: a speed swing
    of the machine between minutes then hits both sides of each pair alike."""
    runs, stdin, rest = split_command(args)
    if "--" not in rest:
        sys.exit("measure.py pairs: give two commands: -- A ... -- B ...")
    split = rest.index("--")
    first, second = rest[:split], rest[split + 1:]
    a, b, codes = [], [], set()
    for _ in range(runs):
        for command, walls in ((first, a), (second, b)):
            elapsed, _, _, code, _ = run_once(command, stdin)
            walls.append(elapsed)
            codes.add(code)
    ratios = [x / y for x, y in zip(a, b)]
    print(json.dumps({"a_s": [round(t, 4) for t in a], "b_s": [round(t, 4) for t in b],
                      "median_ratio": statistics.median(ratios), "exit_codes": sorted(codes)}))


def ttfr(args):
    runs, stdin, command = split_command(args)
    times = []
    for _ in range(runs):
        with open(stdin or os.devnull, "rb") as source:
            start = time.perf_counter()
            process = subprocess.Popen(command, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            first = process.stdout.readline()
            times.append(time.perf_counter() - start)
            process.stdout.read()
            process.wait()
            if not first:
                sys.exit(f"measure.py: {command[0]} wrote nothing")
    print(json.dumps({"median_ms": statistics.median(times) * 1e3, "min_ms": min(times) * 1e3,
                      "max_ms": max(times) * 1e3, "runs": runs}))


def rss(args):
    seconds = 60.0
    if args[:1] == ["--seconds"]:
        seconds, args = float(args[1]), args[2:]
    command = args[1:] if args[:1] == ["--"] else args
    import threading
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = [0]

    def count():
        for chunk in iter(lambda: process.stdout.read(1 << 20), b""):
            lines[0] += chunk.count(b"\n")

    reader = threading.Thread(target=count, daemon=True)
    reader.start()
    start, samples, peak_hwm = time.perf_counter(), [], 0
    while process.poll() is None and time.perf_counter() - start < seconds:
        try:
            with open(f"/proc/{process.pid}/status") as f:
                status = dict(line.split(":", 1) for line in f if ":" in line)
            rss_kib = int(status["VmRSS"].split()[0])
            peak_hwm = max(peak_hwm, int(status["VmHWM"].split()[0]))
            samples.append((round(time.perf_counter() - start, 1), rss_kib, lines[0]))
        except (FileNotFoundError, KeyError, ValueError):
            pass
        time.sleep(0.2)
    finished = process.poll() is not None
    if not finished:
        process.terminate()  # the process this helper started, by its own handle
    process.wait()
    reader.join(timeout=5)
    elapsed = time.perf_counter() - start
    step = max(1, len(samples) // 10)
    print(json.dumps({"seconds": round(elapsed, 1), "finished": finished, "records_out": lines[0],
                      "peak_rss_kib": peak_hwm, "samples_s_rsskib_records": samples[::step]}))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    command, args = sys.argv[1], sys.argv[2:]
    if command == "patterns":
        patterns(args[0], args[1], "--utf" in args[2:])
    elif command == "wall":
        wall(args)
    elif command == "pairs":
        pairs(args)
    elif command == "ttfr":
        ttfr(args)
    elif command == "rss":
        rss(args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
