#!/usr/bin/env python3
"""openmm_mm.py - OpenMM peer of md-gpu --top (issue 16, md-gpu III): times
OpenMM on a molecular system read from GROMACS or AMBER files.

    python3 openmm_mm.py (--top T.top --gro C.gro [--include-dir D]
                          | --prmtop P.prmtop (--inpcrd C.inpcrd | --gro C.gro))
                         [--name NAME] [--platform CUDA|OpenCL|CPU|Reference]
                         [--precision mixed|single|double]
                         [--nonbonded pme|cutoff] [--cutoff NM]
                         [--ewald-tol TOL] [--pme-params ALPHA,NX,NY,NZ]
                         [--dispcorr auto|yes|no] [--constraints hbonds|none]
                         [--dt FS] [--temperature K] [--friction PER_PS]
                         [--steps S] [--warmup W] [--contexts K] [--seed SEED]
                         [--device-index I] [--terms] [--no-cmm]

The system:
  * --top/--gro: a GROMACS topology read by openmm.app.GromacsTopFile, with
    the box of the .gro file (GromacsGroFile).  On a machine without GROMACS
    use the self-contained topology of 'gmx grompp -pp' (no #include); an
    ordinary .top needs --include-dir (e.g. /usr/share/gromacs/top).
  * --prmtop/--inpcrd: AMBER files read by openmm.app.AmberPrmtopFile and
    AmberInpcrdFile (an ASCII inpcrd/rst7; a NetCDF restart needs scipy).
    --prmtop with --gro takes the coordinates and box from a .gro file
    instead (the same coordinates md-gpu --rerun reads).

Settings (createSystem):
  * --nonbonded pme (default): PME, cutoff 0.9 nm, ewaldErrorTolerance 5e-4
    (OpenMM picks alpha and the grid from it; --pme-params ALPHA,NX,NY,NZ
    sets them instead, alpha in 1/nm, as setPMEParameters).  OpenMM's PME
    uses 5th-order B-splines (GROMACS pme-order 5, not its default 4).
  * --nonbonded cutoff: CutoffPeriodic, cutoff 1.0 nm, with
    setReactionFieldDielectric(1.0), so the Coulomb term is
    q_i q_j / (4 pi eps0) (1/r - 1/rc): the shifted plain cut-off of
    GROMACS's Verlet scheme (coulombtype = Cut-off = reaction field with
    epsilon-rf 1).  Lennard-Jones is cut at rc WITHOUT the potential shift
    GROMACS's Verlet scheme applies by default (vdw-modifier =
    Potential-shift): OpenMM's NonbondedForce has no LJ shift.  No switch.
  * --dispcorr: the isotropic long-range dispersion correction
    (useDispersionCorrection; GROMACS DispCorr = EnerPres).  auto (default):
    yes for --prmtop (OpenMM's AMBER default), no for --top (GROMACS's
    default DispCorr = no).
  * --constraints hbonds (default): bonds to hydrogen constrained (they then
    have no bond energy); none: flexible.  Waters are rigid in both
    (rigidWater=True).  1-4 pairs, exclusions and combination rules as the
    files give them.
  * LangevinMiddleIntegrator, 300 K, friction 1/ps, --dt 2 fs.  OpenMM's
    CMMotionRemover (every step) unless --no-cmm.

Units: nm, ps, kJ/mol (OpenMM's); --dt in fs.  ns/day = steps * dt / wall
time, scaled to a day.

Contexts: --contexts K builds K independent Contexts of the same System on
the same platform, one after the other (each with its own integrator; all K
stay alive), then runs --warmup and --steps on each in turn.  This is what
K independent copies of a small molecule cost OpenMM on one GPU, against
md-gpu's replicas in one launch.  Reported:
  ns_per_day              median over contexts of steps*dt / t_run(context)
  aggregate_ns_per_day    molecule-ns/day = K*steps*dt / sum of t_run
                          (context creation and warm-up excluded)
  aggregate_ns_per_day_incl_setup
                          K*steps*dt / (creation + warm-up + run), all K
Timing: time.perf_counter() around integrator.step(steps) followed by one
context.getState(getPositions=True) (a blocking download, so the GPU has
finished; no energy is computed).  Context creation (which includes NVRTC
kernel compilation on CUDA/OpenCL) is timed on its own.

E0 is the potential energy of the input coordinates (before any
constraint is applied), kJ/mol, from the first context, for a sanity check
against 'md-gpu --rerun' (which does not constrain either).  --terms also
prints a per-term breakdown of E0 in GROMACS's terms (bonds, angles,
torsions, LJ-14, Coulomb-14, LJ (SR), Disper. corr., Coulomb (SR) +
recip.), computed from copies of the System with charges or LJ zeroed;
with --steps 0 nothing is run (energy only).

The last line printed is the result:

  OPENMM_MM system=.. atoms=.. platform=.. precision=.. nonbonded=..
            cutoff_nm=.. dispcorr=.. constraints=.. dt_fs=.. contexts=..
            steps=.. ns_per_day=.. aggregate_ns_per_day=..
            aggregate_ns_per_day_incl_setup=.. create_s=.. E0=..

(create_s: the creation time of all contexts together).  Lines before it
start with '#' (the --terms table too).

Exit status: 0 on success, 64 on bad arguments, 69 when openmm cannot be
imported or the platform asked for is missing (one line on stderr), 70 when
a run gives a non-finite energy.
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
EX_SOFTWARE = 70


def die(code, msg):
    print(f"openmm_mm: {msg}", file=sys.stderr)
    sys.exit(code)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="OpenMM molecular-system benchmark (peer of md-gpu --top)")
    g = p.add_argument_group("input (GROMACS or AMBER)")
    g.add_argument("--top", help="GROMACS topology (.top; grompp -pp output "
                   "needs no GROMACS installation)")
    g.add_argument("--gro", help="GROMACS coordinates with the box (.gro); "
                   "with --prmtop, instead of --inpcrd")
    g.add_argument("--include-dir", default=None,
                   help="GROMACS include directory for a .top with #include "
                        "(e.g. /usr/share/gromacs/top)")
    g.add_argument("--prmtop", help="AMBER topology (.prmtop)")
    g.add_argument("--inpcrd", help="AMBER coordinates (.inpcrd/.rst7)")
    p.add_argument("--name", default=None,
                   help="system label in the result line (default: the "
                        "topology's file name without extension)")
    p.add_argument("--platform", default="CUDA",
                   choices=["CUDA", "OpenCL", "CPU", "Reference", "HIP"],
                   help="OpenMM platform (default CUDA)")
    p.add_argument("--precision", default="mixed",
                   choices=["mixed", "single", "double"],
                   help="CUDA/OpenCL/HIP precision (default mixed)")
    p.add_argument("--nonbonded", default="pme", choices=["pme", "cutoff"],
                   help="PME (default) or CutoffPeriodic with "
                        "reaction-field dielectric 1")
    p.add_argument("--cutoff", type=float, default=None,
                   help="cutoff in nm (default 0.9 for pme, 1.0 for cutoff)")
    p.add_argument("--ewald-tol", type=float, default=5e-4,
                   help="ewaldErrorTolerance for PME (default 5e-4)")
    p.add_argument("--pme-params", default=None,
                   help="ALPHA,NX,NY,NZ: PME splitting (1/nm) and grid, "
                        "instead of the tolerance's choice")
    p.add_argument("--dispcorr", default="auto", choices=["auto", "yes", "no"],
                   help="dispersion correction (auto: yes for prmtop, no "
                        "for top)")
    p.add_argument("--constraints", default="hbonds",
                   choices=["hbonds", "none"],
                   help="constrain bonds to H (default) or none; water is "
                        "always rigid")
    p.add_argument("--dt", type=float, default=2.0,
                   help="time step in fs (default 2)")
    p.add_argument("--temperature", type=float, default=300.0,
                   help="K (default 300)")
    p.add_argument("--friction", type=float, default=1.0,
                   help="Langevin friction in 1/ps (default 1)")
    p.add_argument("--steps", type=int, default=5000,
                   help="timed steps per context (default 5000; 0: energy "
                        "only)")
    p.add_argument("--warmup", type=int, default=500,
                   help="untimed steps per context first (default 500)")
    p.add_argument("--contexts", type=int, default=1,
                   help="independent contexts, run in sequence (default 1)")
    p.add_argument("--seed", type=int, default=1,
                   help="seed of velocities and Langevin noise (context k "
                        "gets seed+k; default 1; 0 lets OpenMM pick)")
    p.add_argument("--device-index", default=None,
                   help="DeviceIndex property for CUDA/OpenCL/HIP")
    p.add_argument("--terms", action="store_true",
                   help="print a per-term breakdown of E0 (GROMACS terms)")
    p.add_argument("--no-cmm", action="store_true",
                   help="no CMMotionRemover (removeCMMotion=False)")
    a = p.parse_args(argv)
    gmx = a.top is not None
    amb = a.prmtop is not None
    if gmx == amb or (gmx and (not a.gro or a.inpcrd)) or \
            (amb and (a.inpcrd is None) == (a.gro is None)):
        die(EX_USAGE, "give either --top and --gro or --prmtop and one of "
            "--inpcrd and --gro")
    for f in (a.top, a.gro, a.prmtop, a.inpcrd):
        if f is not None and not os.path.isfile(f):
            die(EX_USAGE, f"no such file: {f}")
    a.kind = "gromacs" if gmx else "amber"
    if a.cutoff is None:
        a.cutoff = 0.9 if a.nonbonded == "pme" else 1.0
    if a.dispcorr == "auto":
        a.dispcorr = "yes" if a.kind == "amber" else "no"
    if a.name is None:
        a.name = os.path.splitext(os.path.basename(a.top or a.prmtop))[0]
    if a.pme_params is not None:
        try:
            v = a.pme_params.split(",")
            a.pme_params = (float(v[0]), int(v[1]), int(v[2]), int(v[3]))
            if len(v) != 4:
                raise ValueError
        except (ValueError, IndexError):
            die(EX_USAGE, "--pme-params wants ALPHA,NX,NY,NZ")
    if a.cutoff <= 0 or a.dt <= 0 or a.steps < 0 or a.warmup < 0 or \
            a.contexts < 1 or a.ewald_tol <= 0:
        die(EX_USAGE, "--cutoff, --dt, --ewald-tol must be > 0, --steps and "
            "--warmup >= 0, --contexts >= 1")
    return a


def build_system(mm, app, unit, a):
    """Returns (system, positions, description)."""
    nm = unit.nanometer
    method = app.PME if a.nonbonded == "pme" else app.CutoffPeriodic
    cons = app.HBonds if a.constraints == "hbonds" else None
    kw = dict(nonbondedMethod=method, nonbondedCutoff=a.cutoff * nm,
              constraints=cons, rigidWater=True,
              ewaldErrorTolerance=a.ewald_tol,
              removeCMMotion=not a.no_cmm)
    if a.kind == "gromacs":
        gro = app.GromacsGroFile(a.gro)
        tkw = {"periodicBoxVectors": gro.getPeriodicBoxVectors()}
        if a.include_dir:
            tkw["includeDir"] = a.include_dir
        top = app.GromacsTopFile(a.top, **tkw)
        system = top.createSystem(
            useDispersionCorrection=(a.dispcorr == "yes"), **kw)
        positions = gro.getPositions()
        src = f"GromacsTopFile {a.top} + GromacsGroFile {a.gro}"
    else:
        prm = app.AmberPrmtopFile(a.prmtop)
        if a.inpcrd:
            crd = app.AmberInpcrdFile(a.inpcrd)
            src = f"AmberPrmtopFile {a.prmtop} + AmberInpcrdFile {a.inpcrd}"
        else:
            crd = app.GromacsGroFile(a.gro)
            src = f"AmberPrmtopFile {a.prmtop} + GromacsGroFile {a.gro}"
        system = prm.createSystem(**kw)
        positions = crd.getPositions()
        box = crd.getBoxVectors() if a.inpcrd else crd.getPeriodicBoxVectors()
        if box is not None:
            system.setDefaultPeriodicBoxVectors(*box)

    nb = [f for f in system.getForces() if isinstance(f, mm.NonbondedForce)]
    if len(nb) != 1:
        die(EX_USAGE, f"expected one NonbondedForce, found {len(nb)}")
    nb = nb[0]
    nb.setUseDispersionCorrection(a.dispcorr == "yes")
    nb.setUseSwitchingFunction(False)
    if a.nonbonded == "cutoff":
        nb.setReactionFieldDielectric(1.0)
        nbdesc = (f"CutoffPeriodic rc={a.cutoff:g} nm, reaction-field "
                  f"dielectric 1 (Coulomb 1/r - 1/rc), LJ unshifted")
    else:
        if a.pme_params is not None:
            nb.setPMEParameters(*a.pme_params)
        nbdesc = f"PME rc={a.cutoff:g} nm, ewaldErrorTolerance {a.ewald_tol:g}"
        if a.pme_params is not None:
            nbdesc += (" overridden: alpha=%g/nm grid %dx%dx%d"
                       % a.pme_params)
    nbdesc += f", dispersion correction {a.dispcorr}"
    return system, positions, src, nbdesc


def describe_pme(mm, nb, context):
    if nb.getNonbondedMethod() not in (mm.NonbondedForce.PME,):
        return ""
    try:
        alpha, nx, ny, nz = nb.getPMEParametersInContext(context)
        return f"PME in context: alpha={alpha:.6g}/nm grid {nx}x{ny}x{nz}"
    except Exception:
        return ""


def energy_terms(mm, unit, system, positions, platform, props):
    """E0 split into GROMACS's terms.  Bonded forces: each Force its own
    group.  NonbondedForce: copies of the System with charges and/or LJ
    zeroed (particles and exceptions), and with the dispersion correction
    off, of which only the NonbondedForce's groups are summed; reciprocal
    space in its own group.  Returns [(name, kJ/mol)]."""
    kj = unit.kilojoule_per_mole
    xml = mm.XmlSerializer.serialize(system)

    def energy(modify=None, groups=None):
        s = mm.XmlSerializer.deserialize(xml)
        for i, f in enumerate(s.getForces()):
            f.setForceGroup(i)
        nbi = [i for i, f in enumerate(s.getForces())
               if isinstance(f, mm.NonbondedForce)][0]
        nb = s.getForce(nbi)
        nb.setReciprocalSpaceForceGroup(31)
        if modify:
            modify(nb)
            groups = {"nb": {nbi, 31}}
        integ = mm.VerletIntegrator(0.001)
        c = mm.Context(s, integ, platform, props)
        c.setPositions(positions)
        out = {}
        for gname, gs in (groups or {"all": None}).items():
            st = c.getState(getEnergy=True, groups=gs) if gs is not None \
                else c.getState(getEnergy=True)
            out[gname] = st.getPotentialEnergy().value_in_unit(kj)
        del c, integ
        return out

    def zero(charges, lj, particles=True, disp=None):
        def f(nb):
            if particles:
                for i in range(nb.getNumParticles()):
                    q, sig, eps = nb.getParticleParameters(i)
                    nb.setParticleParameters(i, 0.0 if charges else q, sig,
                                             0.0 if lj else eps)
            for i in range(nb.getNumExceptions()):
                p1, p2, qq, sig, eps = nb.getExceptionParameters(i)
                nb.setExceptionParameters(i, p1, p2, 0.0 if charges else qq,
                                          sig, 0.0 if lj else eps)
            if disp is not None:
                nb.setUseDispersionCorrection(disp)
        return f

    def only14(charges):
        def f(nb):
            for i in range(nb.getNumParticles()):
                q, sig, eps = nb.getParticleParameters(i)
                nb.setParticleParameters(i, 0.0, sig, 0.0)
            nb.setUseDispersionCorrection(False)
            if charges:
                for i in range(nb.getNumExceptions()):
                    p1, p2, qq, sig, eps = nb.getExceptionParameters(i)
                    nb.setExceptionParameters(i, p1, p2, 0.0, sig, eps)
        return f

    groups = {"all": None, "recip": {31}}
    names = {}
    for i, f in enumerate(system.getForces()):
        if not isinstance(f, (mm.NonbondedForce, mm.CMMotionRemover)):
            groups[f"g{i}"] = {i}
            names[f"g{i}"] = type(f).__name__
    full = energy(groups=groups)
    lj_all = energy(zero(charges=True, lj=False))["nb"]        # sr+14+disp
    lj_nodisp = energy(zero(charges=True, lj=False, disp=False))["nb"]
    both14 = energy(only14(charges=False))["nb"]
    lj14 = energy(only14(charges=True))["nb"]
    coul14 = both14 - lj14
    disp = lj_all - lj_nodisp
    ljsr = lj_nodisp - lj14
    bonded = sum(full[k] for k in names)
    coul = full["all"] - bonded - lj_all - coul14             # sr + recip
    rows = [(names[k], full[k]) for k in names]
    rows += [("LJ-14", lj14), ("Coulomb-14", coul14), ("LJ (SR)", ljsr),
             ("Disper. corr.", disp), ("Coulomb (SR)+recip", coul),
             ("  of which recip. group", full["recip"]),
             ("Potential", full["all"])]
    return rows


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)

    mm, platform, props, precision, preloaded = open_platform(
        a.platform, a.precision, a.device_index, "OPENMM_MM_NO_PRELOAD", die)
    from openmm import app, unit

    system, positions, src, nbdesc = build_system(mm, app, unit, a)
    natoms = system.getNumParticles()
    ncons = system.getNumConstraints()
    temperature = a.temperature * unit.kelvin
    dt_ps = a.dt * 1e-3
    kj = unit.kilojoule_per_mole

    print(f"# openmm {mm.__version__} platform {a.platform} "
          f"precision {precision}")
    print(f"# system {a.name}: {src}")
    print(f"# {natoms} atoms, {ncons} constraints "
          f"({a.constraints}, rigid water), forces: "
          + " ".join(type(f).__name__ for f in system.getForces()))
    print(f"# nonbonded: {nbdesc}")
    print(f"# LangevinMiddleIntegrator {a.temperature:g} K friction "
          f"{a.friction:g}/ps dt {a.dt:g} fs; CMMotionRemover "
          f"{'no' if a.no_cmm else 'yes'}")
    if preloaded:
        print(f"# preloaded: {' '.join(preloaded)}")
    sys.stdout.flush()

    if a.terms:
        rows = energy_terms(mm, unit, system, positions, platform, props)
        print("# E0 terms (kJ/mol, input coordinates):")
        for name, e in rows:
            print(f"#   {name:24s} {e:.10g}")
        sys.stdout.flush()

    contexts = []
    create = []
    e0 = None
    for k in range(a.contexts):
        integ = mm.LangevinMiddleIntegrator(temperature,
                                            a.friction / unit.picosecond,
                                            dt_ps * unit.picoseconds)
        if a.seed:
            integ.setRandomNumberSeed(a.seed + k)
        t0 = time.perf_counter()
        try:
            ctx = mm.Context(system, integ, platform, props)
        except Exception as e:  # OpenMMException: no device, driver ...
            msg = str(e).replace("\n", " ")
            die(EX_UNAVAILABLE, f"cannot create a {a.platform} context: {msg}")
        ctx.setPositions(positions)
        e = ctx.getState(getEnergy=True).getPotentialEnergy() \
            .value_in_unit(kj)
        if a.seed:
            ctx.setVelocitiesToTemperature(temperature, a.seed + k)
        else:
            ctx.setVelocitiesToTemperature(temperature)
        ctx.getState(getPositions=True)
        create.append(time.perf_counter() - t0)
        if k == 0:
            e0 = e
            device = ""
            if "DeviceName" in platform.getPropertyNames():
                try:
                    device = platform.getPropertyValue(ctx, "DeviceName")
                except Exception:
                    pass
            if a.platform == "CPU":
                try:
                    device = ("CPU, " + platform.getPropertyValue(ctx, "Threads")
                              + " threads")
                except Exception:
                    pass
            pme = describe_pme(mm, [f for f in system.getForces()
                                    if isinstance(f, mm.NonbondedForce)][0],
                               ctx)
            print(f"# device {device or '?'}" + (f"; {pme}" if pme else ""))
            print(f"# context 1: created in {create[-1]:.3f} s, "
                  f"E0 = {e:.10g} kJ/mol")
            sys.stdout.flush()
        contexts.append((ctx, integ))
    if a.contexts > 1:
        print(f"# {a.contexts} contexts created in {sum(create):.3f} s "
              f"(first {create[0]:.3f} s, median "
              f"{statistics.median(create):.3f} s)")
        sys.stdout.flush()

    warm = []
    runs = []
    rates = []
    bad = False
    if a.steps > 0:
        for k, (ctx, integ) in enumerate(contexts):
            tw = 0.0
            if a.warmup:
                t0 = time.perf_counter()
                integ.step(a.warmup)
                ctx.getState(getPositions=True)
                tw = time.perf_counter() - t0
            t0 = time.perf_counter()
            integ.step(a.steps)
            ctx.getState(getPositions=True)
            tr = time.perf_counter() - t0
            warm.append(tw)
            runs.append(tr)
            rates.append(a.steps * dt_ps * 1e-3 / tr * 86400.0)
            if k == 0 or k == a.contexts - 1 or a.contexts <= 4:
                st = ctx.getState(getEnergy=True)
                pe = st.getPotentialEnergy().value_in_unit(kj)
                ke = st.getKineticEnergy().value_in_unit(kj)
                if not (math.isfinite(pe) and math.isfinite(ke)):
                    bad = True
                print(f"# context {k + 1}/{a.contexts}: warm-up {a.warmup} "
                      f"steps {tw:.3f} s, {a.steps} steps {tr:.4f} s "
                      f"({a.steps / tr:.1f} steps/s, {rates[-1]:.2f} ns/day)"
                      f" U={pe:.6g} K={ke:.6g} kJ/mol")
                sys.stdout.flush()
        tot_run = sum(runs)
        tot_all = sum(create) + sum(warm) + tot_run
        mol_ns = a.contexts * a.steps * dt_ps * 1e-3
        agg = mol_ns / tot_run * 86400.0
        agg_all = mol_ns / tot_all * 86400.0
        ns_day = statistics.median(rates)
        print(f"# per-context ns/day: min {min(rates):.2f} median "
              f"{ns_day:.2f} max {max(rates):.2f}; run {tot_run:.3f} s, "
              f"warm-up {sum(warm):.3f} s, creation {sum(create):.3f} s")
    else:
        ns_day = agg = agg_all = 0.0

    if bad:
        print("# WARNING: non-finite energy: the run blew up", file=sys.stderr)
    print(f"OPENMM_MM system={a.name} atoms={natoms} platform={a.platform} "
          f"precision={precision} nonbonded={a.nonbonded} "
          f"cutoff_nm={a.cutoff:g} dispcorr={a.dispcorr} "
          f"constraints={a.constraints} dt_fs={a.dt:g} "
          f"contexts={a.contexts} steps={a.steps} ns_per_day={ns_day:.2f} "
          f"aggregate_ns_per_day={agg:.2f} "
          f"aggregate_ns_per_day_incl_setup={agg_all:.2f} "
          f"create_s={sum(create):.3f} E0={e0:.6f}")
    return EX_SOFTWARE if bad else 0


if __name__ == "__main__":
    sys.exit(main())
