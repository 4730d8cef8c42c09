#!/bin/sh
# make-data.sh [DEST] - build the peer-benchmark systems of issue 16 into
# DEST (default .exp/mmbench, git-ignored), on a machine with network access
# (pip download), GROMACS (gmx) and a python3 with numpy (for ParmEd; set
# PYTHON, default /usr/bin/python3).  See README here for what it makes.
set -eu
DEST=${1:-.exp/mmbench}
PYTHON=${PYTHON:-/usr/bin/python3}
GMX=${GMX:-gmx}
TMP=$(mktemp -d /tmp/mmbench.XXXXXX)
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)

# openmmtools 0.27.0's data: alanine dipeptide PDB and DHFR (JAC) AMBER files
python3 -m pip download -q --no-deps -d "$TMP" openmmtools==0.27.0
(cd "$TMP" && unzip -q -o openmmtools-0.27.0-py3-none-any.whl \
	'openmmtools/data/alanine-dipeptide-gbsa/alanine-dipeptide.pdb' \
	'openmmtools/data/dhfr/JAC.prmtop' 'openmmtools/data/dhfr/JAC.inpcrd')
cp "$TMP/openmmtools/data/alanine-dipeptide-gbsa/alanine-dipeptide.pdb" \
	"$TMP/openmmtools/data/dhfr/JAC.prmtop" \
	"$TMP/openmmtools/data/dhfr/JAC.inpcrd" "$DEST/"

cd "$DEST"

# a. alanine dipeptide in vacuum, amber99sb-ildn, cubic 3 nm box
$GMX pdb2gmx -f alanine-dipeptide.pdb -ff amber99sb-ildn -water none -ignh \
	-o ala2-pdb2gmx.gro -p ala2.top > pdb2gmx.log 2>&1
$GMX editconf -f ala2-pdb2gmx.gro -o ala2.gro -box 3 3 3 -c > editconf.log 2>&1
cat > ala2.mdp <<'EOF'
; alanine dipeptide in vacuum, amber99sb-ildn, for fek md-gpu and OpenMM peer benchmarks
integrator      = sd
dt              = 0.002
nsteps          = 50000
ref-t           = 300
tau-t           = 1
tc-grps         = System
constraints     = h-bonds
cutoff-scheme   = Verlet
coulombtype     = cut-off
rcoulomb        = 1.0
rvdw            = 1.0
pbc             = xyz
EOF
# self-contained topology (no #include) for machines without GROMACS
$GMX grompp -f ala2.mdp -c ala2.gro -p ala2.top -pp ala2-processed.top \
	-o ala2.tpr -po ala2-mdout.mdp > grompp.log 2>&1
rm -f '#'*'#' mdout.mdp

# b. DHFR in water (JAC): ParmEd (pure python, into a --target folder)
python3 -m pip download -q --no-deps -d "$TMP" parmed==4.3.1
python3 -m pip install -q --no-deps --target "$TMP/pmsite" "$TMP"/parmed-4.3.1.tar.gz
PYTHONPATH="$TMP/pmsite" "$PYTHON" - <<'EOF'
import re
import parmed
s = parmed.load_file('JAC.prmtop', 'JAC.inpcrd')   # the inpcrd is NetCDF
s.save('jac-parmed.top', format='gromacs', combine=None, overwrite=True)
s.save('jac.gro', overwrite=True)
s.save('jac.rst7', format='rst7', overwrite=True)   # ASCII, for OpenMM
t = open('jac-parmed.top').read()
# (1) at.num: ParmEd guesses it from the (hydrogen-mass repartitioned)
# masses, e.g. 2 for H (3.024 amu); OpenMM's GromacsTopFile takes the
# element from it (HBonds constraints).  Use the AMBER type's first letter.
Z = {'H': 1, 'C': 6, 'N': 7, 'O': 8, 'S': 16}
head, rest = t.split('[ atomtypes ]\n', 1)
block, tail = rest.split('\n\n', 1)
lines = []
for ln in block.split('\n'):
    f = ln.split()
    if ln.startswith(';') or not f:
        lines.append(ln)
        continue
    lines.append(re.sub(r'^(\S+\s+)\d+', lambda m: m.group(1) + str(Z[f[0][0]]), ln, 1))
t = head + '[ atomtypes ]\n' + '\n'.join(lines) + '\n\n' + tail
# (2) WAT: three flexible bonds (O-H, O-H, H-H) -> SETTLE, as rigid water
old = """[ bonds ]
;    ai     aj funct         c0         c1         c2         c3
      3      1     1   0.09572 462750.400000
      2      1     1   0.09572 462750.400000
      2      3     1   0.15136 462750.400000
"""
new = """[ settles ]
; OW funct doh dhh
1 1 0.09572 0.15136

[ exclusions ]
1 2 3
2 1 3
3 1 2
"""
i = t.index('WAT          3')
assert t.count(old, i) == 1
t = t[:i] + t[i:].replace(old, new)
open('jac.top', 'w').write(t)
EOF
rm -f jac-parmed.top
cat > jac.mdp <<'EOF'
; DHFR in water (JAC, 23558 atoms; the prmtop's masses are hydrogen-mass
; repartitioned), AMBER ff via ParmEd, for fek md-gpu and OpenMM peer benchmarks
integrator      = sd
dt              = 0.002
nsteps          = 5000
ref-t           = 300
tau-t           = 1
tc-grps         = System
constraints     = h-bonds
cutoff-scheme   = Verlet
coulombtype     = PME
rcoulomb        = 0.9
rvdw            = 0.9
fourierspacing  = 0.12
DispCorr        = EnerPres
pbc             = xyz
EOF
# the same, with OpenMM's functional forms (no LJ or Coulomb potential
# shift, PME order 5) and the grid GROMACS picks from fourierspacing 0.12;
# with openmm_mm.py --pme-params 3.4704591937120832,52,52,52 (GROMACS's beta
# for ewald-rtol 1e-5 at 0.9 nm) the energies agree term by term
cat jac.mdp - > jac-openmm.mdp <<'EOF'
; as OpenMM computes it
vdw-modifier     = none
coulomb-modifier = none
pme-order        = 5
fourier-nx       = 52
fourier-ny       = 52
fourier-nz       = 52
EOF
rm -rf "$TMP"
ls -l "$DEST"
