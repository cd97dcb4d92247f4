#!/usr/bin/env python3
"""bench/overlap.py - tdaudit overlap's method, straightforwardly, in Python 3
(standard library only): the comparison build/bench/overlap runs.

    python3 bench/overlap.py A B [--ngram N] [--limit-mb MB] [--boilerplate N]

The same method as harness/overlap.c: norm/1 (ASCII lowercase; every run of
bytes that are not ASCII letters, digits or bytes >= 0x80 is one space),
the smaller side indexed (exact texts and n-grams: first A line, records
of the indexed side holding each n-gram), the larger streamed, per B record
the share of its n-gram positions found in A outside boilerplate (more than
100 indexed records) and its longest run. An n-gram is keyed by Python's
64-bit hash() of its tuple of words, as the C keys it by a 64-bit hash
(the tuples themselves took 8.5 GB for 200 MB). --ngram 0: exact texts only.
--limit-mb reads only the first MB of each file (whole lines). Prints the
hits, then one line: python: seconds=S maxrss_kb=K hits=H passing=P bytes=N.
"""
import argparse
import os
import re
import resource
import sys
import time

SEP = re.compile(rb"[^a-z0-9\x80-\xff]+")
ONE, LINE = 1 << 32, (1 << 32) - 1  # an n-gram's value: its count << 32 | its first A line


class Lines:
    """The lines of a file, streamed (again on each pass), up to limit MB of whole lines."""

    def __init__(self, path, limit):
        self.path, self.limit, self.bytes = path, int(limit * 1e6), 0

    def __iter__(self):
        seen = 0
        with open(self.path, "rb") as f:
            for line in f:
                if self.limit and seen + len(line) > self.limit:
                    break
                seen += len(line)
                yield line
        self.bytes = seen


def words_of(line):
    return SEP.sub(b" ", line.lower()).split()


def index(lines, n, is_a):
    exact, grams = {}, {}
    for no, line in enumerate(lines, 1):
        w = words_of(line)
        if not w:
            continue
        key = b" ".join(w)
        if key not in exact:
            exact[key] = no if is_a else 0
        if n:
            for g in {hash(tuple(w[i : i + n])) for i in range(len(w) - n + 1)}:
                grams[g] = grams.get(g, no if is_a else 0) + ONE  # count << 32 | first A line
    return exact, grams


def mark(lines, n, exact, grams):
    """B indexed: the first A line holding each of B's texts and n-grams."""
    for no, line in enumerate(lines, 1):
        w = words_of(line)
        key = b" ".join(w)
        if key in exact and not exact[key]:
            exact[key] = no
        for i in range(len(w) - n + 1 if n else 0):
            g = hash(tuple(w[i : i + n]))
            e = grams.get(g)
            if e is not None and not e & LINE:
                grams[g] = e | no


def measure(lines, n, exact, grams, limit, threshold):
    hits = []
    for no, line in enumerate(lines, 1):
        w = words_of(line)
        if not w:
            continue
        a_exact = exact.get(b" ".join(w), 0)
        matched, run, best, at = 0, 0, 0, {}
        positions = len(w) - n + 1 if n and len(w) >= n else 0
        for i in range(positions):
            e = grams.get(hash(tuple(w[i : i + n])))
            if e is not None and e & LINE and e >> 32 <= limit:
                matched += 1
                run += 1
                best = max(best, run)
                at[e & LINE] = at.get(e & LINE, 0) + 1
            else:
                run = 0
        if not a_exact and not matched:
            continue
        share = 1.0 if a_exact else matched / positions
        a_ngram = min(at, key=lambda k: (-at[k], k)) if at else 0
        hits.append((no, a_exact or a_ngram, share, len(w) if a_exact else best + n - 1,
                     bool(a_exact) or share >= threshold))
    return hits


def main():
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--ngram", type=int, default=13)
    p.add_argument("--limit-mb", type=float, default=0)
    p.add_argument("--boilerplate", type=int, default=100)
    p.add_argument("--threshold", type=float, default=0.5)
    args = p.parse_args()
    t0 = time.monotonic()
    a, b = Lines(args.a, args.limit_mb), Lines(args.b, args.limit_mb)
    size = lambda path: min(os.path.getsize(path), a.limit or float("inf"))
    n = args.ngram
    if size(args.b) < size(args.a):  # index B, mark it with A's lines, then measure B
        exact, grams = index(b, n, False)
        mark(a, n, exact, grams)
    else:
        exact, grams = index(a, n, True)
    hits = measure(b, n, exact, grams, args.boilerplate, args.threshold)
    seconds = time.monotonic() - t0
    for no, a_line, share, run, passes in hits:
        print(f"B:{no}\tA:{a_line or '-'}\tshare {share:.3f}\trun {run}" + ("\tPASSES" if passes else ""))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"python: seconds={seconds:.3f} maxrss_kb={rss} hits={len(hits)} "
          f"passing={sum(h[4] for h in hits)} bytes={a.bytes + b.bytes}")
    return 1 if any(h[4] for h in hits) else 0


if __name__ == "__main__":
    sys.exit(main())
