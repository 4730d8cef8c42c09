# tests/badinput-md.sh - md-gpu against bad input, as issue 29 found it
# (items 7, 10, 12, 13, 14, 15): every case the documented exit status
# with one "md-gpu: fact" line and nothing on stdout, under a timeout.
#   - molecular systems (--top): a box narrower than twice the cut-off
#     (the configuration, every frame of a rerun, 0.01 nm), a frame of
#     the wrong size after good ones, frames whose energy is not finite
#     (and dynamics from such a start),
#     a box too large for a PME grid, an .mdp or #include that never ends
#     (/dev/zero); a 1e9 nm box with a cut-off (cells bounded by the atom
#     count) runs; a rerun keeps the first frame's PME grid for every
#     frame; the Monte Carlo barostat keeps the box twice the cut-off wide;
#   - outputs: --checkpoint refuses what is not a regular file (a FIFO, a
#     symbolic link, a directory, a FIFO at FILE.tmp) before the run and
#     leaves it as it was; --confout on a full device names the file;
#   - particle systems: a time step of 1e9 stops at the first step that
#     is not finite (exit 1) before the lists meet it (UBSan found the
#     cell and image codes overflowing there).
# SPC/E water (testdata/mm/spce216.top) at GROMACS's spc216.gro, which
# needs the GROMACS data files.
. "$(dirname "$0")/lib.sh"

T_TIMEOUT=${T_TIMEOUT:-120}

# ---- particle systems (no GROMACS needed) -------------------------------------------------
P="md-gpu -d cpu --lattice fcc:5 --density 0.8 -t 1 -n 20"
t particles-dt-1e9 1 "$P -H 1e9"
says particles-dt-1e9 'step [0-9]+: the state is no longer finite'

mkfifo fifo
ln -s real.ckpt link
: > real.ckpt
mkdir dir
t ckpt-fifo 74 "$P --checkpoint fifo"
says ckpt-fifo 'fifo: not a regular file'
t ckpt-fifo-kept 0 "test -p fifo"
t ckpt-symlink 74 "$P --checkpoint link"
t ckpt-symlink-kept 0 "test -L link && test ! -s real.ckpt"
t ckpt-dir 74 "$P --checkpoint dir"
t ckpt-dir-kept 0 "test -d dir"
mkfifo tmpfifo.tmp
t ckpt-tmp-fifo 74 "$P --checkpoint tmpfifo"
t ckpt-tmp-fifo-kept 0 "test -p tmpfifo.tmp && test ! -e tmpfifo"
t ckpt-regular 0 "$P --checkpoint real.ckpt > /dev/null && test -s real.ckpt && test ! -e real.ckpt.tmp"

# ---- molecular systems ---------------------------------------------------------------
GMXTOP=/usr/share/gromacs/top
if [ ! -f "$GMXTOP/spc216.gro" ]; then
	skip badinput-md-top "no GROMACS data ($GMXTOP/spc216.gro: scripts/install-deps check)"
	exit 0
fi
cp "$GMXTOP/spc216.gro" .
cp "$TOP/testdata/mm/spce216.top" .
M="md-gpu -d cpu --top spce216.top"
# box LX LY LZ < GRO: GRO with its box line replaced
box() { sed "\$s/.*/   $1   $2   $3/"; }
printf 'coulombtype = PME\nrcoulomb = 1.3\nrvdw = 1.3\n' > rc13.mdp
printf 'coulombtype = PME\nrcoulomb = 0.9\nrvdw = 0.9\n' > rc09.mdp
box 2.5 2.7 2.9 < spc216.gro > b25.gro

# item 7: rcoulomb = rvdw = 1.3 nm in a 2.5 x 2.7 x 2.9 nm box
t cutoff-half-box-rerun 65 "$M --mdp rc13.mdp --rerun b25.gro"
says cutoff-half-box-rerun 'b25.gro: frame 1: the box is 2.5 nm wide along x, less than twice the cut-off'
t cutoff-half-box-config 65 "$M --mdp rc13.mdp --config b25.gro -n 1"
says cutoff-half-box-config 'b25.gro: the box is 2.5 nm wide along x'
t cutoff-half-box-replicas 65 "$M --mdp rc13.mdp --config b25.gro -n 1 -R 2 --dihedral a=1,2,3,4"
# a later frame whose box shrinks: nothing written before it is read
{ cat spc216.gro; box 1.7 1.86206 1.86206 < spc216.gro; } > shrink.gro
t cutoff-later-frame 65 "$M --mdp rc09.mdp --rerun shrink.gro"
says cutoff-later-frame 'shrink.gro: frame 2: the box is 1.7 nm wide along x'
# a frame of the wrong size after a good one: no header on stdout
{ cat spc216.gro; head -n 1 spc216.gro; echo 3; sed -n '3,5p;$p' spc216.gro; } > short2.gro
t atoms-later-frame 65 "$M --mdp rc09.mdp --rerun short2.gro"
says atoms-later-frame 'frame 2: 3 atoms, but spce216.top has 648'
# item 14: a 0.01 nm box, and frames whose energy is not finite
box 0.01 0.01 0.01 < spc216.gro > b001.gro
t box-0.01-rerun 65 "$M --rerun b001.gro"
awk 'NR == 3 { p = substr($0, 21, 24) } NR == 6 { $0 = substr($0, 1, 20) p substr($0, 45) } { print }' spc216.gro > overlap.gro
t overlap-not-finite 1 "$M --mdp rc09.mdp --rerun overlap.gro"
says overlap-not-finite 'overlap.gro: frame 1: the energy LJ \(SR\) is not finite'
# dynamics from two waters on top of each other: refused at step 0,
# before a frame of infinities is written (it was, then SETTLE failed)
awk 'NR >= 3 && NR <= 5 { p[NR] = substr($0, 21, 24) } NR >= 6 && NR <= 8 { $0 = substr($0, 1, 20) p[NR - 3] substr($0, 45) } { print }' spc216.gro > overlap3.gro
t overlap-dynamics 1 "$M --mdp rc09.mdp --config overlap3.gro -n 10"
says overlap-dynamics 'step 0: the energy is not finite'
box 1e300 1e300 1e300 < spc216.gro > b1e300.gro
t box-1e300 65 "$M --rerun b1e300.gro"
# item 15: a 1e9 nm box: cells from the atom count (exit 70, an
# allocation overflow, before); with PME its grid would not fit
box 1e9 1e9 1e9 < spc216.gro > b1e9.gro
t box-1e9-cutoff 0 "$M --rerun b1e9.gro -T > b1e9.txt"
t box-1e9-pme 65 "$M --mdp rc09.mdp --rerun b1e9.gro"
says box-1e9-pme 'b1e9.gro: frame 1: box edge a of 1e\+09 nm: its PME grid'
box 1000 1000 1000 < spc216.gro > b1e3.gro
t box-1e3-pme 65 "$M --mdp rc09.mdp --rerun b1e3.gro"
says box-1e3-pme 'PME grid 8960 x 8960 x 8960 at fourierspacing 0.12 nm would have more than 2\^30 points'

# item 12: a rerun keeps its first frame's PME grid (16 points along
# 1.862 nm at 0.12 nm), as gmx mdrun -rerun keeps the .tpr's: the second
# frame (a 2 nm box, 18 points of its own) as a rerun of it alone with
# fourier-nx, -ny and -nz 16
box 2 2 2 < spc216.gro > b2.gro
cat spc216.gro b2.gro > grow.gro
{ cat rc09.mdp; printf 'fourier-nx = 16\nfourier-ny = 16\nfourier-nz = 16\n'; } > g16.mdp
t grid-rerun 0 "$M --mdp rc09.mdp --rerun grow.gro -T > grow.txt"
t grid-second 0 "$M --mdp g16.mdp --rerun b2.gro -T > g16.txt"
t grid-own 0 "$M --mdp rc09.mdp --rerun b2.gro -T > own.txt"
rows grow.txt | sed -n 2p | cut -d' ' -f3- > second.row
rows g16.txt | cut -d' ' -f3- > g16.row
rows own.txt | cut -d' ' -f3- > own.row
t grid-first-frame-kept 0 "cmp second.row g16.row"
t grid-differs-from-own 0 "! cmp -s second.row own.row"

# item 7, NPT: the Monte Carlo barostat at 10^5 bar never takes the box
# below twice the cut-off (1.8 nm; the box starts at 1.862 nm)
cat > npt.mdp <<'EOF'
integrator = sd
dt = 0.002
ref-t = 300
tau-t = 0.5
pcoupl = MC
ref-p = 100000
nstpcouple = 1
coulombtype = Reaction-Field
rcoulomb = 0.9
rvdw = 0.9
EOF
t npt-shrink 0 "$M --mdp npt.mdp --config spc216.gro -n 200 -l npt.log --thermo 1 > /dev/null"
vmin=$(rows npt.log | awk 'NR == 1 || $NF < m { m = $NF } END { printf "%.6f\n", m }')
echo "barostat at 1e5 bar: smallest volume $vmin nm^3 (twice the cut-off cubed: 5.832)"
t npt-box-kept-wide 0 "awk -v v=$vmin 'BEGIN { exit !(v >= 1.8 ^ 3) }'"

# item 10: an .mdp or #include that never ends
t mdp-dev-zero 65 "$M --mdp /dev/zero --rerun spc216.gro"
says mdp-dev-zero '/dev/zero'
printf '#include "/dev/zero"\n' > zero.top
t include-dev-zero 65 "md-gpu -d cpu --top zero.top --rerun spc216.gro"
says include-dev-zero '/dev/zero'

# item 13: --confout on a full device names the file
t confout-full 74 "$M --mdp rc09.mdp --config spc216.gro -n 0 --confout /dev/full > /dev/null"
says confout-full '^md-gpu: /dev/full: write error'
