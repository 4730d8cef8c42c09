"""mbar.py - the pymbar peer of scripts/bench-wham: MBAR (Shirts & Chodera,
J. Chem. Phys. 129, 124105, 2008) on umbrella data given as Grossfield
metadata, as samples2ts writes it, and the PMF on a regular grid.

    /usr/bin/python3 mbar.py -m META -t TEMP -E kJ|kcal -b lo:hi:n[:p] ...
                            [--tol T] -o PMF.txt

Run with Debian's python3 (python3-pymbar 3.x); a python3 on PATH may be a
pyenv shim without pymbar.  Each metadata line is "path c1..cD k1..kD"
(bias 1/2 sum_d k_d (x_d - c_d)^2, ENERGY per unit^2); each time-series
line "time x1..xD".  One -b per axis; ":p" makes an axis periodic (minimum
image in the bias), as fek's histogram -b does (a negative lo must be
attached: --bins=-3.14:3.14:200:p).

The solve is pymbar's own: MBAR(u_kn, N_k) with its default protocol (the
adaptive Newton / self-consistent solver of pymbar 3) and solver_tolerance
= --tol (pymbar's test: max relative change of the f_k).  The PMF is then
-kT ln of the summed unbiased MBAR weights per bin: what computePMF returns,
without its uncertainty matrices, which for 1000 bins would not fit in
memory (N x (K + bins) doubles).  Prints on stdout one "key value" per line:
K, N, read_s, build_s, solve_s, pmf_s, iterations (adaptive iterations,
counted as calls of the self-consistent update, one per iteration) and
grad_norm.  PMF.txt: plain columns x1..xD F (in ENERGY), inf where a bin
has no sample, rows in fek's order (last axis fastest).
"""
import argparse
import sys
import time

import numpy as np

KB = {"kJ": 0.0083144626181532, "kcal": 0.0019872042586408}  # CODATA 2018, per mol


def grid(spec):
    f = spec.split(":")
    if len(f) not in (3, 4) or (len(f) == 4 and f[3] != "p"):
        raise argparse.ArgumentTypeError("bad -b %r: want lo:hi:n[:p]" % spec)
    return float(f[0]), float(f[1]), int(f[2]), len(f) == 4


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-m", dest="meta", required=True)
    ap.add_argument("-t", dest="temp", type=float, default=300.0)
    ap.add_argument("-E", dest="energy", choices=sorted(KB), default="kJ")
    ap.add_argument("-b", "--bins", dest="grids", type=grid, action="append", required=True,
                    help="lo:hi:n[:p]; write --bins=LO:... when lo is negative")
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("-o", dest="out", required=True)
    a = ap.parse_args()
    try:
        import pymbar
        from pymbar import mbar_solvers
    except ImportError as e:
        print("mbar.py: cannot import pymbar (%s); run /usr/bin/python3, "
              "scripts/install-deps bench" % e, file=sys.stderr)
        return 69
    from scipy.special import logsumexp

    D = len(a.grids)
    kT = KB[a.energy] * a.temp
    t0 = time.time()
    centres, springs, xs = [], [], []
    with open(a.meta) as fh:
        for line in fh:
            w = line.split("#")[0].split()
            if not w:
                continue
            centres.append([float(v) for v in w[1:1 + D]])
            springs.append([float(v) for v in w[1 + D:1 + 2 * D]])
            x = np.loadtxt(w[0], comments=("#", "@"), usecols=range(1, 1 + D), ndmin=2)
            xs.append(x)
    N_k = np.array([len(x) for x in xs])
    x_n = np.concatenate(xs)
    c = np.array(centres)
    k = np.array(springs)
    K, N = len(N_k), len(x_n)
    t1 = time.time()

    # reduced bias of every sample in every window: u_kn (K x N)
    u_kn = np.zeros((K, N))
    for d, (lo, hi, n, per) in enumerate(a.grids):
        dx = x_n[None, :, d] - c[:, d, None]
        if per:
            L = hi - lo
            dx -= L * np.round(dx / L)
        u_kn += 0.5 * k[:, d, None] * dx * dx / kT
    t2 = time.time()

    # count the adaptive solver's iterations (one self-consistent update each)
    calls = {"sc": 0}
    sc = mbar_solvers.self_consistent_update

    def counted(*args, **kw):
        calls["sc"] += 1
        return sc(*args, **kw)

    mbar_solvers.self_consistent_update = counted
    m = pymbar.MBAR(u_kn, N_k, solver_tolerance=a.tol)
    t3 = time.time()
    f_k = m.f_k
    g = mbar_solvers.mbar_gradient(u_kn, N_k, f_k)

    # PMF: unbiased weight of each sample, summed per bin
    logw = -logsumexp(f_k[:, None] - u_kn, b=N_k[:, None], axis=0)
    idx = np.zeros(N, dtype=np.int64)
    shape = []
    for d, (lo, hi, n, per) in enumerate(a.grids):
        x = x_n[:, d]
        if per:
            x = lo + np.mod(x - lo, hi - lo)
        i = np.floor((x - lo) / (hi - lo) * n).astype(np.int64)
        i = np.clip(i, 0, n - 1)
        idx = idx * n + i
        shape.append(n)
    B = int(np.prod(shape))
    lse = np.full(B, -np.inf)
    order = np.argsort(idx, kind="stable")
    sidx, slw = idx[order], logw[order]
    starts = np.flatnonzero(np.r_[True, sidx[1:] != sidx[:-1]])
    mx = np.maximum.reduceat(slw, starts)
    s = np.add.reduceat(np.exp(slw - np.repeat(mx, np.diff(np.r_[starts, len(slw)]))), starts)
    lse[sidx[starts]] = mx + np.log(s)
    F = -kT * lse
    F -= F[np.isfinite(F)].min()
    t4 = time.time()

    axes = [lo + (np.arange(n) + 0.5) * (hi - lo) / n for lo, hi, n, per in a.grids]
    mesh = np.meshgrid(*axes, indexing="ij")
    cols = [mm.ravel() for mm in mesh] + [F]
    np.savetxt(a.out, np.column_stack(cols), fmt="%.17g")

    print("K", K)
    print("N", N)
    print("read_s %.3f" % (t1 - t0))
    print("build_s %.3f" % (t2 - t1))
    print("solve_s %.3f" % (t3 - t2))
    print("pmf_s %.3f" % (t4 - t3))
    print("iterations", calls["sc"])
    print("grad_norm %.3g" % np.linalg.norm(g))
    return 0


if __name__ == "__main__":
    sys.exit(main())
