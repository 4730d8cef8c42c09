#!/usr/bin/python3
# make-expected.py: the work-value test sets of tests/bar-solve.sh and
# pymbar's answers for them (Debian python3-pymbar 3.1.0, run by
# /usr/bin/python3).  Writes NAME-F.txt, NAME-R.txt (forward and reverse
# work values in kT, %.17g, one per line) and expected.txt (one line per
# set: name, then pymbar.BAR's DeltaF and dDeltaF (uncertainty_method
# 'BAR'), pymbar.EXP(w_F)'s DeltaF and dDeltaF, and -pymbar.EXP(w_R)'s
# DeltaF and dDeltaF, the reverse estimate of F_B - F_A).
#
#   cd testdata/bar-solve && /usr/bin/python3 make-expected.py
#
# The data come from NumPy's legacy RandomState with the seeds below, so a
# rerun writes the same files; the expected values are pymbar's, never
# bar-solve's.
import subprocess

import numpy as np
import pymbar
from pymbar import testsystems


def gauss(seed, dF, sigma, nF, nR):
    """Gaussian work obeying Crooks' relation: w_F ~ N(dF + s^2/2, s^2),
    w_R ~ N(-dF + s^2/2, s^2)."""
    r = np.random.RandomState(seed)
    return (r.normal(dF + sigma**2 / 2, sigma, nF),
            r.normal(-dF + sigma**2 / 2, sigma, nR))


def gamma(seed):
    """Work values that are not Gaussian (no closed form; BAR is defined)."""
    r = np.random.RandomState(seed)
    return r.gamma(3.0, 1.0, 700), 1.0 - r.gamma(2.0, 1.0, 350)


sets = [
    # pymbar's own doctest data: testsystems.gaussian_work_example
    ("pymbar-gaussian",
     testsystems.gaussian_work_example(mu_F=None, DeltaF=1.0, seed=0)),
    ("gauss-s2", gauss(11, 3.0, 2.0, 500, 300)),
    ("gauss-s05", gauss(12, -2.0, 0.5, 1000, 1000)),
    ("gauss-big", gauss(13, 1000.0, 2.0, 400, 400)),
    ("gamma", gamma(14)),
    ("tiny", gauss(15, 0.5, 1.0, 5, 7)),
]

with open("expected.txt", "w") as out:
    try:
        ver = subprocess.run(["dpkg-query", "-W", "-f=${Version}",
                              "python3-pymbar"], capture_output=True,
                             text=True).stdout or "?"
    except OSError:
        ver = "?"
    out.write("# name BAR dBAR EXP_F dEXP_F EXP_R dEXP_R (kT; Debian "
              "python3-pymbar %s)\n" % ver)
    for name, (wF, wR) in sets:
        for suffix, w in (("F", wF), ("R", wR)):
            with open("%s-%s.txt" % (name, suffix), "w") as f:
                f.write("".join("%.17g\n" % v for v in w))
        wF = np.loadtxt("%s-F.txt" % name, ndmin=1)
        wR = np.loadtxt("%s-R.txt" % name, ndmin=1)
        b, db = pymbar.BAR(wF, wR)
        ef, def_ = pymbar.EXP(wF)
        er, der = pymbar.EXP(wR)
        out.write("%s %.17g %.17g %.17g %.17g %.17g %.17g\n"
                  % (name, b, db, ef, def_, -er, der))
