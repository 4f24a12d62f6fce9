#!/usr/bin/env python3
"""Which rules make the slow records slow: reads the files of
`safegate dev bench FILE --latencies LAT --search-log SEARCHES` and prints, for the slowest 1 %
of records and for all of them, the time per record spent in each rule's searches.

    Benchmarks/search-log-summary.py LAT SEARCHES [--top 20] [--tail-percent 1]

A search's time includes its unless patterns. Timed on one thread in input order, so a rule
that is rarely searched shows what it costs when its code is cold (the 1 KB tail).
"""
import argparse
import collections


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("latencies")
    parser.add_argument("searches")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--tail-percent", type=float, default=1.0)
    args = parser.parse_args()

    ns, label, normalizing, scanning = {}, {}, {}, {}
    with open(args.latencies) as f:
        next(f)
        for line in f:
            fields = line.rstrip("\n").split("\t")
            ns[int(fields[0])] = int(fields[1])
            label[int(fields[0])] = fields[2]
            # Older files have no normalising column; -1 marks a prompt over the length limit.
            if len(fields) > 5 and int(fields[5]) >= 0:
                normalizing[int(fields[0])] = int(fields[5])
            if len(fields) > 6 and int(fields[6]) >= 0:
                scanning[int(fields[0])] = int(fields[6])
    per_record = collections.defaultdict(list)
    with open(args.searches) as f:
        next(f)
        for line in f:
            fields = line.rstrip("\n").split("\t")
            # Older files have no label column.
            record, rule, stage, view, calls, time, fired = fields if len(fields) == 7 else fields[:2] + ["?"] + fields[2:]
            per_record[int(record)].append((rule, stage, int(calls), int(time), fired == "1"))

    order = sorted(ns, key=ns.get, reverse=True)
    tail = order[: max(1, round(len(order) * args.tail_percent / 100))]
    for name, records in ((f"slowest {args.tail_percent:g} %", tail), ("all records", order)):
        n = len(records)
        total = sum(ns[r] for r in records)
        searched = sum(t for r in records for (_, _, _, t, _) in per_record[r])
        count = sum(len(per_record[r]) for r in records)
        labels = collections.Counter(label[r] for r in records)
        normalized = [normalizing[r] for r in records if r in normalizing]
        scanned = [scanning[r] for r in records if r in scanning]
        print(f"== {name}: {n} records ({', '.join(f'{k} {v}' for k, v in sorted(labels.items()))}); "
              f"per record {total / n / 1000:.1f} µs, of which searches {searched / n / 1000:.1f} µs "
              f"({count / n:.1f} rule-views searched)"
              + (f", normalising {sum(normalized) / len(normalized) / 1000:.1f} µs" if normalized else "")
              + (f", literal scans {sum(scanned) / len(scanned) / 1000:.1f} µs" if scanned else ""))
        stages = collections.Counter()
        stage_searches = collections.Counter()
        for r in records:
            for _, stage, _, t, _ in per_record[r]:
                stages[stage] += t
                stage_searches[stage] += 1
        print("  searches by stage (rule label): " + ", ".join(
            f"{stage} {stages[stage] / n / 1000:.1f} µs ({stage_searches[stage] / n:.1f})" for stage in sorted(stages)))
        time, searches, calls, fired = (collections.Counter() for _ in range(4))
        for r in records:
            for rule, _, c, t, f in per_record[r]:
                time[rule] += t
                searches[rule] += 1
                calls[rule] += c
                fired[rule] += f
        print(f"  {'rule':48} {'µs/record':>9} {'searches':>8} {'µs/search':>9} {'PCRE2 calls':>11} {'fired':>5}")
        for rule, t in time.most_common(args.top):
            print(f"  {rule:48} {t / n / 1000:9.2f} {searches[rule]:8d} {t / searches[rule] / 1000:9.2f} "
                  f"{calls[rule]:11d} {fired[rule]:5d}")
        print()


if __name__ == "__main__":
    main()
