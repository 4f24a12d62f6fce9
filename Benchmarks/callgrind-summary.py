#!/usr/bin/env python3
"""Groups a callgrind profile's instruction counts (Ir) by where they go in safegate's hot path.

    callgrind-summary.py CALLGRIND.OUT [--records N] [--top K]

Self cost ("exclusive") per category, by function-name patterns; then the top K functions by
self cost, and the inclusive cost of the hot path's main entry points. PCRE2's JIT-compiled
code has no symbols: callgrind shows it as `???:0x...` in object `???`.
"""

import re
import subprocess
import sys

# First match wins; order matters.
CATEGORIES = [
    ("PCRE2 JIT-compiled pattern code", r"^\?\?\?:0x[0-9a-f]+.*\[\?\?\?\]$"),
    ("PCRE2 library (pcre2_match/jit_match entry, compile)", r"libpcre2"),
    ("ICU", r"libicu"),
    ("copies/destroys of views and arrays (value witnesses, outlined copies, metadata)",
     r"(Vw[a-z]{2}|WO[a-z]|Owcp|Sqwcp)(Tm)? \[|metadataimpl|__swift_instantiateConcreteType|swift_getGenericMetadata|swift_checkMetadataState"),
    ("literal prefilter scan", r"^\?\?\?:\$s10RuleEngine16LiteralPrefilter|RuleEngine0A7MatcherC4scan"),
    ("language guess", r"^\?\?\?:\$s17TextNormalization13LanguageGuess"),
    ("normalisation (views, tables, offsets)", r"^\?\?\?:\$s17TextNormalization"),
    ("rule loop: RuleMatcher.match/search/find (self)", r"^\?\?\?:\$s10RuleEngine"),
    ("decision (SafetyClassifier, Decision.make)", r"^\?\?\?:\$s16SafetyClassifier"),
    ("ARC: swift_retain/release", r"swift_retain|swift_release|swift_bridgeObjectRe|swift_unknownObjectRe|swift_nonatomic"),
    ("exclusivity checks (swift_beginAccess, TLS)", r"swift_beginAccess|swift_endAccess|AccessSet|SwiftTLSContext|__tls_get_addr"),
    ("allocation (malloc/free, swift_allocObject)", r"malloc|free|swift_allocObject|swift_deallocObject|swift_slowAlloc|swift_slowDealloc|_int_|cfree|swift_allocBox"),
    ("hashing (Hasher, Set/Dictionary)", r"Hasher|SipHash|_NativeSet|_NativeDictionary"),
    ("memcpy/memset/memmove", r"mem(cpy|set|move|cmp)|__memset|__memcpy|__memmove"),
    ("Swift stdlib (arrays, strings, other)", r"libswiftCore|\$ss|\$sS"),
]


def annotate(path, inclusive):
    args = ["callgrind_annotate", "--threshold=100"] + (["--inclusive=yes"] if inclusive else []) + [path]
    text = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    rows, total = [], 0
    for line in text.splitlines():
        m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$", line)
        if not m:
            continue
        count, name = int(m.group(1).replace(",", "")), m.group(2).strip()
        if name.startswith("PROGRAM TOTALS"):
            total = count
        else:
            rows.append((count, name))
    return total, rows


def main():
    path = sys.argv[1]
    records = int(sys.argv[sys.argv.index("--records") + 1]) if "--records" in sys.argv else 0
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 15
    total, rows = annotate(path, inclusive=False)
    buckets = {name: 0 for name, _ in CATEGORIES}
    buckets["other"] = 0
    for count, name in rows:
        for category, pattern in CATEGORIES:
            if re.search(pattern, name):
                buckets[category] += count
                break
        else:
            buckets["other"] += count
    per = f", {total / records / 1e3:,.0f}k Ir/record" if records else ""
    print(f"{path}: {total:,} instructions{per}")
    print("\nself cost by category:")
    for name, count in sorted(buckets.items(), key=lambda kv: -kv[1]):
        if count:
            print(f"  {count / total * 100:5.1f}%  {name}")
    print(f"\ntop {top} functions by self cost:")
    for count, name in sorted(rows, reverse=True)[:top]:
        print(f"  {count / total * 100:5.1f}%  {demangle(name)[:150]}")
    _, inclusive = annotate(path, inclusive=True)
    print("\ninclusive cost of entry points:")
    wanted = [
        ("Session.classify", r"SessionC8classify5bytes"),
        ("NormalizedText.init(bytes:options:)", r"TextNormalization010NormalizedA0V5bytes7options.*tcfC \["),
        ("  LanguageGuess.score", r"LanguageGuessO5scoreyAC5ScoreVAA5UnitsVFZTf4xd_n|LanguageGuessO5scoreyAC5ScoreVAA5UnitsVFZ \["),
        ("RuleMatcher.match(_:only:mode:)", r"RuleEngine0A7MatcherC5match_4only4mode"),
        ("  NormalizedText.viewIfBuilt (per rule x view)", r"viewIfBuilt"),
        ("  RuleMatcher.scan (prefilter)", r"RuleEngine0A7MatcherC4scan"),
        ("  RuleMatcher.search (one rule on one view)", r"RuleEngine0A7MatcherC6search.*XEfU_ \["),
        ("    pcre2_match_8 (incl. JIT code)", r"pcre2_match_8"),
        ("    RuleMatcher.isASCII", r"RuleEngine0A7MatcherC7isASCII"),
        ("Decision.make", r"DecisionV4make"),
    ]
    for label, pattern in wanted:
        hits = [count for count, name in inclusive if re.search(pattern, name)]
        if hits:
            print(f"  {max(hits) / total * 100:5.1f}%  {label}")


def demangle(name):
    try:
        out = subprocess.run(["swift", "demangle", "--simplified", name.split(" [")[0].replace("???:", "")],
                             capture_output=True, text=True, timeout=20).stdout.strip()
        return out or name
    except Exception:
        return name


if __name__ == "__main__":
    main()
