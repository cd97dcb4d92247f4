#!/usr/bin/python3
"""bench/torch_core.py - the core's benchmark cases in PyTorch, side by side with build/bench/core.

Runs every case of bench/core.c (the bare mixers, each family with each
mixer, and the whole model of core/model.c with each family and mixer) on
the same shapes - batch 32, a 28x28 lattice, width 32, float32 - in eager
PyTorch on the CPU at 1 and 2 threads, written in plain torch.nn: nn.GRU,
a depthwise nn.Conv1d, nn.MultiheadAttention, the LRU's recurrence as a
loop, the kernel family's renormalised contractions as einsum, RMSNorm and
the residual stream as model.c computes them. It runs build/bench/core in
the same invocation (first, so the two never share the machine), prints its
output (with its roofline columns), then one table of both times and the
ratio PyTorch / C per case and thread count, and against the target of a
C core 3x faster than PyTorch: the time 3x needs (PyTorch's / 3), the
floor this machine puts under the case (its operations, as bench/core
counts them, at bench/core's measured peak for that many threads), and
a verdict - "met", "not met", or "beyond peak" where even the floor is
above the time 3x needs, so that no implementation of those operations on
this machine could meet it.

It shows which BLAS PyTorch really calls: torch.__config__.show()'s BLAS
line and the BLAS library mapped into this process. Debian's python3-torch
calls libblas.so.3, which is OpenBLAS only when libopenblas0 is installed;
otherwise it is the reference BLAS, and the script says so.

    make && /usr/bin/python3 bench/torch_core.py [REPS] [--only SUBSTRING]

With --cuda FILE it runs on the GPU instead, beside the C core's GPU
figures: FILE holds the "gpu-bench CASE MS ms" lines of ci/device-check's
GPU benchmark (the whole-model cases tdtrain's GPU path computes), and
each case runs in eager PyTorch on CUDA on the same shapes, float32 with
TF32 off in matrix products and convolutions (the C path's cuBLAS is
pedantic), best of REPS (default 20) after a warm-up, synchronised
around each step. The table's ratio is PyTorch / C; the target is above 1.

    python3 bench/torch_core.py --cuda gpu-bench.txt [REPS]
"""
import os
import re
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, SIDE, WIDTH, LAYERS, OUT, HEADS, TAPS = 32, 28, 32, 4, 10, 4, 4
CELLS = SIDE * SIDE
KINDS = ("lru", "conv", "gru", "lstm", "attention")
FAMILIES = ("scan", "kernel", "flatten")
CANCEL = 1e-2  # TD_BLOCK_CANCEL_DEFAULT


class LRU(nn.Module):
    """u = x B^T, h_t = a h_{t-1} + u_t, y = h C^T + D x, a = exp(-softplus(w)); state = width."""

    def __init__(self, c):
        super().__init__()
        self.B = nn.Parameter(torch.randn(c, c) / c ** 0.5)
        self.w = nn.Parameter(torch.rand(c) * 5 - 4.5)
        self.C = nn.Parameter(torch.randn(c, c) / c ** 0.5)
        self.D = nn.Parameter(torch.randn(c))

    def forward(self, x):
        a = torch.exp(-F.softplus(self.w))
        u = x @ self.B.T
        h = x.new_zeros(x.shape[0], self.B.shape[0])
        hs = []
        for t in range(x.shape[1]):
            h = a * h + u[:, t]
            hs.append(h)
        return torch.stack(hs, 1) @ self.C.T + self.D * x


class CausalConv(nn.Module):
    """Depthwise, TAPS taps, zero before the start of the line."""

    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv1d(c, c, TAPS, groups=c)

    def forward(self, x):
        return self.conv(F.pad(x.transpose(1, 2), (TAPS - 1, 0))).transpose(1, 2)


class GRU(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gru = nn.GRU(c, c, batch_first=True)

    def forward(self, x):
        return self.gru(x)[0]


class LSTM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.lstm = nn.LSTM(c, c, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0]


class Attention(nn.Module):
    """HEADS heads, not causal, with bias: what core/mixer_attention.c computes."""

    def __init__(self, c):
        super().__init__()
        self.att = nn.MultiheadAttention(c, HEADS, batch_first=True)

    def forward(self, x):
        return self.att(x, x, x, need_weights=False)[0]


MIXERS = {"lru": LRU, "conv": CausalConv, "gru": GRU, "lstm": LSTM, "attention": Attention}


class Mixer(nn.Module):
    """A mixer over lines [lines][length][C], swept from the end when reverse."""

    def __init__(self, kind, reverse=False):
        super().__init__()
        self.m, self.reverse = MIXERS[kind](WIDTH), reverse

    def forward(self, x):
        if self.reverse:
            return self.m(x.flip(1)).flip(1)
        return self.m(x)


class Scan(nn.Module):
    """Axial scan of x [B][H][W][C] along axis h or w."""

    def __init__(self, kind, axis, reverse=False):
        super().__init__()
        self.mix, self.axis = Mixer(kind, reverse), axis

    def forward(self, x):
        b, hh, ww, c = x.shape
        if self.axis == "w":
            return self.mix(x.reshape(b * hh, ww, c)).reshape(b, hh, ww, c)
        y = self.mix(x.transpose(1, 2).reshape(b * ww, hh, c))
        return y.reshape(b, ww, hh, c).transpose(1, 2)


def renormaliser(k):
    """Each output's signed mass (a dense lattice: the kernel row's sum), or 1 where it cancels."""
    den, mass = k.sum(1), k.abs().sum(1)
    return torch.where(den.abs() > CANCEL * mass, den, torch.ones_like(den))


class Kernel(nn.Module):
    """Axial kernel, no time axis: contract h then w (dense: the mass is each row's sum),
    then the mixer over every cell as a line of length 1."""

    def __init__(self, kind):
        super().__init__()
        self.kh = nn.Parameter(torch.rand(SIDE, SIDE) * 2 / SIDE)
        self.kw = nn.Parameter(torch.rand(SIDE, SIDE) * 2 / SIDE)
        self.mix = Mixer(kind)

    def forward(self, x):
        b, hh, ww, c = x.shape
        z = torch.einsum("ij,bjwc->biwc", self.kh, x) / renormaliser(self.kh)[:, None, None]
        z = torch.einsum("ij,bhjc->bhic", self.kw, z) / renormaliser(self.kw)[:, None]
        return self.mix(z.reshape(b * hh * ww, 1, c)).reshape(b, hh, ww, c)


class Flatten(nn.Module):
    """Each image's cells, row-major (h, w), as one line."""

    def __init__(self, kind):
        super().__init__()
        self.mix = Mixer(kind)

    def forward(self, x):
        b, hh, ww, c = x.shape
        return self.mix(x.reshape(b, hh * ww, c)).reshape(b, hh, ww, c)


# tdtrain's default scan plan: cyclic over (h, w), both axes flipped every other cycle.
PLAN = [("h", False), ("w", False), ("h", True), ("w", True)]


def block(family, kind, layer=0):
    if family == "scan":
        return Scan(kind, *PLAN[layer % len(PLAN)])
    return Kernel(kind) if family == "kernel" else Flatten(kind)


class Model(nn.Module):
    """model.c: h = embed(x); h = h + block(rmsnorm(h)) per layer; y = head(h)."""

    def __init__(self, family, kind):
        super().__init__()
        self.embed = nn.Linear(1, WIDTH)
        self.gains = nn.ParameterList(nn.Parameter(torch.ones(WIDTH)) for _ in range(LAYERS))
        self.blocks = nn.ModuleList(block(family, kind, i) for i in range(LAYERS))
        self.head = nn.Linear(WIDTH, OUT)

    def forward(self, x):
        h = self.embed(x)
        for g, blk in zip(self.gains, self.blocks):
            n = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * g
            h = h + blk(n)
        return self.head(h)


def case(name):
    """The module, its input and its output gradient for a case of bench/core.c."""
    level, kind = name.split("/")
    if level == "mixer":
        shape, out = (BATCH * SIDE, SIDE, WIDTH), (BATCH * SIDE, SIDE, WIDTH)
        return Mixer(kind), shape, out
    if level.startswith("model-"):
        return Model(level[6:], kind), (BATCH, SIDE, SIDE, 1), (BATCH, SIDE, SIDE, OUT)
    shape = (BATCH, SIDE, SIDE, WIDTH)
    return block(level, kind), shape, shape


def best(name, threads, reps):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    net, shape, out = case(name)
    x = torch.randn(*shape, requires_grad=True)
    dy = torch.randn(*out)
    times = []
    for _ in range(reps):
        net.zero_grad(set_to_none=True)
        x.grad = None
        t = time.perf_counter()
        net(x).backward(dy)
        times.append(time.perf_counter() - t)
    return min(times)


def best_cuda(name, reps):
    """best() on the GPU: the step synchronised on both sides, one run first to warm up."""
    torch.manual_seed(0)
    net, shape, out = case(name)
    net = net.cuda()
    x = torch.randn(*shape, device="cuda", requires_grad=True)
    dy = torch.randn(*out, device="cuda")
    times = []
    for r in range(reps + 1):
        net.zero_grad(set_to_none=True)
        x.grad = None
        torch.cuda.synchronize()
        t = time.perf_counter()
        net(x).backward(dy)
        torch.cuda.synchronize()
        if r:
            times.append(time.perf_counter() - t)
    return min(times)


def cuda_main(path, reps):
    """PyTorch eager CUDA beside the C core's GPU figures in path."""
    c = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"gpu-bench\s+(\S+)\s+(\S+) ms", line)
            if m:
                c[m.group(1)] = float(m.group(2)) / 1e3
    if not c:
        print("%s holds no gpu-bench lines: run ci/device-check on a GPU first" % path)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print("PyTorch %s eager on %s (CUDA %s), forward+backward, float32, TF32 off, best of %d; "
          "ratio = PyTorch / C (above 1: the C core is faster, the target)"
          % (torch.__version__, torch.cuda.get_device_name(), torch.version.cuda, reps))
    print("%-24s %12s %12s %7s  %s" % ("case", "C on GPU", "PyTorch", "ratio", "target"))
    for name, t_c in c.items():
        t = best_cuda(name, reps)
        print("%-24s %9.3f ms %9.3f ms %6.2fx  %s"
              % (name, t_c * 1e3, t * 1e3, t / t_c, "met" if t_c < t else "not met"))
        sys.stdout.flush()
    return 0


def blas_in_use():
    """The BLAS library this process has mapped (after a matrix product has run)."""
    torch.randn(64, 64) @ torch.randn(64, 64)
    libs = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if "blas" in os.path.basename(path).lower() or "mkl" in path.lower():
                libs.add(path)
    return sorted(libs)


def show_blas():
    config = [l.strip() for l in torch.__config__.show().splitlines() if "BLAS" in l]
    info = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
    libs = blas_in_use()
    print("PyTorch %s, BLAS_INFO=%s; %s" % (torch.__version__, info.group(1) if info else "?",
                                            "; ".join(c for c in config if "BLAS_INFO" not in c)
                                            or "no BLAS line in torch.__config__.show()"))
    print("BLAS mapped into this process: %s" % (", ".join(libs) or "none found"))
    if not any("openblas" in l.lower() for l in libs):
        print("NOTE: OpenBLAS is NOT PyTorch's BLAS here: libopenblas0 is not installed, so "
              "libblas.so.3 resolves to the reference BLAS above. The issue's comparison needs "
              "`apt-get install libopenblas0`; the PyTorch times below use the reference BLAS, "
              "which slows PyTorch wherever matrix products dominate, so the ratios there "
              "favour the C core.")


def c_figures(argv):
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bench",
                       "core")
    run = subprocess.run([exe] + argv, capture_output=True, text=True)
    sys.stdout.write(run.stdout)
    if run.returncode:
        sys.stdout.write(run.stderr)
        print("build/bench/core exited %d: outputs DIFFER across thread counts, the cost "
              "model's GEMM operations were not those that ran, or a case failed"
              % run.returncode)
    figs, peak = {}, None
    for line in run.stdout.splitlines():
        m = re.match(r"(\S+)\s+([\d.]+) ms\s+([\d.]+) ms\s+\S+\s+bitwise equal\s+([\d.]+)", line)
        if m:
            figs[m.group(1)] = (float(m.group(2)) / 1e3, float(m.group(3)) / 1e3,
                                float(m.group(4)) * 1e9)
        m = re.match(r"peak, 1 thread: ([\d.]+) GFLOP/s", line)
        if m:
            peak = float(m.group(1)) * 1e9
    return figs, peak, run.returncode


def verdict(c, torch_time, floor):
    """Against the 3x target: met, not met, or beyond what the machine's peak allows."""
    if c * 3 <= torch_time:
        return "met"
    return "beyond peak" if floor * 3 > torch_time else "not met"


def main():
    argv = sys.argv[1:]
    if "--cuda" in argv:
        at = argv.index("--cuda")
        if at + 1 >= len(argv):
            print("usage: bench/torch_core.py --cuda GPU_BENCH_FILE [REPS]")
            return 2
        return cuda_main(argv[at + 1], next((int(a) for a in argv if a.isdigit()), 20))
    reps = next((int(a) for a in argv if a.isdigit()), 3)
    show_blas()
    print("eager PyTorch on the CPU, forward+backward, float32, best of %d; "
          "ratio = PyTorch / C core (above 1: the C core is faster)" % reps)
    print()
    c, peak, rc = c_figures(argv)
    if peak is None:
        print("build/bench/core printed no peak line; cannot place the cases against it")
        return 1
    print()
    print("3x needs = PyTorch / 3; floor = the case's operations at %.1f GFLOP/s per thread "
          "(bench/core's peak)" % (peak * 1e-9))
    print("%-24s %7s %10s %10s %7s %10s %10s  %s" % ("case", "threads", "C core", "PyTorch",
                                                     "ratio", "3x needs", "floor",
                                                     "3x target"))
    for name in c:
        for i, threads in enumerate((1, 2)):
            t = best(name, threads, reps)
            floor = c[name][2] / (peak * threads)
            print("%-24s %7d %7.1f ms %7.1f ms %6.2fx %7.1f ms %7.1f ms  %s"
                  % (name, threads, c[name][i] * 1e3, t * 1e3, t / c[name][i], t / 3 * 1e3,
                     floor * 1e3, verdict(c[name][i], t, floor)))
            sys.stdout.flush()
    return rc


if __name__ == "__main__":
    sys.exit(main())
