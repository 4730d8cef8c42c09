#!/usr/bin/env python3
"""openmm_series.py - OpenMM as the independent engine of a long unbiased
run (issue 26): R replicas of a molecule read from GROMACS files, each from
the .gro file's configuration with Maxwell-Boltzmann velocities of its own,
and the dihedral angles named sampled every E steps, written as a fek(5)
text `samples` section, the form md-gpu --top -R --dihedral writes, so that
fpt-count(1) and histogram(1) read both engines' series alike.

    python3 openmm_series.py --top T.top --gro C.gro [--include-dir D]
        --dihedral NAME=i,j,k,l [--replicas R] [--steps N] [--every E]
        [--skip S] [--dt FS] [--temperature K] [--friction PER_PS]
        [--cutoff NM] [--seed SEED] [--platform CPU|CUDA|OpenCL|Reference]

Settings, those of md-gpu --top with an .mdp of integrator = sd,
constraints = h-bonds and coulombtype = Cut-off (GROMACS's reaction field
with epsilon-rf 1): LangevinMiddleIntegrator (the splitting md-gpu's
Langevin follows) at --temperature (300 K), --friction (1/ps), --dt (2 fs);
bonds to hydrogen constrained; CutoffPeriodic at --cutoff (1.0 nm) with
setReactionFieldDielectric(1.0), so that the Coulomb pair is
q_i q_j / (4 pi eps0) (1/r - 1/rc), md-gpu's and GROMACS's; Lennard-Jones
cut there without a shift (the forces are the same; OpenMM has no shift).
The dihedral: atoms numbered from 1, the IUPAC angle in degrees in
(-180, 180], as md-gpu --dihedral.  Samples at steps S, S + E, ... up to N
of each replica (md-gpu's -e, --skip, -n).  Units: nm, ps, kJ/mol.
"""
import argparse
import math
import sys

import openmm
import openmm.app as app
import openmm.unit as u


def dihedral(p, a):
    """The IUPAC dihedral of atoms a (0-based) at positions p (nm), deg."""
    x = [p[i] for i in a]
    b1 = [x[1][k] - x[0][k] for k in range(3)]
    b2 = [x[2][k] - x[1][k] for k in range(3)]
    b3 = [x[3][k] - x[2][k] for k in range(3)]

    def cross(v, w):
        return [v[1] * w[2] - v[2] * w[1], v[2] * w[0] - v[0] * w[2],
                v[0] * w[1] - v[1] * w[0]]

    def dot(v, w):
        return sum(v[k] * w[k] for k in range(3))
    n1 = cross(b1, b2)
    n2 = cross(b2, b3)
    nb2 = math.sqrt(dot(b2, b2))
    return math.degrees(math.atan2(nb2 * dot(b1, n2), dot(n1, n2)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", required=True)
    ap.add_argument("--gro", required=True)
    ap.add_argument("--include-dir", default="/usr/share/gromacs/top")
    ap.add_argument("--dihedral", action="append", required=True)
    ap.add_argument("--replicas", type=int, default=1)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--dt", type=float, default=2.0)
    ap.add_argument("--temperature", type=float, default=300.0)
    ap.add_argument("--friction", type=float, default=1.0)
    ap.add_argument("--cutoff", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--platform", default="CPU")
    a = ap.parse_args()

    names, atoms = [], []
    for d in a.dihedral:
        name, _, ids = d.partition("=")
        idx = [int(s) - 1 for s in ids.split(",")]
        if len(idx) != 4 or not name:
            sys.exit("openmm_series.py: --dihedral NAME=i,j,k,l: %s" % d)
        names.append(name)
        atoms.append(idx)
    gro = app.GromacsGroFile(a.gro)
    top = app.GromacsTopFile(a.top, periodicBoxVectors=gro.getPeriodicBoxVectors(),
                             includeDir=a.include_dir)
    system = top.createSystem(nonbondedMethod=app.CutoffPeriodic,
                              nonbondedCutoff=a.cutoff * u.nanometer,
                              constraints=app.HBonds)
    for f in system.getForces():
        if isinstance(f, openmm.NonbondedForce):
            f.setReactionFieldDielectric(1.0)
            f.setUseDispersionCorrection(False)
    platform = openmm.Platform.getPlatformByName(a.platform)
    series = [[] for _ in names]
    for r in range(a.replicas):
        integ = openmm.LangevinMiddleIntegrator(
            a.temperature * u.kelvin, a.friction / u.picosecond,
            a.dt * u.femtosecond)
        integ.setRandomNumberSeed(a.seed * 100003 + r + 1)
        ctx = openmm.Context(system, integ, platform)
        ctx.setPositions(gro.positions)
        ctx.setVelocitiesToTemperature(a.temperature * u.kelvin,
                                       a.seed * 7919 + r + 1)
        step = 0
        while step <= a.steps:
            if step >= a.skip and (step - a.skip) % a.every == 0:
                # Vec3s, which index as tuples
                p = ctx.getState(getPositions=True).getPositions(
                    ).value_in_unit(u.nanometer)
                for k, at in enumerate(atoms):
                    series[k].append(dihedral(p, at))
            nxt = a.every if step >= a.skip else a.skip - step
            if step + nxt > a.steps:
                break
            integ.step(nxt)
            step += nxt
        del ctx, integ
    n = len(series[0])
    out = sys.stdout
    out.write("#FEK 1\n#KIND samples\n#ROWS %d\n" % n)
    for name in names:
        out.write("#COL %s f64 deg\n" % name)
    for name in names:
        out.write("#AXIS %s -180 180 periodic deg\n" % name)
    out.write("#TEMP %.17g\n#REPLICAS %d\n#INTEGRATOR langevin\n"
              "#TIMESTEP %.17g ps\n#SAMPLING %d %d\n" %
              (a.temperature, a.replicas, a.dt / 1000, a.skip, a.every))
    out.write("#PROV openmm_series.py (OpenMM %s, %s) %s\n#END\n" %
              (openmm.version.version, a.platform, " ".join(sys.argv[1:])))
    for i in range(n):
        out.write(" ".join("%.17g" % s[i] for s in series) + "\n")


if __name__ == "__main__":
    main()
