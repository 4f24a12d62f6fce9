#!/usr/bin/env bash
# Instruction counts of the hot path with valgrind's callgrind (steady where timings are not).
#
#   Benchmarks/callgrind.sh            # after Benchmarks/run.sh (or generate-corpus.py) and a release build
#
# `safegate` itself cannot run under valgrind 3.19: its async main parks the main thread in
# dispatch_main, and valgrind dies with SIGSEGV inside itself at that sigsuspend (any Swift
# program whose async main suspends does; a synchronous main does not). So this script links
# Benchmarks/profile/main.swift, a synchronous driver that classifies every line of a file on the
# main thread, against the release build's modules and object files. Valgrind also rejects the
# DWARF the Swift compiler emits ("possibly corrupted debuginfo"), so the driver is stripped of
# debug info: symbols remain, lines do not. PCRE2's JIT code has no symbols (`???:0x...`).
#
# Environment: OUT [/tmp/safegate-bench], SCRATCH [.build-bench], SHORT [2000], LONG [300] records.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/safegate-bench}
SCRATCH=${SCRATCH:-.build-bench}
R=$SCRATCH/release
[[ -f "$OUT/short.txt" ]] || python3 Benchmarks/generate-corpus.py --out "$OUT"

# The Swift modules' objects as their build's output file maps list them: a glob would also link
# the stale object of a source file since deleted.
mapfile -t OBJECTS < <(python3 - "$R" <<'PY'
import json, os, sys
for module in ["RuleEngine", "SafetyClassifier", "TextNormalization", "SafetyCore", "SafeGateResources", "Yams"]:
    entries = json.load(open(f"{sys.argv[1]}/{module}.build/output-file-map.json")).values()
    for path in sorted({entry["object"] for entry in entries if "object" in entry}):
        if os.path.exists(path):
            print(path)
PY
)
swiftc -O -g -module-name ProfileDriver Benchmarks/profile/main.swift -I "$R/Modules" \
    -Xcc -fmodule-map-file=Sources/CPCRE2/module.modulemap \
    -Xcc -fmodule-map-file="$R/CICUShim.build/module.modulemap" -Xcc -ISources/CICUShim/include \
    -Xcc -fmodule-map-file="$SCRATCH/checkouts/Yams/Sources/CYaml/include/module.modulemap" \
    -Xcc -I"$SCRATCH/checkouts/Yams/Sources/CYaml/include" \
    "${OBJECTS[@]}" "$R"/CICUShim.build/*.o \
    "$R"/CYaml.build/src/*.o \
    -lpcre2-8 -licui18n -licuuc -licudata -o "$OUT/profile-driver"
strip --strip-debug "$OUT/profile-driver"

head -n "${SHORT:-2000}" "$OUT/short.txt" > "$OUT/cg-short.txt"
head -n "${LONG:-300}" "$OUT/long.txt" > "$OUT/cg-long.txt"
for f in short long; do
    records=$(wc -l < "$OUT/cg-$f.txt")
    echo "== callgrind: classify $records $f records (rule compilation excluded)"
    valgrind --tool=callgrind --callgrind-out-file="$OUT/cg-$f.out" --collect-atstart=no --toggle-collect='*classifyAll*' \
        "$OUT/profile-driver" "$OUT/cg-$f.txt" 2> "$OUT/cg-$f.log"
    python3 Benchmarks/callgrind-summary.py "$OUT/cg-$f.out" --records "$records" --top 15
done
echo "== callgrind: start-up (load and compile the rules, classify one record)"
valgrind --tool=callgrind --callgrind-out-file="$OUT/cg-startup.out" "$OUT/profile-driver" "$OUT/one.txt" 2> "$OUT/cg-startup.log"
callgrind_annotate --inclusive=yes --threshold=100 "$OUT/cg-startup.out" \
    | grep -E "CompiledRuleSet.*load|LiteralAnalysis.*requiredLiterals|CompiledPatternC.*cfc|pcre2_jit_compile_8|pcre2_compile_8|Yams6ParserC10singleRoot|PROGRAM TOTALS" \
    | cut -c1-160
