"""torch_wham.py - the GPU peer of scripts/bench-wham: WHAM as a PyTorch user
writes it in an afternoon (issue 3, "The GPU peer to beat").

    python3 torch_wham.py gen  -p FORMULA -E kcal|kJ -t TEMP -w WINDOWS \
                               --range=lo:hi[:p] ... -b BINS ... -n SAMPLES \
                               [-s SEED] [--tol T] [--dtype float32] -o PMF.txt
    python3 torch_wham.py hist HIST.fek [--tol T] [--dtype float32] -o PMF.txt

gen: draws the umbrella samples with torch on the GPU, bins them with torch,
builds a dense bias table and iterates.  hist: the same solver on the
histograms of a fek stream (histogram(1) or bias-build(1) output, binary),
so that the solve is timed on the very histograms fek solves.

What it does, plainly:
  samples    1-D: inverse-CDF sampling of each window's biased density
             exp(-(W + V_h)/kT) tabulated on 2^17 cells of the axis (the
             density inside a cell taken as constant, a uniform draw inside
             the cell); with more axes: rejection sampling, proposals from
             the window's own Gaussian spring (minimum image on periodic
             axes, proposals beyond half a period dropped, open axes walls)
             accepted with probability exp(-(W(x) - Wmin)/kT).  Both are
             exact samples of the biased density (up to the 1-D cell width).
  binning    torch.bincount of window * B + bin, chunk by chunk.
  bias       c_hb = exp(-V_h(x_b)/kT) at bin centres, one dense H x B table
             in --dtype (float32 by default, as the issue's peer).
  iteration  the WHAM equations of Kumar et al. 1992 / Potgieter 2014,
             Eqs. 3.1-3.2, in linear space:
                 p_b = sum_h n_hb / sum_h N_h f_h c_hb,  p /= sum p
                 f_h = 1 / sum_b c_hb p_b
             two matrix-vector products per sweep, stopped when
             max_h |ln f_h(new) - ln f_h(old)| < --tol (fek's test).
  PMF        F_b = -kT ln p_b, shifted to min 0, inf where no data.

The PMF formula is fek's (a libmatheval expression in x, y, z or x1..xD
with pi and e), evaluated here as a Python expression with torch functions
(^ read as **), so both sides sample the same W.

Prints "key value" lines on stdout: device, startup_s (import + CUDA
context), gen_bin_s or read_s, bias_s, solve_s, sweeps, ms_per_sweep,
maxdelta, converged, pmf_s, H, B, samples.  PMF.txt: plain columns
x1..xD F in the ENERGY unit, rows in fek's order (last axis fastest).
"""
import argparse
import math
import re
import sys
import time

T_START = time.time()
import numpy as np  # noqa: E402
import torch  # noqa: E402

KB = {"kJ": 0.0083144626181532, "kcal": 0.0019872042586408}  # CODATA 2018


def sync():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def axis(spec):
    f = spec.split(":")
    if len(f) not in (2, 3) or (len(f) == 3 and f[2] != "p"):
        raise argparse.ArgumentTypeError("bad -r %r: want lo:hi[:p]" % spec)
    return float(f[0]), float(f[1]), len(f) == 3


def formula(expr, D):
    """fek's libmatheval formula as a function of a list of D tensors."""
    names = ["x", "y", "z"] if D <= 3 else ["x%d" % (i + 1) for i in range(D)]
    fns = {n: getattr(torch, n) for n in
           ("sin", "cos", "tan", "exp", "log", "sqrt", "abs", "sinh", "cosh", "tanh",
            "asin", "acos", "atan")}
    code = compile(re.sub(r"\^", "**", expr), "<pmf>", "eval")

    def W(xs):
        env = dict(fns, pi=math.pi, e=math.e)
        env.update(zip(names[:D], xs))
        v = eval(code, {"__builtins__": {}}, env)
        return v if torch.is_tensor(v) else torch.full_like(xs[0], float(v))
    return W


def read_windows(path, D):
    c, k = [], []
    with open(path) as fh:
        for line in fh:
            w = line.split("#")[0].split()
            if w:
                c.append([float(v) for v in w[:D]])
                k.append([float(v) for v in w[D:2 * D]])
    return np.array(c), np.array(k)


def min_image(d, per, lo, hi):
    if per:
        L = hi - lo
        d = d - L * torch.round(d / L)
    return d


def bin_index(x, lo, hi, n, per):
    if per:
        x = lo + torch.remainder(x - lo, hi - lo)
    i = torch.floor((x - lo) / (hi - lo) * n).long()
    return i.clamp_(0, n - 1)


def generate(a, dev, dt):
    """Samples drawn and binned with torch: dense counts [H, B] (int64)."""
    D = len(a.axes)
    kT = KB[a.energy] * a.temp
    W = formula(a.pmf, D)
    c_np, k_np = read_windows(a.windows, D)
    H = len(c_np)
    nb = a.bins if len(a.bins) == D else a.bins * D
    B = int(np.prod(nb))
    c = torch.tensor(c_np, device=dev, dtype=torch.float64)
    k = torch.tensor(k_np, device=dev, dtype=torch.float64)
    gen = torch.Generator(device=dev)
    gen.manual_seed(a.seed)
    counts = torch.zeros(H * B, dtype=torch.int64, device=dev)
    n = a.samples

    def flat_bins(xs):
        b = torch.zeros_like(xs[0], dtype=torch.int64)
        for d, (lo, hi, per) in enumerate(a.axes):
            b = b * nb[d] + bin_index(xs[d], lo, hi, nb[d], per)
        return b

    if D == 1:
        lo, hi, per = a.axes[0]
        G = 1 << 17
        dx = (hi - lo) / G
        xg = lo + (torch.arange(G, device=dev, dtype=torch.float64) + 0.5) * dx
        Wg = W([xg])
        C = max(1, (1 << 26) // max(n, G))   # windows per chunk
        for h0 in range(0, H, C):
            h1 = min(H, h0 + C)
            d = min_image(xg[None, :] - c[h0:h1, 0, None], per, lo, hi)
            lp = -(Wg[None, :] + 0.5 * k[h0:h1, 0, None] * d * d) / kT
            p = torch.exp(lp - lp.max(dim=1, keepdim=True).values)
            cdf = torch.cumsum(p, dim=1)
            u = torch.rand(h1 - h0, n, generator=gen, device=dev, dtype=torch.float64)
            cell = torch.searchsorted(cdf, u * cdf[:, -1:]).clamp_(0, G - 1)
            x = lo + (cell.to(torch.float64)
                      + torch.rand(h1 - h0, n, generator=gen, device=dev, dtype=torch.float64)) * dx
            b = flat_bins([x]) + (torch.arange(h1 - h0, device=dev) * B)[:, None]
            counts[h0 * B:h1 * B] += torch.bincount(b.ravel(), minlength=(h1 - h0) * B)
        return counts.view(H, B), c_np, k_np, nb, H * n

    # D >= 2: rejection from the springs' Gaussians.  Wmin from a fine
    # lattice, lowered by the largest step between lattice neighbours so the
    # acceptance probability never exceeds 1.
    m = max(2, int(round((1 << 22) ** (1.0 / D))))
    lat = [torch.linspace(lo, hi, m, device=dev, dtype=torch.float64) for lo, hi, per in a.axes]
    Wl = W(list(torch.meshgrid(*lat, indexing="ij")))
    step = max(float(torch.diff(Wl, dim=d).abs().max()) for d in range(D))
    Wmin = float(Wl.min()) - step
    sigma = torch.sqrt(kT / k.clamp(min=1e-300))          # [H, D]
    C = 256                                                # windows per chunk
    acc = 1.0
    total = 0
    for h0 in range(0, H, C):
        h1 = min(H, h0 + C)
        need = torch.full((h1 - h0,), n, dtype=torch.int64, device=dev)
        while True:
            rem = int(need.max())
            if rem == 0:
                break
            mprop = min(int(rem / max(acc, 1e-3) * 1.1) + 64, (1 << 26) // (h1 - h0))
            xs, ok = [], torch.ones(h1 - h0, mprop, dtype=torch.bool, device=dev)
            for d, (lo, hi, per) in enumerate(a.axes):
                z = torch.randn(h1 - h0, mprop, generator=gen, device=dev, dtype=dt)
                dxd = z * sigma[h0:h1, d, None].to(dt)
                x = c[h0:h1, d, None].to(dt) + dxd
                if per:
                    ok &= dxd.abs() <= 0.5 * (hi - lo)
                    x = lo + torch.remainder(x - lo, hi - lo)
                else:
                    ok &= (x >= lo) & (x <= hi)
                xs.append(x)
            Wx = W([x.double() for x in xs])
            u = torch.rand(h1 - h0, mprop, generator=gen, device=dev, dtype=torch.float64)
            ok &= u < torch.exp(-(Wx - Wmin) / kT)
            acc = max(float(ok.sum()) / ok.numel(), 1e-3)
            keep = ok & (torch.cumsum(ok, dim=1) <= need[:, None])
            need -= keep.sum(dim=1)
            b = flat_bins(xs) + (torch.arange(h1 - h0, device=dev) * B)[:, None]
            counts[h0 * B:h1 * B] += torch.bincount(b[keep], minlength=(h1 - h0) * B)
        total += (h1 - h0) * n
    return counts.view(H, B), c_np, k_np, nb, total


def read_fek_hist(path):
    """Histogram sections of a binary fek stream -> counts [H, B] and keys."""
    with open(path, "rb") as fh:
        buf = fh.read()
    pos, rows_all = 0, []
    c_l, k_l, axes, nb, temp, energy = [], [], None, None, None, None
    while pos < len(buf):
        if buf[pos:pos + 5] != b"\x93FEK ":
            raise SystemExit("torch_wham.py: %s: not a binary fek stream at byte %d" % (path, pos))
        end = buf.index(b"\nEND\n", pos) + 5
        head = buf[pos:end - 5].decode("latin-1").split("\n")[1:]   # after the magic line
        keys = [ln.split(" ", 1) for ln in head if ln and not ln[0].isspace()]
        kv = {}
        cols = []
        for kk, vv in keys:
            kv.setdefault(kk, []).append(vv)
            if kk == "COL":
                cols.append(vv.split()[1])
        width = sum(8 if t in ("f64", "i64") else 4 for t in cols)
        rows = kv["ROWS"][0].strip()
        if rows == "?":
            raise SystemExit("torch_wham.py: %s: blocked payloads are not read here" % path)
        nrow = int(rows)
        payload = buf[end:end + nrow * width]
        pos = end + nrow * width
        kind = kv["KIND"][0].strip()
        if kind != "histogram":
            continue
        np_type = {"i64": "<i8", "f64": "<f8", "i32": "<i4", "f32": "<f4"}
        if len(cols) != 2:
            raise SystemExit("torch_wham.py: %s: histogram columns are not bin, count" % path)
        rec = np.frombuffer(payload, dtype=[("bin", np_type[cols[0]]), ("count", np_type[cols[1]])])
        ax = [v.split() for v in kv["AXIS"]]
        D = len(ax)
        axes = [(float(v[1]), float(v[2]), v[3] == "periodic") for v in ax]
        nb = [int(v) for v in kv["BINS"][0].split()]
        temp = float(kv["TEMP"][0])
        energy = "kJ" if kv["ENERGY"][0].strip().startswith("kJ") else "kcal"
        w = [float(v) for v in kv["WINDOW"][0].split()]
        c_l.append(w[:D])
        k_l.append(w[D:2 * D])
        rows_all.append(rec)
    H, B = len(rows_all), int(np.prod(nb))
    counts = np.zeros((H, B))
    for h, rec in enumerate(rows_all):
        counts[h, rec["bin"]] = rec["count"]
    return counts, np.array(c_l), np.array(k_l), axes, nb, temp, energy


def bias_table(c_np, k_np, axes, nb, kT, dev, dt):
    """Dense c_hb = exp(-V_h(x_b)/kT) at bin centres, [H, B] in dt."""
    H = len(c_np)
    lnc = torch.zeros(H, 1, dtype=torch.float64, device=dev)
    c = torch.tensor(c_np, device=dev, dtype=torch.float64)
    k = torch.tensor(k_np, device=dev, dtype=torch.float64)
    for d, (lo, hi, per) in enumerate(axes):
        xb = lo + (torch.arange(nb[d], device=dev, dtype=torch.float64) + 0.5) * (hi - lo) / nb[d]
        dd = min_image(xb[None, :] - c[:, d, None], per, lo, hi)
        ld = -0.5 * k[:, d, None] * dd * dd / kT             # [H, n_d]
        lnc = (lnc[:, :, None] + ld[:, None, :]).reshape(H, -1)
    return torch.exp(lnc).to(dt)


def solve(n_hb, cb, tol, maxiter):
    """Self-consistent WHAM iteration in linear space; returns p, stats."""
    Nb = n_hb.sum(dim=0)
    Nh = n_hb.sum(dim=1)
    f = torch.ones_like(Nh)
    sweeps, delta = 0, float("inf")
    has = Nb > 0
    while sweeps < maxiter:
        p = torch.where(has, Nb / ((Nh * f) @ cb), 0.0)
        p = p / p.sum()
        fn = 1.0 / (cb @ p)
        delta = float((torch.log(fn) - torch.log(f)).abs().max())
        f = fn
        sweeps += 1
        if delta < tol:
            break
    p = torch.where(has, Nb / ((Nh * f) @ cb), 0.0)
    p = p / p.sum()
    return p, sweeps, delta


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sp = ap.add_subparsers(dest="mode", required=True)
    g = sp.add_parser("gen")
    g.add_argument("-p", dest="pmf", required=True)
    g.add_argument("-E", dest="energy", choices=sorted(KB), default="kcal")
    g.add_argument("-t", dest="temp", type=float, default=300.0)
    g.add_argument("-w", dest="windows", required=True)
    g.add_argument("-r", "--range", dest="axes", type=axis, action="append", required=True,
                   help="lo:hi[:p]; write --range=LO:... when lo is negative")
    g.add_argument("-b", dest="bins", type=int, action="append", required=True)
    g.add_argument("-n", dest="samples", type=int, default=5000)
    g.add_argument("-s", dest="seed", type=int, default=1)
    h = sp.add_parser("hist")
    h.add_argument("hist")
    for q in (g, h):
        q.add_argument("--tol", type=float, default=1e-7)
        q.add_argument("--maxiter", type=int, default=1000000)
        q.add_argument("--dtype", choices=("float32", "float64"), default="float32")
        q.add_argument("-o", dest="out", required=True)
    a = ap.parse_args()

    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dt = getattr(torch, a.dtype)
    torch.zeros(1, device=dev)
    sync()
    t0 = time.time()
    print("device", torch.cuda.get_device_name(0).replace(" ", "_") if dev.type == "cuda" else "cpu")
    print("startup_s %.3f" % (t0 - T_START))

    if a.mode == "gen":
        counts, c_np, k_np, nb, total = generate(a, dev, dt)
        sync()
        t1 = time.time()
        print("gen_bin_s %.3f" % (t1 - t0))
        axes, temp, energy = a.axes, a.temp, a.energy
        n_hb = counts.to(dt)
        del counts
    else:
        counts, c_np, k_np, axes, nb, temp, energy = read_fek_hist(a.hist)
        total = int(counts.sum())
        n_hb = torch.tensor(counts, device=dev, dtype=dt)
        del counts
        sync()
        t1 = time.time()
        print("read_s %.3f" % (t1 - t0))
    kT = KB[energy] * temp
    cb = bias_table(c_np, k_np, axes, nb, kT, dev, dt)
    sync()
    t2 = time.time()
    print("bias_s %.3f" % (t2 - t1))
    p, sweeps, delta = solve(n_hb, cb, a.tol, a.maxiter)
    sync()
    t3 = time.time()
    print("solve_s %.3f" % (t3 - t2))
    print("sweeps", sweeps)
    print("ms_per_sweep %.4f" % (1000.0 * (t3 - t2) / max(sweeps, 1)))
    print("maxdelta %.3e" % delta)
    print("converged", int(delta < a.tol))
    F = (-kT * torch.log(p.double())).cpu().numpy()
    F[~np.isfinite(F)] = np.inf
    F -= F[np.isfinite(F)].min()
    t4 = time.time()
    print("pmf_s %.3f" % (t4 - t3))
    print("H", len(c_np))
    print("B", int(np.prod(nb)))
    print("samples", total)
    ax = [lo + (np.arange(n) + 0.5) * (hi - lo) / n for (lo, hi, per), n in zip(axes, nb)]
    mesh = np.meshgrid(*ax, indexing="ij")
    np.savetxt(a.out, np.column_stack([m.ravel() for m in mesh] + [F]), fmt="%.17g")
    return 0 if delta < a.tol else 1


if __name__ == "__main__":
    sys.exit(main())
