# tests/tpi-gmx.sh - tpi-gpu --top (rigid water inserted with PME) against
# GROMACS's own test-particle insertion (integrator = tpi, gmx mdrun
# -rerun; Debian's gromacs 2022.5) on the same frames, run live where gmx
# is installed (issue 27):
#   - the system: OPLS-AA TIP4P, GROMACS's tip4p.gro (216 waters in a
#     cube of 1.868 nm), PME (rc 0.9 nm for both, potential-shift on both,
#     ewald-rtol 1e-5, spacing 0.12, order 4), DispCorr = no in both (so
#     GROMACS's double-counted dispersion correction stays out of it);
#   - frames: 6 ps of gmx mdrun (sd, 300 K), 9 frames 0.5 ps apart from 2
#     ps on, one multi-frame .gro (3 decimals) that both programs read;
#   - GROMACS: the topology with a 217th water as its last molecule (the
#     one inserted, from a template of the settle's exact geometry),
#     nsteps insertions a frame, nstlist = 1 (each insertion at a fresh
#     uniform point of the box; rtpi is used only with nstlist > 1);
#     gmx_d (double) where installed, else gmx;
#   - compared, insertions being independent draws in both: the fraction
#     of insertions with beta u below -0.05, 9.95 and 19.95 kT (edges of
#     GROMACS's 0.1 kT bins), within 4 binomial standard errors of the
#     difference; the mean beta u of those below 19.95 kT, within 4
#     standard errors; beta mu_ex = -ln <exp(-beta u)>, within 4 combined
#     standard errors (the spread of exp(-beta u) over the insertions);
#     the frames are the same, so only the insertions' sampling separates
#     the two, which is what the errors count;
#   - checked on GROMACS's output as read here: 9 frames, the histogram's
#     count, and its beta mu_ex against tpi.xvg's (bin centres, 0.06 kT);
#     tpi-gpu's own mean against bar-solve -m tpi on the same output;
#   - GROMACS's energy of single insertions: those it dumps as .pdb
#     (GMX_TPI_DUMP) against md-gpu --rerun's U(N+1) - U(N) of the same
#     configuration (which tpi-gpu's moves equal, tests/tpi-mol.sh) less the
#     molecule's energy alone in the box (its interaction with its own
#     periodic images and PME's position-dependent error on it), which
#     GROMACS's tpi leaves out: within 0.1 kJ/mol (the .pdb's rounding);
#   - reported: both programs' insertion rates on one core.
# The seeds are fixed (FEK_TEST_SEED sets another).
. "$(dirname "$0")/lib.sh"

if have gmx_d; then
	GTPI=gmx_d
elif have gmx; then
	GTPI=gmx
else
	skip tpi-gmx "no gmx or gmx_d (Debian's gromacs)"
	exit 0
fi
GMD=gmx
have gmx || GMD=gmx_d
G=/usr/share/gromacs/top
if [ ! -f "$G/tip4p.gro" ] || [ ! -f "$G/oplsaa.ff/tip4p.itp" ]; then
	skip tpi-gmx "no GROMACS data in $G"
	exit 0
fi
SEED=${FEK_TEST_SEED:-20261127}
NINS=${TPI_GMX_NINS:-15000}		# insertions a frame, both programs
GMX_MAXBACKUP=-1
export GMX_MAXBACKUP
KT=$(awk 'BEGIN { printf "%.17g", 0.0083144626181532 * 300 }')	# kJ/mol
echo "tpi-gmx: $($GTPI --version 2>/dev/null | awk '/^GROMACS version/ { print "GROMACS", $3 }') ($GTPI for tpi, $GMD for the frames), seed $SEED, $NINS insertions a frame"

cp "$G/tip4p.gro" .
printf '#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/tip4p.itp"\n[ system ]\nTIP4P\n[ molecules ]\nSOL 216\n' > sys.top
sed 's/^SOL 216$/SOL 217/' sys.top > tpi.top
# the non-bonded options, the same for every run of both programs
cat > nb.mdp <<'EOF'
cutoff-scheme    = Verlet
coulombtype      = PME
coulomb-modifier = Potential-shift
rcoulomb         = 0.9
vdw-type         = Cut-off
vdw-modifier     = Potential-shift
rvdw             = 0.9
DispCorr         = no
fourierspacing   = 0.12
pme-order        = 4
ewald-rtol       = 1e-5
EOF
{ cat nb.mdp; cat <<EOF; } > md.mdp
integrator    = sd
dt            = 0.002
nsteps        = 3000
ld-seed       = $SEED
tc-grps       = System
tau-t         = 1
ref-t         = 300
gen-vel       = yes
gen-temp      = 300
gen-seed      = $SEED
nstxout       = 250
nstvout       = 0
nstenergy     = 0
nstlog        = 0
nstcalcenergy = 100
EOF
{ cat nb.mdp; cat <<EOF; } > tpi.mdp
integrator    = tpi
nsteps        = $NINS
nstlist       = 1
rtpi          = 0.05
ld-seed       = $SEED
tc-grps       = System
tau-t         = 1
ref-t         = 300
EOF

# ---- frames -------------------------------------------------------------------------
t md-grompp 0 "$GMD -quiet grompp -f md.mdp -c tip4p.gro -p sys.top -o md.tpr > md-grompp.log 2>&1" &&
t md-run 0 "$GMD -quiet mdrun -s md.tpr -deffnm md -ntmpi 1 -ntomp 1 -nb cpu > md-mdrun.log 2>&1" &&
t frames 0 "echo 0 | $GMD -quiet trjconv -f md.trr -s md.tpr -b 2 -novel -o frames.gro > trjconv.log 2>&1" || exit 0
NF_=$(grep -c 'step=' frames.gro)
near frames-count "$NF_" 9 0 || exit 0
# the template: frame 0 and one more water (O at the origin, the H at the
# settle's dOH 0.09572 and dHH 0.15139 nm, M by the virtual site's 0.128012065
# of each O-H), every line in the same fixed format (GROMACS reads a .gro
# at the precision of its first coordinate line)
awk -v a=0.128012065 'BEGIN { oh = 0.09572; hh = 0.15139; hx = hh / 2; hy = sqrt(oh * oh - hx * hx) }
	NR == 1 { print; next }
	NR == 2 { n = $1; print n + 4; next }
	NR <= n + 2 { printf "%s%12.6f%12.6f%12.6f\n", substr($0, 1, 20), substr($0, 21, 8), substr($0, 29, 8), substr($0, 37, 8); next }
	NR == n + 3 {
		printf "%5dSOL%7s%5d%12.6f%12.6f%12.6f\n", 217, "OW", n + 1, 0, 0, 0
		printf "%5dSOL%7s%5d%12.6f%12.6f%12.6f\n", 217, "HW1", n + 2, hx, hy, 0
		printf "%5dSOL%7s%5d%12.6f%12.6f%12.6f\n", 217, "HW2", n + 3, -hx, hy, 0
		printf "%5dSOL%7s%5d%12.6f%12.6f%12.6f\n", 217, "MW", n + 4, 0, 2 * a * hy, 0
		print; exit }' frames.gro > conf.gro

# ---- GROMACS ------------------------------------------------------------------------
gmxok=0
t gmx-grompp 0 "$GTPI -quiet grompp -f tpi.mdp -c conf.gro -p tpi.top -o tpi.tpr > tpi-grompp.log 2>&1" &&
{
	s=$(date +%s.%N)
	t gmx-tpi 0 "$GTPI -quiet mdrun -s tpi.tpr -rerun frames.gro -deffnm gtpi -tpi tpi.xvg -tpid tpid.xvg -ntmpi 1 -ntomp 1 -nb cpu > tpi-mdrun.log 2>&1"
} && GW=$(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }') && gmxok=1
if [ "$gmxok" = 1 ]; then
	near gmx-frames "$(grep -v '^[#@]' tpi.xvg | grep -c .)" "$NF_" 0 || gmxok=0
fi

# stats_gmx: from tpid.xvg (beta U of every insertion at or below 50 kT,
# binned to 0.1 kT: column 1 the bin's centre, 2 its count) and the
# insertions made: the fractions below -0.05, 9.95 and 19.95, the mean
# below 19.95 and its standard error, -ln <exp(-beta u)> (bin centres),
# the relative standard error of <exp(-beta u)>, the count in the bins,
# the count above 50 in the subtitle
stats_gmx() {
	awk -v N="$1" '/^@ subtitle/ { s = $0; sub(/.*: */, "", s); sub(/".*/, "", s); over = s + 0 }
	/^[#@]/ || !NF { next }
	{ x = $1; c = $2; n += c
	  if (x < -0.05) a += c; if (x < 9.95) b += c
	  if (x < 19.95) { m += c; s1 += c * x; s2 += c * x * x }
	  w = exp(-x); w1 += c * w; w2 += c * w * w }
	END { mu = s1 / m; w1 /= N; w2 /= N
	  printf "%.10g %.10g %.10g %.10g %.10g %.10g %.10g %d %d\n", a / N, b / N, m / N, mu,
	      sqrt((s2 / m - mu * mu) / m), -log(w1), sqrt((w2 - w1 * w1) / N) / w1, n, over }' tpid.xvg
}
# stats_fek FILE: the same of tpi-gpu's insertions (tpi-gpu -E -T), and
# their number
stats_fek() {
	awk '/^#KIND/ { ins = ($2 == "insertions") } /^#/ || !NF || !ins { next }
	{ u = $2; N++; if (u < -0.05) a++; if (u < 9.95) b++
	  if (u < 19.95) { m++; s1 += u; s2 += u * u }
	  w = u < 700 ? exp(-u) : 0; w1 += w; w2 += w * w }
	END { mu = s1 / m; w1 /= N; w2 /= N
	  printf "%.10g %.10g %.10g %.10g %.10g %.10g %.10g %d\n", a / N, b / N, m / N, mu,
	      sqrt((s2 / m - mu * mu) / m), -log(w1), sqrt((w2 - w1 * w1) / N) / w1, N }' "$1"
}

NTOT=$((NINS * NF_))
if [ "$gmxok" = 1 ]; then
	read -r GP0 GP10 GP20 GM GMS GB GBS GN GOVER < <(stats_gmx "$NTOT")
	# GROMACS's own beta mu_ex: -kT ln(<V exp(-beta U)> / <V>), the last
	# row's column 2, over kT; and the mean of the frames' <exp(-beta U)>
	GX=$(awk -v kt="$KT" '!/^[#@]/ && NF { v = $2; s += $4; n++ } END { printf "%.10g %.10g", v / kt, -log(s / n) }' tpi.xvg)
	GXL=${GX% *} GXM=${GX#* }
	echo "GROMACS: beta mu_ex $GXL (tpi.xvg; mean of the frames' <exp(-beta U)>: $GXM), $GN of $NTOT insertions at or below 50 kT (subtitle: $GOVER above)"
	near gmx-xvg-mean "$GXM" "$GXL" 1e-3
	# the histogram holds every insertion: those in bins and those above
	# 50 kT (the subtitle's %9.3e count, 4 digits)
	near gmx-hist-count "$((GN + GOVER))" "$NTOT" "$(awk -v n="$NTOT" 'BEGIN { printf "%d", n * 6e-4 + 1 }')"
	# and its bins are beta U: their beta mu_ex is tpi.xvg's, to the bins'
	# rounding (+-0.05 kT)
	near gmx-hist-is-xvg "$GB" "$GXL" 0.06
fi

# ---- tpi-gpu ------------------------------------------------------------------------
fekok=0
s=$(date +%s.%N)
t fek-tpi 0 "OMP_NUM_THREADS=1 tpi-gpu -v -T -E --no-deletions --top sys.top --mdp tpi.mdp -t 300 -n $NINS -s $SEED frames.gro > fek.txt" &&
	FW=$(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }') &&
	t fek-bar 0 "bar-solve -m tpi -n 0 fek.txt > fek.bar" && fekok=1
if [ "$fekok" = 1 ]; then
	read -r FP0 FP10 FP20 FM FMS FB FBS FN < <(stats_fek fek.txt)
	near fek-count "$FN" "$NTOT" 0
	FBB=$(awk '$1 == "TPI" { print $2 }' fek.bar)
	echo "tpi-gpu: beta mu_ex $FB (bar-solve -m tpi: $FBB) over $FN insertions"
	near fek-bar-is-mean "$FBB" "$FB" 1e-6
fi

# ---- the two on the same frames -------------------------------------------------------
# cmp4 NAME A B SE: |A - B| within 4 SE, with the numbers shown
cmp4() {
	echo "$1: tpi-gpu $2, GROMACS $3, difference $(awk -v a="$2" -v b="$3" -v s="$4" 'BEGIN { printf "%.4g (%.2f sigma, sigma %.3g)", a - b, (a - b) / s, s }')"
	near "$1" "$2" "$3" "$(awk -v s="$4" 'BEGIN { printf "%.6g", 4 * s }')"
}
if [ "$gmxok" = 1 ] && [ "$fekok" = 1 ]; then
	# fractions: independent binomial counts of N insertions each, the
	# pooled p for the standard error of the difference (frame to frame
	# variation of p is common to both: it adds nothing)
	for th in "0 $FP0 $GP0" "10 $FP10 $GP10" "20 $FP20 $GP20"; do
		set -- $th
		cmp4 "frac-below-$1" "$2" "$3" "$(awk -v a="$2" -v b="$3" -v n="$NTOT" 'BEGIN { p = (a + b) / 2; printf "%.6g", sqrt(p * (1 - p) * 2 / n) }')"
	done
	# mean beta u of the insertions below 19.95 kT: standard errors of the
	# two means combined
	cmp4 mean-below-20 "$FM" "$GM" "$(awk -v a="$FMS" -v b="$GMS" 'BEGIN { printf "%.6g", sqrt(a * a + b * b) }')"
	# Widom: beta mu_ex of each, error the relative standard error of
	# <exp(-beta u)> over the insertions (delta method), combined
	cmp4 widom "$FB" "$GXL" "$(awk -v a="$FBS" -v b="$GBS" 'BEGIN { printf "%.6g", sqrt(a * a + b * b) }')"
	echo "rates, one core, $NTOT insertions: GROMACS ($GTPI) $(awk -v n="$NTOT" -v w="$GW" 'BEGIN { printf "%.3g", n / w }')/s (mdrun wall $GW s, start-up included), tpi-gpu $(awk -v n="$NTOT" -v w="$FW" 'BEGIN { printf "%.3g", n / w }')/s (wall $FW s)"
fi

# ---- GROMACS's energy of a move, configuration by configuration -------------------
# GMX_TPI_DUMP=E makes GROMACS write every insertion with U <= E kJ/mol as a
# .pdb (the frame put in the box, then the molecule; 0.001 A), its U in the
# title.  Of the first 10 (2000 insertions a frame, U <= -10 kJ/mol):
# md-gpu --rerun's U(N+1) - U(N) of the configuration (what tpi-gpu's moves
# equal, tests/tpi-mol.sh) less U_own, md-gpu's energy of the molecule alone
# in the box (its Ewald self and excluded-pair terms and its own reciprocal
# energy: its interaction with its periodic images, plus PME's error, which
# depends on where it sits on the grid; -0.06 to -0.13 kJ/mol here), is
# GROMACS's U: each within 0.25 kJ/mol (the .pdb rounds the molecule's
# sites by up to 5e-5 nm, 0.03 kJ/mol rms in U), and their mean within 4
# standard errors of the mean (+0.005) of 0, which U_own, left out, would
# miss by ~10 of them.  GROMACS's tpi leaves U_own out.
if [ "$gmxok" = 1 ]; then
	mkdir dump && sed 's/^nsteps .*/nsteps        = 2000/' tpi.mdp > dump/d.mdp &&
	t dump-grompp 0 "cd dump && $GTPI -quiet grompp -f d.mdp -c ../conf.gro -p ../tpi.top -o d.tpr > grompp.log 2>&1" &&
	t dump-tpi 0 "cd dump && GMX_TPI_DUMP=-10 $GTPI -quiet mdrun -s d.tpr -rerun ../frames.gro -deffnm d -tpi d.xvg -tpid dd.xvg -ntmpi 1 -ntomp 1 -nb cpu > mdrun.log 2>&1"
	sed 's/^SOL 216$/SOL 1/' sys.top > one.top
	nd=0
	for f in $(ls dump/*.pdb 2> /dev/null | head -n 10); do
		# the frame (n.gro), the frame and the molecule (p1.gro), the
		# molecule alone (m.gro)
		awk '/^CRYST1/ { L = $2 / 10 } /^ATOM/ { n++; x[n] = substr($0, 31, 8) / 10; y[n] = substr($0, 39, 8) / 10
			z[n] = substr($0, 47, 8) / 10; nm[n] = substr($0, 13, 4); r[n] = substr($0, 23, 4) + 0 }
		function out(f, a, b,  i) {
			print "dump" > f; print b - a + 1 > f
			for (i = a; i <= b; i++) printf "%5dSOL  %5s%5d%10.5f%10.5f%10.5f\n", r[i], nm[i], i, x[i], y[i], z[i] > f
			printf "%10.5f%10.5f%10.5f\n", L, L, L > f }
		END { out("dump/n.gro", 1, n - 4); out("dump/p1.gro", 1, n); out("dump/m.gro", n - 3, n) }' "$f"
		e1=$(md-gpu -T --top tpi.top --mdp nb.mdp --rerun dump/p1.gro 2> /dev/null | awk '!/^#/ { print $NF }')
		e0=$(md-gpu -T --top sys.top --mdp nb.mdp --rerun dump/n.gro 2> /dev/null | awk '!/^#/ { print $NF }')
		em=$(md-gpu -T --top one.top --mdp nb.mdp --rerun dump/m.gro 2> /dev/null | awk '!/^#/ { print $NF }')
		g=$(awk '/^TITLE/ { print $NF }' "$f")
		nd=$((nd + 1))
		near "dump-$nd" "$(awk -v a="$e1" -v b="$e0" -v m="$em" 'BEGIN { printf "%.6f", a - b - m }')" "$g" 0.25
		awk -v a="$e1" -v b="$e0" -v m="$em" -v g="$g" 'BEGIN { printf "%.6f %.6f %.6f %.6f\n", g, a - b, m, a - b - m - g }' >> dump.txt
	done
	if [ "$nd" -gt 1 ]; then
		read -r DM DTOL DRMS DMAX UO < <(awk '{ n++; s += $3; d += $4; dd += $4 * $4; if ($4 * $4 > mx) mx = $4 * $4 }
		    END { m = d / n; sd = sqrt((dd / n - m * m) * n / (n - 1))
			printf "%.6f %.6f %.3g %.3g %.4f\n", m, 4 * sd / sqrt(n) + 0.005, sqrt(dd / n), sqrt(mx), s / n }' dump.txt)
		echo "GROMACS tpi, $nd dumped insertions: U = md-gpu U(N+1) - U(N) - U_own to $DRMS kJ/mol rms ($DMAX at most, mean $DM); mean U_own $UO kJ/mol"
		near dump-mean "$DM" 0 "$DTOL"
	else
		fail dump "GROMACS dumped $nd insertions at or below -10 kJ/mol, too few"
	fi
fi
