#!/usr/bin/python3
"""bench/torch_core.py - the same mixers in PyTorch, side by side with build/bench/core.

Runs forward+backward of each mixer on the shapes bench/core.c uses (batch
32, a 28x28 lattice swept along rows = 896 lines of length 28, width 32) in
eager PyTorch on the CPU at 1 and 2 threads, written in plain torch.nn
(nn.GRU, a depthwise nn.Conv1d, the LRU's recurrence as a loop), then runs
build/bench/core in the same invocation and prints the ratio. Shows which
BLAS PyTorch uses. Needs Debian's python3-torch:

    make && /usr/bin/python3 bench/torch_core.py [REPS]
"""
import os
import re
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

BATCH, SIDE, WIDTH = 32, 28, 32
LINES = BATCH * SIDE


def lru_step(params, x):
    """u = x B^T, h_t = a h_{t-1} + u_t, y = h C^T + D x, a = exp(-softplus(w))."""
    B, w, C, D = params
    a = torch.exp(-F.softplus(w))
    u = x @ B.T
    h = torch.zeros(x.shape[0], B.shape[0])
    hs = []
    for t in range(x.shape[1]):
        h = a * h + u[:, t]
        hs.append(h)
    return torch.stack(hs, 1) @ C.T + D * x


def make(kind):
    if kind == "lru":
        params = [torch.randn(WIDTH, WIDTH) / WIDTH ** 0.5, torch.rand(WIDTH) * 5 - 4.5,
                  torch.randn(WIDTH, WIDTH) / WIDTH ** 0.5, torch.randn(WIDTH)]
        for p in params:
            p.requires_grad_()
        return lambda x: lru_step(params, x)
    if kind == "conv":
        net = torch.nn.Conv1d(WIDTH, WIDTH, 4, groups=WIDTH)
        return lambda x: net(F.pad(x.transpose(1, 2), (3, 0))).transpose(1, 2)
    net = torch.nn.GRU(WIDTH, WIDTH, batch_first=True)
    return lambda x: net(x)[0]


def best(kind, threads, reps):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    fn = make(kind)
    x = torch.randn(LINES, SIDE, WIDTH, requires_grad=True)
    dy = torch.randn(LINES, SIDE, WIDTH)
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn(x).backward(dy)
        times.append(time.perf_counter() - t)
    return min(times)


def c_figures(reps):
    exe = os.path.join(os.path.dirname(__file__), "..", "build", "bench", "core")
    out = subprocess.run([exe, str(reps)], capture_output=True, text=True, check=True).stdout
    figs = {}
    for line in out.splitlines():
        m = re.match(r"(\w+)\s+([\d.]+) ms\s+([\d.]+) ms", line)
        if m:
            figs[m.group(1)] = (float(m.group(2)) / 1e3, float(m.group(3)) / 1e3)
    return figs


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    blas = [l.strip() for l in torch.__config__.show().splitlines() if "BLAS" in l]
    print("PyTorch %s, %s" % (torch.__version__, "; ".join(blas) or "BLAS: not reported"))
    print("forward+backward, batch %d, %dx%d lattice swept along rows, width %d, float32, "
          "best of %d" % (BATCH, SIDE, SIDE, WIDTH, reps))
    c = c_figures(reps)
    print("%-6s %8s %10s %10s %8s" % ("mixer", "threads", "C core", "PyTorch", "ratio"))
    for kind in ("lru", "conv", "gru"):
        for i, threads in enumerate((1, 2)):
            t = best(kind, threads, reps)
            print("%-6s %8d %8.1f ms %8.1f ms %7.1fx" % (kind, threads, c[kind][i] * 1e3,
                                                         t * 1e3, t / c[kind][i]))


if __name__ == "__main__":
    main()
