#!/usr/bin/python3
"""bench/torch_fmnist.py - the tdtrain Fashion-MNIST recipe as a PyTorch twin.

The same model, data and optimizer as

    build/tdtrain train --set dataset=fashion-mnist --set width=32 --set layers=4 \\
        --set mixer=conv --set ffn=64 --set head=per_cell --set batch=32 \\
        --set steps=3000 --set warmup=100 --set lr=0.003 --set eval_every=3000 \\
        --set eval_batches=313 --threads 2

written in plain torch.nn (eager, CPU, float32), so that a whole training
step of the C core can be timed against PyTorch's and its accuracy compared.
Every other key is at its default (core/config.c): weight_decay 0.01, betas
0.9/0.999, eps 1e-8, clip 1, plan cyclic, bidirectional true, seed 1.

What is mirrored, and where from:
  model (core/model.c)     a cell per pixel on the 28x28 lattice, 1 input
                           channel: h = Linear(1, 32)(x); 4 layers of
                           h = h + conv(RMSNorm(h)), then
                           h = h + Linear(64, 32)(relu(Linear(32, 64)(RMSNorm(h))));
                           y[cell] = Wo[cell] h[cell] + bo (a head per cell)
                           and logits = mean of y over the 784 cells.
                           RMSNorm: x / sqrt(mean x^2 + 1e-6) * gain (core/norm.h).
  mixer (core/mixer_conv.c) causal depthwise conv, kernel_size 4, dilation 1
                           (TD_MIXER_OPTS_INIT), y_t = bias + sum_j w[j] x_{t-j},
                           zeros off the line; reverse: x_{t+j}.
  plan (core/plan.c)       td_plan_cyclic over (h, w), bidirectional: layer i
                           sweeps axis i % 2, backward when (i / 2) is odd:
                           h fwd, w fwd, h bwd, w bwd.
  init (model.c, mixer)    embed.w ~ N(0, 1), embed.b ~ N(0, 1), gains 1,
                           head.w ~ N(0, 1/sqrt(32)), head.b 0,
                           W1 ~ N(0, 1/sqrt(32)), W2 ~ N(0, 1/sqrt(64)), b 0,
                           conv w ~ N(0, 1/sqrt(4)), conv bias 0. The same
                           distributions, not the same numbers (C draws Philox).
  loss (core/train.c)      softmax cross-entropy of the mean logits, mean
                           over the batch (td_train_xent).
  optimizer (core/adamw.c) AdamW with lr(s) = lr (s+1)/warmup for s < warmup,
                           then lr (1 + cos(pi p)) / 2, p = (s - warmup) /
                           (steps - warmup): set before every step. Global
                           gradient norm over all parameters; when above clip,
                           every gradient scaled by clip / norm; a non-finite
                           norm skips the step (the firewall). Decoupled decay
                           p *= 1 - lr(s) wd on EVERY parameter, as adamw.c
                           does (gains and biases included). torch.optim.AdamW's
                           update is the formula of adamw.h term for term.
  data (core/idx.c)        the Debian dataset-fashion-mnist IDX files (gzip),
                           pixels / 255 in float32; a training example is an
                           independent uniform draw from the 60,000 (with
                           replacement, as train.c's fetch draws it; here from
                           a seeded torch.Generator, not Philox), evaluation on
                           all 10,000 test images in order.

The BLAS matters more than anything else here. Debian's python3-torch 1.13
is built with BLAS_INFO=generic and links libblas.so.3, which on a stock
Debian 12 is netlib's reference BLAS (/etc/alternatives/libblas.so.3*):
single-threaded, unblocked. With nn.Linear the channel MLP's GEMMs
([25088 x 32] x [32 x 64] per layer, three per layer per step) take about
80% of a torch step (torch.profiler: aten::mm). --linear conv1x1 runs the
same weights as 1x1 conv2d on the channels-last view, which torch sends to
oneDNN (MKL-DNN, built in) instead: the same function (--check passes with
either), about 5x faster per step with the reference BLAS. With Debian's
libopenblas0 installed (`apt-get install libopenblas0`: libblas.so.3
then resolves to OpenBLAS), plain nn.Linear is fast too; the issue asks
for that setup. The header prints torch.__config__'s BLAS lines and the
BLAS library actually mapped into the process, so a run says which it had.

Modes (run them under nice on a shared machine):

    make build/tdtrain
    # the full run: 3000 steps and the test accuracy (nn.Linear: 25-40 min on
    # 2 loaded cores; --linear conv1x1: about 8 min)
    nice -n 19 /usr/bin/python3 bench/torch_fmnist.py --threads 2
    # the full comparison, both programs one after the other, with a table:
    nice -n 19 /usr/bin/python3 bench/torch_fmnist.py --side-by-side --threads 2
    # a short timing run (no evaluation), both programs, with a table:
    nice -n 19 /usr/bin/python3 bench/torch_fmnist.py --side-by-side --steps 100 --threads 2
    # the equivalence check against a C checkpoint:
    build/tdtrain train --set dataset=fashion-mnist ... (the recipe) --stop-after 30 --out /tmp/run
    nice -n 19 /usr/bin/python3 bench/torch_fmnist.py --check /tmp/run/checkpoint.bin

What it measures: the mean wall time of a training step (forward, backward,
clipping, optimizer; not the batch gather, not evaluation) and the final
test accuracy and loss on all 10,000 test images. --check loads the C
model's weights from a checkpoint into the torch model, prints each
tensor's initial mean/std in torch beside the checkpoint's, and prints
torch's evaluation loss beside `tdtrain eval`'s: they agree to ~1e-4
relative (tdtrain prints 6 decimals) when the twin is the same function;
one layer swept the wrong way moves it by 1e-2. --side-by-side runs
`tdtrain train` with the same recipe for --steps steps (--stop-after, so
the schedule is the same), then torch with nn.Linear and with 1x1 convs,
and prints C ms/step, torch ms/step and their ratio; C's figure is its own
progress line's ex/s, which times the training steps alone (the batch
fetch, a copy of 784 bytes per example, included; evaluations not). With all 3000 steps both evaluate and
the table shows their test accuracies too.

The data order is the same kind of draw, not the same draws: accuracy after
3000 steps is comparable between the two, loss curves are not step for
step.
"""
import argparse
import gzip
import math
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FMNIST_DIR = "/usr/share/datasets/fashion-mnist"  # TD_FMNIST_DIR in core/idx.h
SIDE, CLASSES = 28, 10
RMS_EPS = 1e-6  # TD_RMSNORM_EPS
KERNEL, DILATION = 4, 1  # TD_MIXER_OPTS_INIT

# The recipe, as tdtrain's config keys; the rest are tdtrain's defaults.
RECIPE = {
    "dataset": "fashion-mnist", "width": 32, "layers": 4, "mixer": "conv", "ffn": 64,
    "head": "per_cell", "batch": 32, "steps": 3000, "warmup": 100, "lr": 0.003,
    "eval_every": 3000, "eval_batches": 313,
}
DEFAULTS = {
    "weight_decay": 0.01, "adam_beta1": 0.9, "adam_beta2": 0.999, "adam_eps": 1e-8,
    "clip": 1.0, "plan": "cyclic", "bidirectional": True, "seed": 1,
}
CFG = {**DEFAULTS, **RECIPE}


# ---- data --------------------------------------------------------------------------


def read_idx(path, ndims):
    """An IDX file of unsigned bytes as a uint8 tensor of its dims (core/idx.c)."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if raw[0] or raw[1] or raw[2] != 0x08 or raw[3] != ndims:
        sys.exit(f"{path}: not an IDX file of {ndims}-D unsigned bytes")
    dims = struct.unpack_from(f">{ndims}I", raw, 4)
    start = 4 + 4 * ndims
    if len(raw) - start != math.prod(dims):
        sys.exit(f"{path}: {len(raw) - start} data bytes where the header says {math.prod(dims)}")
    return torch.frombuffer(bytearray(raw[start:]), dtype=torch.uint8).view(*dims)


def load_split(prefix):
    """(images uint8 [n][28][28], labels int64 [n]) of 'train' or 't10k'."""
    x = read_idx(f"{FMNIST_DIR}/{prefix}-images-idx3-ubyte.gz", 3)
    y = read_idx(f"{FMNIST_DIR}/{prefix}-labels-idx1-ubyte.gz", 1).long()
    return x, y


def pixels(images):
    """uint8 -> float32 in [0, 1], as td_fmnist_image: (float)px / (float)255."""
    return images.float() / 255.0


# ---- model -------------------------------------------------------------------------


def plan_cyclic(n_layers, n_axes=2, bidirectional=True):
    """td_plan_cyclic: [(axis, reverse)] per layer; the direction flips once per cycle."""
    return [(i % n_axes, bool(bidirectional and (i // n_axes) % 2 == 1)) for i in range(n_layers)]


class RMSNorm(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(width))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + RMS_EPS) * self.gain


class AxialConv(nn.Module):
    """The conv mixer swept along one axis of a [B][H][W][C] stream.

    w [K][C] and bias [C] are the C mixer's tensors as its slab stores them
    (tap-major); tap j reads x_{t - j d} (x_{t + j d} reversed). impl picks
    how torch runs it: 'conv2d' a depthwise nn.functional.conv2d with a
    (K, 1) or (1, K) kernel on a channels-first view, 'fold' folds the
    lattice into lines and runs conv1d (what family_scan.c does), 'shift'
    sums K shifted copies in the channels-last layout. All three are the
    same function; --check verifies whichever is chosen.
    """

    def __init__(self, width, axis, reverse, impl):
        super().__init__()
        self.axis, self.reverse, self.impl = axis, reverse, impl
        self.w = nn.Parameter(torch.empty(KERNEL, width))
        self.bias = nn.Parameter(torch.zeros(width))

    def kernel(self):
        """[C][K] taps for torch's cross-correlation over a padded line."""
        return (self.w if self.reverse else self.w.flip(0)).t()

    def pad(self):
        p = (KERNEL - 1) * DILATION
        return (0, p) if self.reverse else (p, 0)

    def forward(self, x):
        return getattr(self, "_" + self.impl)(x)

    def _conv2d(self, x):
        c = x.shape[-1]
        xc = x.permute(0, 3, 1, 2)  # [B][C][H][W]
        if self.axis == 0:
            k = self.kernel().reshape(c, 1, KERNEL, 1)
            xp = F.pad(xc, (0, 0) + self.pad())
            dil = (DILATION, 1)
        else:
            k = self.kernel().reshape(c, 1, 1, KERNEL)
            xp = F.pad(xc, self.pad())
            dil = (1, DILATION)
        return F.conv2d(xp, k, self.bias, dilation=dil, groups=c).permute(0, 2, 3, 1)

    def _fold(self, x):
        b, h, w, c = x.shape
        # lines along the axis: [B * other][C][length]
        xl = x.permute(0, 2, 3, 1) if self.axis == 0 else x.permute(0, 1, 3, 2)
        n = xl.shape[-1]
        xl = xl.reshape(-1, c, n)
        y = F.conv1d(F.pad(xl, self.pad()), self.kernel().unsqueeze(1), self.bias,
                     dilation=DILATION, groups=c)
        if self.axis == 0:
            return y.view(b, w, c, h).permute(0, 3, 1, 2)
        return y.view(b, h, c, w).permute(0, 1, 3, 2)

    def _shift(self, x):
        dim, n = 1 + self.axis, x.shape[1 + self.axis]
        y = self.bias.expand_as(x)
        for j in range(KERNEL):
            off = j * DILATION
            if off >= n:
                break
            if self.reverse:  # y_t += w[j] x_{t+off}
                src = F.pad(x.narrow(dim, off, n - off), self._padspec(dim, 0, off))
            else:  # y_t += w[j] x_{t-off}
                src = F.pad(x.narrow(dim, 0, n - off), self._padspec(dim, off, 0))
            y = y + self.w[j] * src
        return y

    @staticmethod
    def _padspec(dim, before, after):
        spec = [0, 0] * (4 - dim)  # F.pad counts from the last dim
        spec[-2:] = [before, after]
        return tuple(spec)


class Layer(nn.Module):
    """h + conv(norm(h)), then + W2 relu(W1 norm'(.) + b1) + b2 (model.c layer_forward)."""

    def __init__(self, width, ffn, axis, reverse, impl, linear):
        super().__init__()
        self.norm = RMSNorm(width)
        self.mixer = AxialConv(width, axis, reverse, impl)
        self.norm2 = RMSNorm(width)
        self.w1 = nn.Linear(width, ffn)
        self.w2 = nn.Linear(ffn, width)
        self.linear = linear

    def dense(self, lin, x):
        """lin(x) over [B][H][W][C]: nn.Linear (a BLAS GEMM), or the same weights as a
        1x1 conv2d on the channels-last view, which oneDNN runs without the BLAS."""
        if self.linear == "linear":
            return lin(x)
        y = F.conv2d(x.permute(0, 3, 1, 2), lin.weight[:, :, None, None], lin.bias)
        return y.permute(0, 2, 3, 1)

    def forward(self, h):
        h = h + self.mixer(self.norm(h))
        return h + self.dense(self.w2, F.relu(self.dense(self.w1, self.norm2(h))))


class Twin(nn.Module):
    """The tdtrain model: [B][28][28] pixels -> [B][10] logits (mean over cells)."""

    def __init__(self, width=32, n_layers=4, ffn=64, impl="conv2d", linear="linear"):
        super().__init__()
        self.width, self.n_cells = width, SIDE * SIDE
        self.embed = nn.Linear(1, width)
        self.layers = nn.ModuleList(
            Layer(width, ffn, a, r, impl, linear) for a, r in plan_cyclic(n_layers, 2, CFG["bidirectional"]))
        self.head_w = nn.Parameter(torch.empty(self.n_cells, CLASSES, width))
        self.head_b = nn.Parameter(torch.zeros(CLASSES))

    def reset(self, seed):
        """The C model's initial distributions (td_model_init, conv_setup)."""
        g = torch.Generator().manual_seed(seed)
        w, f = self.width, self.layers[0].w1.out_features
        with torch.no_grad():
            self.embed.weight.normal_(0, 1.0, generator=g)  # 1/sqrt(in), in = 1
            self.embed.bias.normal_(0, 1.0, generator=g)
            self.head_w.normal_(0, 1 / math.sqrt(w), generator=g)
            self.head_b.zero_()
            for l in self.layers:
                l.norm.gain.fill_(1), l.norm2.gain.fill_(1)
                l.w1.weight.normal_(0, 1 / math.sqrt(w), generator=g), l.w1.bias.zero_()
                l.w2.weight.normal_(0, 1 / math.sqrt(f), generator=g), l.w2.bias.zero_()
                l.mixer.w.normal_(0, 1 / math.sqrt(KERNEL), generator=g), l.mixer.bias.zero_()
        return self

    def forward(self, x):
        h = self.embed(x.unsqueeze(-1))  # [B][H][W][C]
        for layer in self.layers:
            h = layer(h)
        # mean over cells of y[cell] = Wo[cell] h[cell] + bo, as one contraction
        b = h.shape[0]
        wo = self.head_w.transpose(1, 2).reshape(self.n_cells * self.width, CLASSES)
        return h.reshape(b, -1) @ wo / self.n_cells + self.head_b

    def slab(self):
        """(name, tensor) in the C parameter slab's order (top of core/model.c)."""
        L = self.layers
        out = [("embed.w", self.embed.weight), ("embed.b", self.embed.bias)]
        out += [(f"layer{i}.gain", l.norm.gain) for i, l in enumerate(L)]
        out += [("head.w", self.head_w), ("head.b", self.head_b)]
        out += [(f"layer{i}.ffn.gain", l.norm2.gain) for i, l in enumerate(L)]
        out += [(f"layer{i}.ffn.w1", l.w1.weight) for i, l in enumerate(L)]
        out += [(f"layer{i}.ffn.b1", l.w1.bias) for i, l in enumerate(L)]
        out += [(f"layer{i}.ffn.w2", l.w2.weight) for i, l in enumerate(L)]
        out += [(f"layer{i}.ffn.b2", l.w2.bias) for i, l in enumerate(L)]
        for i, l in enumerate(L):  # each block's tensors, in layer order
            out += [(f"layer{i}.mixer.w", l.mixer.w), (f"layer{i}.mixer.bias", l.mixer.bias)]
        return out


# ---- optimizer ---------------------------------------------------------------------


def lr_at(s, cfg=CFG):
    """td_adamw_lr with lr_floor 0, s 0-based."""
    lr, warm, total = cfg["lr"], cfg["warmup"], cfg["steps"]
    if s < warm:
        return lr * (s + 1) / warm
    p = min((s - warm) / (total - warm), 1.0)
    return lr * 0.5 * (1.0 + math.cos(math.pi * p))


def make_optimizer(model):
    """AdamW over every parameter, decay included (adamw.c decays the whole slab)."""
    return torch.optim.AdamW(model.parameters(), lr=CFG["lr"],
                             betas=(CFG["adam_beta1"], CFG["adam_beta2"]),
                             eps=CFG["adam_eps"], weight_decay=CFG["weight_decay"])


def clip_and_step(model, opt, s):
    """td_adamw_step: global norm (double), scale = clip/norm above clip, skip if not finite."""
    grads = [p.grad for p in model.parameters()]
    norm = math.sqrt(sum(float(g.double().pow(2).sum()) for g in grads))
    if not math.isfinite(norm):
        return norm, False  # the schedule still advances; t does not
    if CFG["clip"] > 0 and norm > CFG["clip"]:
        scale = CFG["clip"] / norm
        for g in grads:
            g.mul_(scale)
    for group in opt.param_groups:
        group["lr"] = lr_at(s)
    opt.step()
    return norm, True


# ---- runs --------------------------------------------------------------------------


def evaluate(model, x, y, batch=250):
    """Mean cross-entropy and accuracy over every example of (x, y), in order."""
    model.eval()
    loss, correct = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(y), batch):
            xb = pixels(x[i:i + batch]).to(next(model.parameters()).dtype)
            logits = model(xb)
            loss += float(F.cross_entropy(logits.double(), y[i:i + batch], reduction="sum"))
            correct += int((logits.argmax(1) == y[i:i + batch]).sum())
    model.train()
    return loss / len(y), correct / len(y)


def header(threads):
    torch.set_num_threads(threads)
    show = torch.__config__.show()
    print(f"torch {torch.__version__}")
    for l in show.splitlines():
        if any(k in l for k in ("MKL", "LAPACK", "BLAS", "OpenMP")) and "Build settings" not in l:
            print("  " + l.strip())
    print("  " + ", ".join(re.findall(r"(?:BLAS_INFO|LAPACK_INFO|USE_MKLDNN|USE_OPENMP)=[^,]*", show)))
    torch.randn(64, 64) @ torch.randn(64, 64)  # so that the BLAS is mapped
    with open("/proc/self/maps") as maps:
        libs = sorted({l.split()[-1] for l in maps if len(l.split()) >= 6 and
                       "blas" in os.path.basename(l.split()[-1]).lower()})
    print(f"BLAS mapped into this process: {', '.join(libs) or 'none found'}"
          + ("" if any("openblas" in l for l in libs) else
             "  (NOT OpenBLAS: `apt-get install libopenblas0` makes libblas.so.3 OpenBLAS)"))
    print(f"torch.get_num_threads() = {torch.get_num_threads()}")
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


def train(args):
    """The recipe's first args.steps steps (its schedule: steps = 3000), then the test
    evaluation unless args.no_eval; returns (s/step, accuracy or None)."""
    torch.manual_seed(CFG["seed"])
    model = Twin(CFG["width"], CFG["layers"], CFG["ffn"], args.conv, args.linear).reset(CFG["seed"])
    opt = make_optimizer(model)
    print(f"model: {sum(p.numel() for p in model.parameters())} parameters, plan "
          f"{['%s %s' % ('hw'[a], 'bwd' if r else 'fwd') for a, r in plan_cyclic(CFG['layers'])]}"
          f", conv impl {args.conv}, channel MLP as {args.linear}")
    t_load = time.perf_counter()
    train_x, train_y = load_split("train")
    print(f"data: {len(train_y)} training images loaded in {time.perf_counter() - t_load:.1f}s")
    gen = torch.Generator().manual_seed(CFG["seed"])
    times, window = [], 0.0
    for s in range(args.steps):
        idx = torch.randint(0, len(train_y), (CFG["batch"],), generator=gen)
        xb, yb = pixels(train_x[idx]), train_y[idx]
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        norm, applied = clip_and_step(model, opt, s)
        dt = time.perf_counter() - t0
        times.append(dt)
        window += float(loss)
        done = s + 1
        if done % args.log_every == 0 or done == args.steps:
            k = (done - 1) % args.log_every + 1
            print(f"step {done}/{CFG['steps']}  loss {window / k:.4f}  lr {lr_at(s):.6f}  "
                  f"grad_norm {norm:.4f}{'' if applied else ' (skipped)'}  "
                  f"{1e3 * statistics.fmean(times[-k:]):.1f} ms/step", flush=True)
            window = 0.0
    mean = statistics.fmean(times)
    print(f"torch: {1e3 * mean:.2f} ms/step mean over {len(times)} steps "
          f"(median {1e3 * statistics.median(times):.2f}, "
          f"mean without the first 5 {1e3 * statistics.fmean(times[5:] or times):.2f}); "
          f"{CFG['batch'] / mean:.0f} ex/s; training total {sum(times):.1f}s")
    acc = None
    if not args.no_eval:
        test_x, test_y = load_split("t10k")
        t0 = time.perf_counter()
        loss, acc = evaluate(model, test_x, test_y)
        print(f"eval  step {args.steps}  loss {loss:.4f}  accuracy {acc:.4f}  "
              f"({len(test_y)} examples, {time.perf_counter() - t0:.1f}s)", flush=True)
    return mean, acc


def recipe_args(extra):
    out = []
    for k, v in {**RECIPE, **extra}.items():
        out += ["--set", f"{k}={v}"]
    return out


def c_train(args):
    """tdtrain train with the recipe for args.steps steps; returns (ms/step, wall s,
    final accuracy or None: tdtrain evaluates only when it runs all 3000 steps)."""
    exe = os.path.join(ROOT, "build", "tdtrain")
    with tempfile.TemporaryDirectory(prefix="torch_fmnist-") as d:
        cmd = [exe, "train"] + recipe_args({"log_every": args.steps}) + \
              ["--threads", str(args.threads), "--stop-after", str(args.steps), "--out", d]
        print("running: " + " ".join(cmd), flush=True)
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if out.returncode:
        sys.exit(f"tdtrain failed ({out.returncode}):\n{out.stdout}{out.stderr}")
    print(out.stdout, end="", flush=True)
    lines = [m for m in re.finditer(r"step (\d+)/\d+ .* (\d+) ex/s", out.stdout)]
    if not lines or int(lines[-1].group(1)) != args.steps:
        sys.exit("no progress line for the last step in tdtrain's output")
    ev = re.search(r"eval  step \d+  loss [\d.]+  accuracy ([\d.]+)", out.stdout)
    return 1e3 * RECIPE["batch"] / float(lines[-1].group(2)), wall, \
        float(ev.group(1)) if ev else None


def side_by_side(args):
    """C, then torch with each --linear choice, one after the other, then the table."""
    full = args.steps == CFG["steps"]
    args.no_eval = args.no_eval or not full  # a short run is for timing
    loads = [os.getloadavg()]
    c_ms, c_wall, c_acc = c_train(args)
    rows = []
    for lin in (["linear", "conv1x1"] if args.linear == "both" else [args.linear]):
        args.linear = lin
        print(f"\n-- torch, channel MLP as {lin}", flush=True)
        mean, acc = train(args)
        rows.append((lin, 1e3 * mean, acc))
    loads.append(os.getloadavg())
    print(f"\nload average (1/5/15 min) before: {' '.join(f'{v:.2f}' for v in loads[0])}, "
          f"after: {' '.join(f'{v:.2f}' for v in loads[1])}")
    acc = lambda a: "-" if a is None else f"{100 * a:.2f}%"
    print(f"\n| program | steps | threads | ms/step | / C | test accuracy |")
    print("|---|---|---|---|---|---|")
    print(f"| C tdtrain | {args.steps} | {args.threads} | {c_ms:.1f} | 1.00x | {acc(c_acc)} |")
    for lin, ms, a in rows:
        what = "nn.Linear (BLAS)" if lin == "linear" else "MLP as 1x1 conv (oneDNN)"
        print(f"| torch {torch.__version__}, {what}, conv {args.conv} | {args.steps} | "
              f"{args.threads} | {ms:.1f} | {ms / c_ms:.2f}x | {acc(a)} |")
    print(f"(C: from tdtrain's own ex/s over its loop, {c_wall:.1f}s wall with setup and "
          f"evaluation; torch: mean of forward+backward+clip+AdamW, batch gather excluded)")


# ---- the equivalence check -----------------------------------------------------------


def read_checkpoint(path):
    """The sections of a tdtrain checkpoint (core/checkpoint.h, format 1)."""
    raw = open(path, "rb").read()
    if raw[:8] != b"TDCKPT\r\n":
        sys.exit(f"{path}: not a tdtrain checkpoint")
    version, real = struct.unpack_from("<II", raw, 8)
    n_sec, payload, _checksum = struct.unpack_from("<QQQ", raw, 16)
    if version != 1 or len(raw) != 40 + payload:
        sys.exit(f"{path}: format version {version}, {len(raw)} bytes; this reads version 1 whole")
    sec, at = {}, 40
    for _ in range(n_sec):
        name = raw[at:at + 16].rstrip(b"\0").decode()
        (n,) = struct.unpack_from("<Q", raw, at + 16)
        sec[name] = raw[at + 24:at + 24 + n]
        at += 24 + n
    dtype = {4: torch.float32, 8: torch.float64}[real]
    weights = torch.frombuffer(bytearray(sec["weights"]), dtype=dtype)
    config = dict(l.split(" = ", 1) for l in sec["config"].decode().splitlines()
                  if " = " in l and not l.startswith("#"))
    (step,) = struct.unpack("<Q", sec["step"])
    return weights, config, step, sec["signature"].decode()


def load_slab(model, weights):
    """Copies the C slab into the model's tensors; refuses a length mismatch."""
    at = 0
    with torch.no_grad():
        for name, t in model.slab():
            n = t.numel()
            t.copy_(weights[at:at + n].view_as(t))
            at += n
    if at != weights.numel():
        sys.exit(f"the checkpoint holds {weights.numel()} weights; the twin has {at}")


def check(args):
    weights, config, step, sig = read_checkpoint(args.check)
    print(f"checkpoint {args.check}: step {step}, {weights.numel()} {weights.dtype} weights, "
          f"signature '{sig}'")
    for k, v in CFG.items():  # what shapes the model and its evaluation must be the recipe's
        got = config.get(k)
        same = (got == str(v).lower() if isinstance(v, (bool, str))
                else got is not None and float(got) == float(v))
        if k in ("seed", "width", "layers", "mixer", "ffn", "head", "plan", "bidirectional",
                 "dataset", "batch", "eval_batches") and not same:
            sys.exit(f"the checkpoint's {k} is {got}, the recipe's {v}")
    if config.get("composition", "axial_scan") != "axial_scan" or \
            float(config.get("absent_fraction", 0)) != 0:
        sys.exit("the checkpoint is not an axial_scan model on whole images")
    fresh = Twin(CFG["width"], CFG["layers"], CFG["ffn"], args.conv, args.linear).reset(CFG["seed"])
    model = Twin(CFG["width"], CFG["layers"], CFG["ffn"], args.conv, args.linear)
    load_slab(model, weights)
    print("\nper tensor: torch's initial mean/std beside the checkpoint's (C, after its steps)")
    for (name, t0), (_, tc) in zip(fresh.slab(), model.slab()):
        if name.startswith("layer") and not name.startswith("layer0"):
            continue
        print(f"  {name:18s} {t0.numel():7d}  torch {float(t0.mean()):+.4f} {float(t0.std()):.4f}"
              f"   C {float(tc.mean()):+.4f} {float(tc.std()):.4f}")
    test_x, test_y = load_split("t10k")
    t0 = time.perf_counter()
    t_loss, t_acc = evaluate(model, test_x, test_y)
    print(f"\ntorch float32 ({args.conv}, {args.linear}): loss {t_loss:.6f}  accuracy {t_acc:.4f}"
          f"  ({time.perf_counter() - t0:.1f}s)")
    if args.c_loss is not None:
        c_loss, c_acc = args.c_loss, None
    else:
        cmd = [os.path.join(ROOT, "build", "tdtrain"), "eval", "--checkpoint", args.check]
        print("running: " + " ".join(cmd), flush=True)
        out = subprocess.run(cmd, capture_output=True, text=True)
        m = re.search(r"loss ([\d.]+)\s+accuracy ([\d.]+)\s+\((\d+) examples", out.stdout)
        if out.returncode or not m:
            sys.exit(f"tdtrain eval failed:\n{out.stdout}{out.stderr}")
        c_loss, c_acc = float(m.group(1)), float(m.group(2))
        print(out.stdout.strip())
    rel = abs(t_loss - c_loss) / abs(c_loss)
    print(f"\n| | eval loss | accuracy |\n|---|---|---|")
    print(f"| C (tdtrain eval) | {c_loss:.6f} | {'' if c_acc is None else f'{c_acc:.4f}'} |")
    print(f"| torch twin, float32 | {t_loss:.6f} | {t_acc:.4f} |")
    print(f"relative difference {rel:.2e} (tdtrain prints 6 decimals): "
          f"{'AGREE' if rel < 1e-4 else 'DIFFER'} at 1e-4")
    return 0 if rel < 1e-4 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=CFG["steps"],
                    help="run the first N steps of the 3000-step schedule (default 3000)")
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads (and tdtrain's)")
    ap.add_argument("--log-every", type=int, default=100)
    ap.add_argument("--no-eval", action="store_true", help="skip the final test evaluation")
    ap.add_argument("--conv", choices=["conv2d", "fold", "shift"], default="conv2d",
                    help="how torch runs the conv mixer (the same function)")
    ap.add_argument("--linear", choices=["linear", "conv1x1", "both"],
                    help="the channel MLP as nn.Linear (a BLAS GEMM: Debian's torch calls "
                         "netlib's reference BLAS) or as 1x1 conv2d (oneDNN); the same function."
                         " Default: linear; both (the default with --side-by-side) runs each")
    ap.add_argument("--side-by-side", action="store_true",
                    help="run build/tdtrain for --steps steps, then torch with each --linear "
                         "choice, and print a table")
    ap.add_argument("--check", metavar="CKPT", help="load a C checkpoint, compare eval losses")
    ap.add_argument("--c-loss", type=float, help="with --check: C's eval loss, not run here")
    args = ap.parse_args()
    if not 1 <= args.steps <= CFG["steps"]:
        ap.error(f"--steps must lie in 1..{CFG['steps']}")
    if args.linear is None:
        args.linear = "both" if args.side_by_side else "linear"
    if args.linear == "both" and not args.side_by_side:
        ap.error("--linear both needs --side-by-side")
    header(args.threads)
    if args.check:
        return check(args)
    if args.side_by_side:
        side_by_side(args)
    else:
        train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
