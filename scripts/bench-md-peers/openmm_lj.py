#!/usr/bin/env python3
"""openmm_lj.py - OpenMM peer of the GPU Lennard-Jones MD engine: HOOMD-blue's
"MDPairLJ" benchmark system run through OpenMM (CUDA platform by default).

    python3 openmm_lj.py [--n N] [--rho RHO] [--steps S] [--warmup W]
                         [--repeat R] [--platform CUDA|OpenCL|CPU|Reference]
                         [--precision mixed|single|double]
                         [--integrator nosehoover|langevin]
                         [--force nonbonded|custom] [--seed SEED]
                         [--device-index I] [--nh-chain C --nh-mts M --nh-ys Y]

The system (HOOMD-blue's hoomd_benchmarks/md_pair_lj.py with md_pair.py's
defaults): N particles (default 64000 = 40^3) at number density 1.0,
Lennard-Jones epsilon = sigma = 1, cutoff 2.5 with plain truncation (HOOMD
mode 'none': no shift, no switching, no tail correction), time step 0.005,
NVT at kT = 1.2 with a Nose-Hoover thermostat of time constant 0.5.

Reduced units onto OpenMM's: sigma = 1 nm, epsilon = 1 kJ/mol, m = 1 amu,
so tau = sqrt(m sigma^2 / epsilon) = 1 ps, dt = 0.005 ps and
T = 1.2 / R K with R = MOLAR_GAS_CONSTANT_R in kJ/mol/K (about 144.3 K).

Differences from HOOMD's run that remain:
  * start: a simple cubic lattice (spacing rho^-1/3) with Maxwell-Boltzmann
    velocities from setVelocitiesToTemperature; HOOMD starts from a
    compressed hard-sphere fluid (its cached GSD).  The warm-up steps melt
    the lattice before timing.
  * neighbour list: OpenMM exposes no buffer/skin.  Its CUDA platform pads
    the cutoff by 8% (0.2 sigma at rc = 2.5; OpenCL pads 10%) when it builds
    its 32-atom-tile list and rebuilds when any atom has moved more than half
    the padding since the last build; HOOMD's cell list uses a buffer of 0.4
    and checks every step (rebuild_check_delay 1).
  * thermostat: NoseHooverIntegrator (a leapfrog-middle scheme with a
    Nose-Hoover chain, collision frequency 1/tau_T = 2/ps; OpenMM's default
    chain of 3 with 3 multiple time steps and 7 Yoshida-Suzuki weights,
    --nh-chain/--nh-mts/--nh-ys 1 1 1 give a single thermostat like HOOMD's
    MTTK NVT).  --integrator langevin uses LangevinMiddleIntegrator with
    friction 1/ps instead.
  * no centre-of-mass motion remover (HOOMD has none either); the
    temperature reported counts 3N degrees of freedom.

Force path: NonbondedForce, CutoffPeriodic, all charges 0 (default).  With
every charge zero OpenMM compiles the kernel without the Coulomb term, so
this is the standard, hand-written LJ path; --force custom runs the same
potential through CustomNonbondedForce (expression compiled at run time)
for comparison.

Timing: time.perf_counter() around integrator.step(steps) followed by
context.getState(getEnergy=True), which waits for the GPU.  Context creation
(and with it the NVRTC kernel compilation) and the warm-up steps are outside
the timed region.  The last line printed is

  OPENMM_LJ N=.. platform=.. precision=.. integrator=.. steps_per_s=..
            ns_per_day_equiv=.. T=.. U/N=..

with steps_per_s the median over --repeat timed runs, ns_per_day_equiv
that rate in ns/day under the mapping above (tau = 1 ps), T the
instantaneous reduced temperature and U/N the reduced potential energy per
particle at the end.  Lines before it start with '#'.

Exit status: 0 on success, 64 on bad arguments, 69 when openmm cannot be
imported or the platform asked for is missing (one line on stderr).
"""

import argparse
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from openmm_peer import open_platform  # noqa: E402

EX_USAGE = 64
EX_UNAVAILABLE = 69


def die(code, msg):
    print(f"openmm_lj: {msg}", file=sys.stderr)
    sys.exit(code)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="OpenMM Lennard-Jones benchmark (HOOMD MDPairLJ system)")
    p.add_argument("--n", type=int, default=64000,
                   help="number of particles, a perfect cube (default 64000)")
    p.add_argument("--rho", type=float, default=1.0,
                   help="number density in sigma^-3 (default 1.0)")
    p.add_argument("--steps", type=int, default=5000,
                   help="timed steps per repeat (default 5000)")
    p.add_argument("--warmup", type=int, default=1000,
                   help="untimed steps first (default 1000)")
    p.add_argument("--repeat", type=int, default=1,
                   help="timed runs; the median rate is reported (default 1)")
    p.add_argument("--platform", default="CUDA",
                   choices=["CUDA", "OpenCL", "CPU", "Reference", "HIP"],
                   help="OpenMM platform (default CUDA)")
    p.add_argument("--precision", default="mixed",
                   choices=["mixed", "single", "double"],
                   help="CUDA/OpenCL/HIP precision (default mixed)")
    p.add_argument("--integrator", default="nosehoover",
                   choices=["nosehoover", "langevin"],
                   help="NoseHooverIntegrator (default, 2/ps) or "
                        "LangevinMiddleIntegrator (friction 1/ps)")
    p.add_argument("--force", default="nonbonded",
                   choices=["nonbonded", "custom"],
                   help="NonbondedForce with zero charges (default) or "
                        "CustomNonbondedForce")
    p.add_argument("--seed", type=int, default=1,
                   help="seed for velocities and the Langevin noise "
                        "(default 1; 0 lets OpenMM pick)")
    p.add_argument("--device-index", default=None,
                   help="DeviceIndex property for CUDA/OpenCL/HIP")
    p.add_argument("--nh-chain", type=int, default=3,
                   help="Nose-Hoover chain length (default 3, OpenMM's)")
    p.add_argument("--nh-mts", type=int, default=3,
                   help="Nose-Hoover multiple time steps (default 3)")
    p.add_argument("--nh-ys", type=int, default=7, choices=[1, 3, 5, 7],
                   help="Yoshida-Suzuki weights (default 7)")
    a = p.parse_args(argv)
    k = round(a.n ** (1.0 / 3.0))
    if a.n <= 0 or k ** 3 != a.n:
        die(EX_USAGE, f"--n {a.n} is not a positive perfect cube")
    if a.rho <= 0 or a.steps <= 0 or a.warmup < 0 or a.repeat <= 0:
        die(EX_USAGE, "--rho, --steps and --repeat must be > 0, --warmup >= 0")
    if a.nh_chain < 1 or a.nh_mts < 1:
        die(EX_USAGE, "--nh-chain and --nh-mts must be >= 1")
    a.k = k
    return a


def build_system(mm, unit, a):
    n, k = a.n, a.k
    edge = (n / a.rho) ** (1.0 / 3.0)            # nm (sigma = 1 nm)
    spacing = edge / k
    rc = 2.5
    if edge < 2.0 * rc:
        die(EX_USAGE, f"box edge {edge:.3f} is below twice the cutoff {rc}")

    system = mm.System()
    system.setDefaultPeriodicBoxVectors(mm.Vec3(edge, 0, 0),
                                        mm.Vec3(0, edge, 0),
                                        mm.Vec3(0, 0, edge))
    for _ in range(n):
        system.addParticle(1.0)                  # amu

    if a.force == "nonbonded":
        f = mm.NonbondedForce()
        f.setNonbondedMethod(mm.NonbondedForce.CutoffPeriodic)
        f.setCutoffDistance(rc)
        f.setUseSwitchingFunction(False)
        f.setUseDispersionCorrection(False)
        for _ in range(n):
            f.addParticle(0.0, 1.0, 1.0)         # charge, sigma nm, eps kJ/mol
        desc = ("NonbondedForce CutoffPeriodic, charges 0 (no Coulomb term), "
                "rc=2.5, no switching, no dispersion correction")
    else:
        f = mm.CustomNonbondedForce(
            "4*(ir6*ir6-ir6); ir6=ir2*ir2*ir2; ir2=1/(r*r)")
        f.setNonbondedMethod(mm.CustomNonbondedForce.CutoffPeriodic)
        f.setCutoffDistance(rc)
        f.setUseSwitchingFunction(False)
        f.setUseLongRangeCorrection(False)
        for _ in range(n):
            f.addParticle([])
        desc = ("CustomNonbondedForce 4*(r^-12-r^-6) CutoffPeriodic, rc=2.5, "
                "no switching, no long-range correction")
    system.addForce(f)

    import numpy as np
    g = (np.arange(k) + 0.5) * spacing
    x, y, z = np.meshgrid(g, g, g, indexing="ij")
    pos = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)
    return system, pos * unit.nanometer, edge, desc


def make_integrator(mm, unit, a, temperature):
    dt = 0.005 * unit.picoseconds
    if a.integrator == "nosehoover":
        integ = mm.NoseHooverIntegrator(temperature, 2.0 / unit.picosecond, dt,
                                        a.nh_chain, a.nh_mts, a.nh_ys)
        desc = (f"NoseHooverIntegrator collision 2/ps (tau_T 0.5), chain "
                f"{a.nh_chain}, mts {a.nh_mts}, ys {a.nh_ys}")
    else:
        integ = mm.LangevinMiddleIntegrator(temperature, 1.0 / unit.picosecond,
                                            dt)
        integ.setRandomNumberSeed(a.seed)
        desc = "LangevinMiddleIntegrator friction 1/ps"
    return integ, desc


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)

    mm, platform, props, precision, preloaded = open_platform(
        a.platform, a.precision, a.device_index, "OPENMM_LJ_NO_PRELOAD", die)
    from openmm import unit

    R = unit.MOLAR_GAS_CONSTANT_R.value_in_unit(
        unit.kilojoule_per_mole / unit.kelvin)
    kT = 1.2
    temperature = (kT / R) * unit.kelvin

    system, positions, edge, force_desc = build_system(mm, unit, a)
    integrator, integ_desc = make_integrator(mm, unit, a, temperature)

    t0 = time.perf_counter()
    try:
        context = mm.Context(system, integrator, platform, props)
    except Exception as e:  # OpenMMException: no device, driver too old ...
        msg = str(e).replace("\n", " ")
        die(EX_UNAVAILABLE, f"cannot create a {a.platform} context: {msg}")
    context.setPositions(positions)
    if a.seed:
        context.setVelocitiesToTemperature(temperature, a.seed)
    else:
        context.setVelocitiesToTemperature(temperature)
    context.getState(getEnergy=True)
    t_setup = time.perf_counter() - t0

    device = ""
    for key in ("DeviceName",):
        if key in platform.getPropertyNames():
            try:
                device = platform.getPropertyValue(context, key)
            except Exception:
                pass
    if not device and a.platform == "CPU":
        try:
            device = f"CPU, {platform.getPropertyValue(context, 'Threads')} threads"
        except Exception:
            device = "CPU"

    n = a.n
    dof = 3 * n          # no constraints, no CMMotionRemover

    def reduced(state):
        ke = state.getKineticEnergy().value_in_unit(unit.kilojoule_per_mole)
        pe = state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
        return 2.0 * ke / dof, pe / n     # epsilon = 1 kJ/mol

    T0, u0 = reduced(context.getState(getEnergy=True))
    print(f"# openmm {mm.__version__} platform {a.platform} "
          f"device {device or '?'} precision {precision}")
    print(f"# N={n} ({a.k}^3 simple cubic) rho={a.rho:g} box={edge:.6g} "
          f"dt=0.005 kT={kT} (T={temperature.value_in_unit(unit.kelvin):.4f} K, "
          f"R={R:.10g} kJ/mol/K)")
    print(f"# force: {force_desc}")
    if a.platform == "CUDA":
        print("# neighbour list: OpenMM internal (CUDA: cutoff padded 8% = 0.2, "
              "rebuilt when an atom moves > 0.1); no skin setting")
    print(f"# integrator: {integ_desc}, no CMMotionRemover")
    if preloaded:
        print(f"# preloaded: {' '.join(preloaded)}")
    print(f"# setup (context + kernel compilation) {t_setup:.3f} s; "
          f"start T={T0:.4f} U/N={u0:.4f}")
    sys.stdout.flush()

    if a.warmup:
        t0 = time.perf_counter()
        integrator.step(a.warmup)
        Tw, uw = reduced(context.getState(getEnergy=True))
        tw = time.perf_counter() - t0
        print(f"# warmup {a.warmup} steps {tw:.3f} s "
              f"({a.warmup / tw:.1f} steps/s) T={Tw:.4f} U/N={uw:.4f}")
        sys.stdout.flush()

    rates = []
    state = None
    for r in range(a.repeat):
        t0 = time.perf_counter()
        integrator.step(a.steps)
        state = context.getState(getEnergy=True)
        dt_wall = time.perf_counter() - t0
        rates.append(a.steps / dt_wall)
        Tr, ur = reduced(state)
        print(f"# run {r + 1}/{a.repeat}: {a.steps} steps {dt_wall:.4f} s "
              f"{rates[-1]:.2f} steps/s T={Tr:.4f} U/N={ur:.4f}")
        sys.stdout.flush()

    rate = statistics.median(rates)
    T, u = reduced(state)
    if not (math.isfinite(T) and math.isfinite(u)):
        print("# WARNING: non-finite energy: the run blew up", file=sys.stderr)
    ns_day = rate * 0.005 * 86400.0 / 1000.0    # dt = 0.005 ps
    print(f"OPENMM_LJ N={n} platform={a.platform} precision={precision} "
          f"integrator={a.integrator} steps_per_s={rate:.2f} "
          f"ns_per_day_equiv={ns_day:.2f} T={T:.4f} U/N={u:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
