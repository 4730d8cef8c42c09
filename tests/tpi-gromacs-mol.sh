# tests/tpi-gromacs-mol.sh - tpi-gpu --top against GROMACS's test-particle
# insertion of a molecule (gmx mdrun -rerun with integrator = tpi,
# nstlist 1 so that every insertion is at a fresh random point; Debian's
# gromacs 2022.5), run live where gmx is installed.  The frame: 2136
# TIP4P/2005 waters in a 4 nm cube (tests/lib-tpi.sh's big.gro), LJ and
# real space cut at 0.9 nm, PME, DispCorr = no in both.  The solutes,
# each the topology's last molecule and absent from the frame (GROMACS's
# convention, which tpi-gpu follows): a united-atom methane (LJ only) and
# an all-atom methane (charges -0.24 and +0.06 e, PME; its rigid geometry
# GROMACS's template and tpi-gpu's --config alike).  The known answer is
# the independent program: Widom's beta mu_ex = -ln <exp(-beta u)> over
# the frame from each must agree within 4 combined standard errors,
# tpi-gpu's from bar-solve (iid over insertions) and GROMACS's from its
# distribution of insertion energies (-tpid, bins of 0.1 kJ/mol).  The
# insertions are few for a rare-event average (n_eff 10 to 30 a few 1e5),
# so the test catches errors of about a kT (a term left out or counted
# twice), not fine ones; tests/tpi-mol.sh holds each move to md-gpu's
# energies exactly.  The seeds are fixed (FEK_TEST_SEED sets another).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-tpi.sh"

if ! have gmx; then
	skip tpi-gromacs-mol "no gmx (Debian's gromacs)"
	exit 0
fi
SEED=${FEK_TEST_SEED:-20261128}
GMX_MAXBACKUP=-1
export GMX_MAXBACKUP
tpi_mol_inputs || { fail tpi-gromacs-mol-inputs "the inputs could not be made"; exit 0; }
KT=$(awk 'BEGIN { printf "%.17g", 0.00831446261815324 * 300 }')
# the options: big.mdp's without the dispersion correction, rlist the
# cut-off (no Verlet buffer: grompp's check of the box)
{ grep -v -E '^(DispCorr|rlist) ' big.mdp; printf 'DispCorr = no\nrlist = 0.9\n'; } > g.mdp
sed 's/^SOL 267$/SOL 2136/' ua.top > bigua.top
sed 's/^SOL 267$/SOL 2136/' aa.top > bigaa.top

# conf FILE.gro [TEMPLATE.gro]: big.gro with the solute's atoms appended
# (TEMPLATE's, else one atom C at the origin), GROMACS's insertion template
conf() {
	awk -v tf="${2:-}" 'BEGIN { if (tf != "") { while ((getline l < tf) > 0) t[++nt] = l
		na = t[2]; for (i = 1; i <= na; i++) a[i] = t[i + 2] } else { na = 1
		a[1] = sprintf("%5dCH4  %5s%5d%8.3f%8.3f%8.3f", 1, "C", 1, 0, 0, 0) } }
	    NR == 1 { print; next } NR == 2 { n = $1; print n + na; next }
	    NR <= n + 2 { print; next }
	    { for (i = 1; i <= na; i++) printf "%5d%s%5d%s\n", 2137, substr(a[i], 6, 10), n + i, substr(a[i], 21)
	      print }' big.gro > "$1"
}
# gmxmu NAME TOP CONF N: GROMACS's beta mu_ex = -ln <exp(-beta u)> (its
# NAME.xvg, column 4) and its standard error from the distribution of its
# N insertion energies (NAME-dist.xvg: beta u in bins of 0.1, counts), the
# count, into NAME.mu
gmxmu() {
	{ grep -v -E '^(integrator|nsteps|gen-|ld-seed|tc-grps|tau-t|ref-t) ' g.mdp
	  printf 'integrator = tpi\nnsteps = %s\nnstlist = 1\nrtpi = 0.05\nld-seed = %s\n' "$4" "$SEED"
	  printf 'tc-grps = System\ntau-t = 1\nref-t = 300\n'; } > "$1.mdp"
	t "$1-grompp" 0 "gmx -quiet grompp -f $1.mdp -c $3 -p $2 -o $1.tpr > $1-grompp.log 2>&1" || return 1
	t "$1-mdrun" 0 "gmx -quiet mdrun -s $1.tpr -rerun big.gro -deffnm $1 -tpi $1.xvg -tpid $1-dist.xvg -xvg none -ntmpi 1 -ntomp 1 -nb cpu > $1-mdrun.out 2>&1" || return 1
	# the histogram holds only the insertions below 60 kT; the others
	# add nothing to the sums but count in N
	awk -v n="$4" 'FNR == 1 { f++ } f == 1 && NF { m = $4 }
	    f == 2 && NF { k += $2; w = exp(-$1); s += $2 * w; ss += $2 * w * w }
	    END { if (k == 0 || s == 0 || m <= 0) exit 1; a = s / n; v = ss / n - a * a; if (v < 0) v = 0
		printf "%.10g %.10g %d %d\n", -log(m), sqrt(v / n) / a, n, k }' "$1.xvg" "$1-dist.xvg" > "$1.mu"
}
# fekmu NAME N ARGS: tpi-gpu's beta mu_ex, its iid standard error and N
# into NAME.mu
fekmu() {
	local n=$1 k=$2
	shift 2
	t "$n-fek" 0 "tpi-gpu -d cpu -q -t 300 -n $k -s $SEED $* big.gro > $n.fek" || return 1
	bar-solve -m tpi -n 0 "$n.fek" 2> /dev/null |
	    awk -v k="$k" '$1 == "TPI" { printf "%.10g %.10g %d\n", $2, $4, k }' > "$n.mu"
}
# compare NAME GMX FEK: the two .mu files within 4 combined standard
# errors, some of GROMACS's insertions below 60 kT
compare() {
	set -- "$1" $(cat "$2.mu") $(cat "$3.mu")
	echo "tpi-gromacs-mol: $1: GROMACS $2 +- $3 ($4 insertions, $5 below 60 kT), tpi-gpu $6 +- $7 ($8) (kT)"
	ok "$1-below-60" test "${5:-0}" -gt 0
	le "$1-agree" "$(awk -v a="$2" -v sa="$3" -v b="$6" -v sb="$7" 'BEGIN { d = a - b; if (d < 0) d = -d
	    printf "%.6g\n", d / sqrt(sa * sa + sb * sb) }')" 4
}

conf gua.gro
gmxmu gua bigua.top gua.gro 300000 && fekmu ua 1500000 --top bigua.top --mdp g.mdp &&
    compare methane-ua gua ua
conf gaa.gro methane.gro
gmxmu gaa bigaa.top gaa.gro 100000 && fekmu aa 300000 --top bigaa.top --mdp g.mdp --config methane.gro &&
    compare methane-aa gaa aa
