# tests/tpi-gromacs.sh - tpi-gpu against GROMACS's test-particle insertion
# (gmx mdrun -rerun with integrator = tpi; Debian's gromacs 2022.5) on the
# same frames, run live where gmx is installed:
#   - frames of an argon-like LJ fluid made by md-gpu in GROMACS units (nm,
#     kJ/mol, K): sigma 0.34 nm, eps 1 kJ/mol, T* 1.5, rho* 0.5, 500 atoms,
#     truncated at rc = 2.5 sigma, 30 frames, written again as a .gro of 6
#     decimals for GROMACS;
#   - beta mu_ex without the tail: tpi-gpu | bar-solve -m tpi against
#     -ln(mean over frames of GROMACS's per-frame <exp(-beta U)>) with
#     DispCorr = no, within 3 combined standard errors, each below 0.02;
#   - the tail counted once: tpi-gpu --tail minus --no-tail is the analytic
#     beta mu_tail of the finite system, (8 pi / 3)(2N + 1)/V eps sigma^3
#     ((sigma/rc)^9 / 3 - (sigma/rc)^3) / kT, to 1e-9 (a double count would
#     be off by a whole mu_tail);
#   - reported, not judged: how GROMACS's DispCorr = EnerPres moves its
#     result, in units of our mu_tail and of its own (dispersion only, the
#     density of the N others; anchors-tpi-bar.md section 1.1.4: 2022.5
#     adds it twice), and both programs' insertion rates on one core.
# The seeds are fixed (FEK_TEST_SEED sets another).
. "$(dirname "$0")/lib.sh"

if ! have gmx; then
	skip tpi-gromacs "no gmx (Debian's gromacs)"
	exit 0
fi
SEED=${FEK_TEST_SEED:-20261125}
GMX_MAXBACKUP=-1
export GMX_MAXBACKUP
echo "tpi-gromacs: $(gmx --version 2>/dev/null | awk '/^GROMACS version/ { print "GROMACS", $3 }'), seed $SEED (FEK_TEST_SEED=$SEED repeats it)"

# ---- the state ---------------------------------------------------------------------
KB=0.00831446261815324			# kJ/mol/K, md-gpu(1) and GROMACS alike
SIG=0.34 EPS=1 MASS=39.948
RC=$(awk -v s=$SIG 'BEGIN { printf "%.17g", 2.5 * s }')
TK=$(awk -v e=$EPS -v k=$KB 'BEGIN { printf "%.17g", 1.5 * e / k }')
RHO=$(awk -v s=$SIG 'BEGIN { printf "%.17g", 0.5 / s ^ 3 }')
NINS=20000				# insertions per frame

# ---- frames --------------------------------------------------------------------------
# fcc:5 at rho* 0.5 is a cube of 10 sigma = 3.4 nm (> 2 (rc + skin)); 10 ps
# to melt, then 30 frames 1 ps apart
t frames 0 "md-gpu -d cpu --units gmx --lattice fcc:5 --density $RHO --lj $EPS:$SIG --rc $RC -m $MASS -t $TK -i baoab -H 0.01 -N 1000 -n 3000 -e 100 -s $SEED -T > frames.txt"
N=$(awk '/^#ROWS/ { print $2; exit }' frames.txt)
V=$(awk '/^#BOX/ { printf "%.17g", $2 * $3 * $4; exit }' frames.txt)
NF_=$(grep -c '^#KIND frames' frames.txt)
echo "frames: $NF_ of N = $N in V = $V nm^3, T = $TK K, rc = $RC nm"

# togro EXTRA < FRAMES: the frames as a .gro trajectory (6 decimals, fields
# of 11); with EXTRA = 1 the first frame alone, plus the test atom at 0 0 0
togro() {
	awk -v extra="$1" '
	function flush(  i) {
		if (n == 0) return
		printf "fek frame t= %.6f step= %d\n%d\n", t, step, n + extra
		for (i = 1; i <= n; i++)
			printf "%5d%-5s%5s%5d%11.6f%11.6f%11.6f\n", i % 100000, "AR", "AR", i % 100000, x[i], y[i], z[i]
		if (extra)
			printf "%5d%-5s%5s%5d%11.6f%11.6f%11.6f\n", (n + 1) % 100000, "AR", "AR", (n + 1) % 100000, 0, 0, 0
		printf "%.9f %.9f %.9f\n", lx, ly, lz
		n = 0
		if (extra) exit
	}
	$1 == "#FEK" { flush() }
	$1 == "#STEP" { step = $2 }
	$1 == "#TIME" { t = $2 }
	$1 == "#BOX" { if ($5 != 0 || $6 != 0 || $7 != 0) { print "togro: a tilted box" > "/dev/stderr"; exit 1 }
		lx = $2; ly = $3; lz = $4 }
	/^#/ { next }
	NF { n++; x[n] = $3; y[n] = $4; z[n] = $5 }
	END { flush() }'
}
mkgro() { togro 0 < frames.txt > frames.gro && togro 1 < frames.txt > conf.gro; }
ok gro mkgro

# ---- GROMACS ----------------------------------------------------------------------------
# single-atom molecules; the last one is the test particle
cat > topol.top <<EOF
[ defaults ]
; nbfunc comb-rule gen-pairs
  1       2         no

[ atomtypes ]
; name mass charge ptype sigma epsilon
  AR   $MASS 0.0 A $SIG $EPS

[ moleculetype ]
  AR 1

[ atoms ]
  1 AR 1 AR AR 1 0.0 $MASS

[ system ]
LJ fluid and a test particle

[ molecules ]
AR $N
AR 1
EOF
# tpi.mdp DISPCORR: nstlist = 1, every insertion at a fresh random point
mdp() {
	cat <<EOF
integrator    = tpi
nsteps        = $NINS
nstlist       = 1
ld-seed       = $SEED
cutoff-scheme = Verlet
vdw-type      = Cut-off
vdw-modifier  = None
rvdw          = $RC
rlist         = $RC
coulombtype   = Cut-off
rcoulomb      = $RC
DispCorr      = $1
tcoupl        = no
tc-grps       = System
tau-t         = 1
ref-t         = $TK
EOF
}
# gromacs NAME DISPCORR: grompp and mdrun -rerun; NAME.xvg, NAME.log and
# the wall time of mdrun in NAME.wall
gromacs() {
	local s e
	mdp "$2" > "$1.mdp"
	t "$1-grompp" 0 "gmx -quiet grompp -f $1.mdp -c conf.gro -p topol.top -o $1.tpr -po $1-out.mdp > $1-grompp.log 2>&1" || return
	s=$(date +%s.%N)
	t "$1-mdrun" 0 "gmx -quiet mdrun -s $1.tpr -rerun frames.gro -deffnm $1 -tpi $1.xvg -tpid $1-dist.xvg -xvg none -ntmpi 1 -ntomp 1 -nb cpu > $1-mdrun.out 2>&1" || return
	e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }' > "$1.wall"
}
# xvgstats XVG: beta mu_ex = -ln(mean_f I_f), I_f = <exp(-beta U)> of frame
# f (column 4), and its standard error sd(I_f) / sqrt(n) / mean(I_f); the
# number of frames
xvgstats() {
	awk '/^[#@]/ || !NF { next } { n++; s += $4; ss += $4 * $4 }
	END { if (n < 2) exit 1; m = s / n; v = (ss - n * m * m) / (n - 1); if (v < 0) v = 0
		printf "%.10g %.10g %d\n", -log(m), sqrt(v / n) / m, n }' "$1"
}
# logmu LOG: <mu> of the log, kJ/mol
logmu() {
	awk '/<mu> =/ { print $3 }' "$1"
}

gmxok=0
if gromacs gno no; then
	read -r GB GS GN < <(xvgstats gno.xvg)
	GW=$(cat gno.wall)
	echo "GROMACS, DispCorr = no: beta mu_ex $GB +- $GS over $GN frames; <mu> $(logmu gno.log) kJ/mol"
	near gromacs-frames "$GN" "$NF_" 0 &&
	near gromacs-log-is-xvg "$(awk -v m="$(logmu gno.log)" -v k=$KB -v t="$TK" 'BEGIN { printf "%.10g", m / (k * t) }')" "$GB" 1e-4 &&
	le gromacs-sd-small "$GS" 0.02 && gmxok=1
fi

# ---- tpi-gpu ----------------------------------------------------------------------------
FEK="tpi-gpu -d cpu -v -T -n $NINS -s $SEED --no-deletions"
# fek(5): TEMP is a number of kelvin, which bar-solve reads from
# tpi-gpu's output in gmx units
fekok=0
if t fek-notail 0 "OMP_NUM_THREADS=1 $FEK --no-tail frames.txt > notail.txt" &&
	t fek-tail 0 "OMP_NUM_THREADS=1 $FEK --tail frames.txt > tail.txt"; then
	t bar-notail 0 "bar-solve -m tpi notail.txt > notail.bar" &&
	t bar-tail 0 "bar-solve -m tpi tail.txt > tail.bar" && fekok=1
fi
if [ "$fekok" = 1 ]; then
	read -r FB FS < <(awk '$1 == "TPI" { print $2, $3 }' notail.bar)
	read -r FBT FST < <(awk '$1 == "TPI" { print $2, $3 }' tail.bar)
	ok fek-verbose-tail-off grep -q 'tail off' "$TMP/fek-notail.err"
	ok fek-verbose-tail-on grep -q 'tail on' "$TMP/fek-tail.err"
	echo "tpi-gpu, no tail: beta mu_ex $FB +- $FS; with the tail $FBT +- $FST"
	le fek-sd-small "$FS" 0.02
fi

# ---- the two on the same frames -------------------------------------------------------
if [ "$gmxok" = 1 ] && [ "$fekok" = 1 ]; then
	TOL=$(awk -v a="$FS" -v b="$GS" 'BEGIN { printf "%.6g", 3 * sqrt(a * a + b * b) }')
	echo "beta mu_ex (no tail): tpi-gpu $FB +- $FS, GROMACS $GB +- $GS; difference $(awk -v a="$FB" -v b="$GB" 'BEGIN { printf "%.5f", a - b }'), allowed $TOL"
	near fek-is-gromacs "$FB" "$GB" "$TOL"
fi

# ---- the tail, once ----------------------------------------------------------------------
# beta mu_tail of the finite system: U_tail(N + 1) - U_tail(N), U_tail(N) =
# (8 pi / 3) N^2 / V eps sigma^3 ((sigma/rc)^9 / 3 - (sigma/rc)^3)
BMT=$(awk -v n="$N" -v v="$V" -v e=$EPS -v s=$SIG -v rc="$RC" -v k=$KB -v t="$TK" 'BEGIN {
	x3 = (s / rc) ^ 3; pi = atan2(0, -1)
	printf "%.17g", 8 * pi / 3 * (2 * n + 1) / v * e * s ^ 3 * (x3 ^ 3 / 3 - x3) / (k * t) }')
if [ "$fekok" = 1 ]; then
	DT=$(awk -v a="$FBT" -v b="$FB" 'BEGIN { printf "%.12g", a - b }')
	echo "tail: tpi-gpu --tail minus --no-tail $DT, analytic beta mu_tail $BMT"
	near fek-tail-once "$DT" "$BMT" 1e-9
fi

# ---- GROMACS's dispersion correction (reported) ----------------------------------------
# its own beta mu_tail for one count: dispersion only (EnerPres has no C12
# term) at the density N/V of the others,
# -(16 pi / 3) (N/V) eps sigma^3 (sigma/rc)^3 / kT
BMTG=$(awk -v n="$N" -v v="$V" -v e=$EPS -v s=$SIG -v rc="$RC" -v k=$KB -v t="$TK" 'BEGIN {
	pi = atan2(0, -1); printf "%.17g", -16 * pi / 3 * n / v * e * s ^ 3 * (s / rc) ^ 3 / (k * t) }')
if [ "$gmxok" = 1 ] && gromacs gdc EnerPres; then
	read -r GBD GSD _ < <(xvgstats gdc.xvg)
	# the same seed and frames: the same insertions, so the per-frame
	# difference is the correction alone; its spread says it is constant
	read -r SH SHSD < <(paste <(awk '!/^[#@]/ && NF { print $4 }' gno.xvg) <(awk '!/^[#@]/ && NF { print $4 }' gdc.xvg) | awk '
		{ n++; d = log($1 / $2); s += d; ss += d * d }
		END { m = s / n; printf "%.8g %.3g\n", m, sqrt((ss / n - m * m) > 0 ? ss / n - m * m : 0) }')
	K1=$(awk -v a="$SH" -v b="$BMT" 'BEGIN { printf "%.5f", a / b }')
	K2=$(awk -v a="$SH" -v b="$BMTG" 'BEGIN { printf "%.5f", a / b }')
	echo "GROMACS, DispCorr = EnerPres: beta mu_ex $GBD +- $GSD; minus DispCorr = no: $SH (per frame, sd $SHSD)"
	echo "  = $K1 x our beta mu_tail ($BMT), $K2 x GROMACS's own one-count correction ($BMTG)"
	case $(awk -v k="$K2" 'BEGIN { d1 = k - 1; d2 = k - 2; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
		print (d2 < 1e-3) ? 2 : (d1 < 1e-3) ? 1 : 0 }') in
	2) echo "  GROMACS adds its dispersion correction twice to every insertion (the 2022.5 double count)" ;;
	1) echo "  GROMACS adds its dispersion correction once (the double count of 2022.5 is gone)" ;;
	*) echo "  GROMACS's dispersion correction is neither one nor two of its tail terms" ;;
	esac
fi

# ---- speeds (reported) -------------------------------------------------------------------
if [ "$gmxok" = 1 ] && [ "$fekok" = 1 ]; then
	FR=$(sed -n 's/.*(\([0-9.e+]*\) insertions\/s).*/\1/p' "$TMP/fek-notail.err")
	echo "rates, one core, $((NINS * NF_)) insertions: GROMACS $(awk -v n=$((NINS * NF_)) -v w="$GW" 'BEGIN { printf "%.3g", n / w }')/s (mdrun wall $GW s, start-up included), tpi-gpu -d cpu $FR/s"
fi
