#!/usr/bin/python3
"""bench/torch_table.py - README's side-by-side table from several runs of bench/torch_core.py.

Each run of bench/torch_core.py prints bench/core's lines (both thread
counts' times, the GFLOP per step, the bound, the hash) and its own (the
PyTorch time per case and thread count). On a shared machine one run is
not enough, so README's table takes, for each case and thread count, the
lowest time of all the runs given, C's and PyTorch's separately, and the
verdict from those two; the floor is the case's operations at the highest
peak any run measured. This prints that table as Markdown on stdout, and
on stderr the runs' peaks and bandwidths, how many cases each run met on
its own, and the verdict counts.

    for r in 5 5 8; do /usr/bin/python3 bench/torch_core.py $r > run-$r-$RANDOM.txt; done
    python3 bench/torch_table.py run-*.txt > table.md

It refuses a run whose outputs differed between thread counts or whose
cost model claimed other GEMM operations than those that ran (its floors
would be wrong), runs that disagree on a case's hash (two commits mixed),
and a case some run lacks.
"""
import re
import sys

C_LINE = re.compile(r"(\S+)\s+([\d.]+) ms\s+([\d.]+) ms\s+\S+\s+(bitwise equal|DIFFER)\s+([\d.]+)"
                    r"\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+%\s+(\w+)\s+([0-9a-f]{8})$")
COST_LINE = re.compile(r"bench: (\S+): cost_of .* claims")
PEAK_LINE = re.compile(r"peak, 1 thread: ([\d.]+) GFLOP/s.*memory ([\d.]+) GB/s")
TORCH_LINE = re.compile(r"(\S+)\s+([12])\s+[\d.]+ ms\s+([\d.]+) ms\s+[\d.]+x")


def read_run(path):
    """One run: {case: (c1 ms, c2 ms, GFLOP, bound, hash)}, {(case, threads): PyTorch ms}, peak, bw."""
    c, torch, peak, bw = {}, {}, None, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = C_LINE.match(line)
            if m:
                if m.group(4) == "DIFFER":
                    sys.exit("%s: %s differs between 1 and 2 threads; not a run to report"
                             % (path, m.group(1)))
                c[m.group(1)] = (float(m.group(2)), float(m.group(3)), float(m.group(5)),
                                 m.group(6), m.group(7))
                continue
            m = COST_LINE.match(line)
            if m:
                sys.exit("%s: %s: the cost model's GEMM operations are not those that ran; "
                         "not a run to report" % (path, m.group(1)))
            m = PEAK_LINE.match(line)
            if m:
                peak, bw = float(m.group(1)), float(m.group(2))
                continue
            m = TORCH_LINE.match(line)
            if m:
                torch[(m.group(1), int(m.group(2)))] = float(m.group(3))
    if peak is None or not c:
        sys.exit("%s: no bench/core output in it (is it bench/torch_core.py's?)" % path)
    return c, torch, peak, bw


def verdict(c, torch, floor):
    """As bench/torch_core.py's: met, not met, or beyond what the peak allows."""
    if c * 3 <= torch:
        return "met"
    return "beyond peak" if floor * 3 > torch else "not met"


def ms(v):
    return "%.0f ms" % v if v >= 100 else "%.1f ms" % v


def main(paths):
    if not paths:
        sys.exit(__doc__)
    runs = [read_run(p) for p in paths]
    cases = list(runs[0][0])
    for path, (c, torch, _, _) in zip(paths, runs):
        for name in cases:
            if name not in c or (name, 1) not in torch or (name, 2) not in torch:
                sys.exit("%s: case %s is missing (a cut-off run, or --only?)" % (path, name))
            if c[name][4] != runs[0][0][name][4]:
                sys.exit("%s: %s's hash %s is not %s's %s: runs of two builds mixed"
                         % (path, name, c[name][4], paths[0], runs[0][0][name][4]))
    peak = max(r[2] for r in runs)
    print("%d runs; peak %s GFLOP/s, memcpy %s GB/s"
          % (len(runs), ", ".join("%.1f" % r[2] for r in runs),
             ", ".join("%.1f" % r[3] for r in runs)), file=sys.stderr)
    for path, (c, torch, _, _) in zip(paths, runs):
        met = [sum(c[n][t - 1] * 3 <= torch[(n, t)] for n in cases) for t in (1, 2)]
        print("%s: met %d at 1 thread, %d at 2 threads" % (path, met[0], met[1]), file=sys.stderr)

    print("| case | C, 1 thread | PyTorch, 1 thread | ratio | 3x needs | floor | 3x at 1 thread "
          "| C, 2 threads | PyTorch, 2 threads | ratio | 3x at 2 threads | GFLOP/s (1 thread) "
          "| bound |")
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---:|---|")
    counts = {}
    for name in cases:
        best_c = [min(r[0][name][t] for r in runs) for t in (0, 1)]
        best_t = [min(r[1][(name, t)] for r in runs) for t in (1, 2)]
        gflop = runs[0][0][name][2]
        bounds = [r[0][name][3] for r in runs]
        floor = gflop / peak * 1e3  # ms at the peak, one thread
        v = [verdict(best_c[0], best_t[0], floor), verdict(best_c[1], best_t[1], floor / 2)]
        for t, x in zip((1, 2), v):
            counts[(t, x)] = counts.get((t, x), 0) + 1
        print("| %s | %s | %s | %.2fx | %s | %s | %s | %s | %s | %.2fx | %s | %.2f | %s |"
              % (name, ms(best_c[0]), ms(best_t[0]), best_t[0] / best_c[0], ms(best_t[0] / 3),
                 ms(floor), v[0], ms(best_c[1]), ms(best_t[1]), best_t[1] / best_c[1], v[1],
                 gflop / best_c[0] * 1e3, max(set(bounds), key=bounds.count)))
    for t in (1, 2):
        print("%d thread%s: %s" % (t, "s" if t > 1 else "", ", ".join(
            "%s %d" % (x, counts.get((t, x), 0)) for x in ("met", "not met", "beyond peak"))),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
