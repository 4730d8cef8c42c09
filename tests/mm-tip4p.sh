# tests/mm-tip4p.sh - the original TIP4P of testdata/mm/tip4p.top and
# .itp (Jorgensen et al. 1983, written from the paper's numbers for
# pipelines/water-widom's MODEL=tip4p):
#   - the topology against the paper: settles' doh and dhh (HOH 104.52
#     deg), the M site's a = b giving |OM| = 0.015 nm, q(H) 0.52 and
#     q(M) -1.04 e, O's sigma 0.315365 nm and epsilon/k 78.0 K;
#   - where GROMACS's data are installed, md-gpu --top --rerun of
#     GROMACS's 216 TIP4P waters (tip4p.gro) with this topology and with
#     GROMACS's own oplsaa.ff/tip4p.itp (epsilon 0.648520 kJ/mol, the
#     paper's 0.155 kcal/mol; ours is SRSW's 78.0 K): every Coulomb
#     term the same within 1e-10 relative (the same charges and sites),
#     LJ (SR) and the dispersion correction in the ratio of the two
#     epsilons, 0.648528083 / 0.648520, within 1e-10.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-mm.sh"

D=$TOP/testdata/mm
four_site_checks mm-tip4p "$D/tip4p.itp" "$D/tip4p.top" OW_tip4p 0.015 0.52 \
    0.315365 78.0

G=/usr/share/gromacs/top
if [ ! -f "$G/tip4p.gro" ] || [ ! -f "$G/oplsaa.ff/tip4p.itp" ]; then
	skip mm-tip4p-gmx "no GROMACS data ($G: scripts/install-deps check)"
	exit 0
fi
cp "$G/tip4p.gro" "$D/tip4p.itp" .
sed 's/^  SOL  267$/  SOL  216/' "$D/tip4p.top" > ours.top
printf '#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/tip4p.itp"\n[ system ]\nTIP4P\n[ molecules ]\nSOL 216\n' > gmx.top
printf 'coulombtype = PME\nrcoulomb = 0.9\nrvdw = 0.9\nDispCorr = EnerPres\nfourierspacing = 0.1\newald-rtol = 1e-5\n' > r.mdp
t rerun-ours 0 "md-gpu -d cpu --top ours.top --mdp r.mdp --rerun tip4p.gro -T > ours.txt"
t rerun-gmx 0 "md-gpu -d cpu --top gmx.top --mdp r.mdp --rerun tip4p.gro -T > gmx.txt"
# term NAME FILE: the value of column NAME of the rerun's row
term() {
	awk -v c="$1" '/^#COL/ { n++; if ($2 == c) k = n } !/^#/ { printf "%.17g\n", $k; exit }' "$2"
}
for c in coulsr coulrecip; do
	o=$(term $c ours.txt)
	g=$(term $c gmx.txt)
	echo "mm-tip4p: $c ours $o GROMACS's topology $g"
	near "coul-$c" "$o" "$g" "$(awk -v g="$g" 'BEGIN { printf "%.3g", (g < 0 ? -g : g) * 1e-10 }')"
done
for c in ljsr dispcorr; do
	o=$(term $c ours.txt)
	g=$(term $c gmx.txt)
	echo "mm-tip4p: $c ours $o GROMACS's topology $g"
	near "lj-$c" "$(awk -v o="$o" -v g="$g" 'BEGIN { printf "%.15f", o / g }')" \
	    "$(awk 'BEGIN { printf "%.15f", 0.648528083 / 0.648520 }')" 1e-10
done
