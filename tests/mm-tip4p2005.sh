# tests/mm-tip4p2005.sh - the TIP4P/2005 water of issue 27
# (testdata/mm/tip4p2005.top, .itp and .mdp, written from Abascal and
# Vega, J. Chem. Phys. 123, 234505 (2005); testdata/mm/tip4p2005-267.gro,
# 267 molecules in a 2 nm cube equilibrated at 300 K, testdata/mm/README):
#   - the topology against the paper: settles' doh and dhh (HOH 104.52
#     deg), the M site's a = b giving |OM| = 0.01546 nm, the charges,
#     O's sigma and epsilon/k;
#   - the frame's geometry: O-H 0.09572 nm, HOH 104.52 deg, |OM| 0.01546
#     nm with M where the topology's [ virtual_sites3 ] a = b puts it,
#     every molecule to the .gro's three decimals and the means over the
#     267 molecules closer (TIP4P's |OM| 0.015 nm is 4.6e-4 off, about
#     18 standard errors of the mean);
#   - md-gpu --top --rerun of the frame at the NIST SRSW condition
#     (PME, rc 1.0 nm, LJ truncated with DispCorr EnerPres): every term
#     finite, no bonded energy (rigid), LJ (SR) equal to the sum over the
#     O-O pairs within 1.0 nm done here (truncated, no shift), the
#     dispersion correction equal to the analytic -2/3 pi N^2/V C6(OO) /
#     rc^3 (N = 267 oxygens, no other atom with a C6), and the potential energy a molecule that of liquid
#     TIP4P/2005 near 300 K: -47.7 +- 3 kJ/mol (-47.9 over the last 5 ps
#     of the frame's equilibration, -48.43 for the frame; -41.5, SPC/E's
#     value, would be well outside);
#   - where gmx_d (else gmx) is installed, GROMACS 2022's grompp, mdrun
#     -rerun and energy on the same topology and .mdp, term by term within
#     1e-6 relative (tests/lib-mm.sh's gmx_energy, ours and compare).
#     grompp refuses a cut-off of half the box (its check is
#     rlist^2 >= (L/2)^2), so GROMACS gets the frame copied twice along
#     each edge (gmx genconf -nbox 2 2 2: 2136 molecules in a 4 nm cube),
#     the same periodic system; md-gpu's terms for that copy are 8 times
#     those of the 2 nm frame (within 1e-9 relative: the same pairs, and
#     the same PME modes on a grid of twice the points over twice the
#     edge).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-mm.sh"

D=$TOP/testdata/mm
GRO=$D/tip4p2005-267.gro

# ---- the topology's numbers ------------------------------------------------------
# The itp's settles (doh, dhh), the M site's a and b, the charges and the
# O atom type's sigma and epsilon, against the paper's numbers: the
# rerun below takes M where the frame has it (md-gpu, and gmx mdrun
# -rerun alike), so a wrong a would pass it unseen.
four_site_checks mm-tip4p2005 "$D/tip4p2005.itp" "$D/tip4p2005.top" OW_tip4p2005 \
    0.01546 0.5564 0.31589 93.2
read -r doh dhh a b qh qm qsum < itp

# ---- the geometry of the frame ----------------------------------------------
# One line: molecules, then for O-H, HOH and |OM| the mean and the largest
# deviation from the model's value, then the largest distance of M from
# O + a (H1 - O) + a (H2 - O), then 1 if every molecule is OW HW1 HW2 MW.
# Minimum image in the cubic box, in case a molecule straddles a face.
awk -v a="$a" -v doh=0.09572 -v hoh=104.52 -v dom=0.01546 '
function mi(d) { return d - L * int(d / L + (d >= 0 ? 0.5 : -0.5)) }
function len(x, y, z) { return sqrt(x * x + y * y + z * z) }
function dev(v, w) { return v > w ? v - w : w - v }
NR == 2 { n = $1; next }
NR > 2 && NR <= n + 2 {
	i = NR - 3
	nm[i] = substr($0, 11, 5); gsub(/ /, "", nm[i])
	X[i] = substr($0, 21, 8) + 0; Y[i] = substr($0, 29, 8) + 0; Z[i] = substr($0, 37, 8) + 0
	next
}
NR == n + 3 { L = $1 }
END {
	names = 1; nmol = n / 4
	for (m = 0; m < nmol; m++) {
		o = 4 * m
		if (nm[o] != "OW" || nm[o + 1] != "HW1" || nm[o + 2] != "HW2" || nm[o + 3] != "MW")
			names = 0
		for (j = 1; j <= 3; j++) {
			dx[j] = mi(X[o + j] - X[o]); dy[j] = mi(Y[o + j] - Y[o]); dz[j] = mi(Z[o + j] - Z[o])
		}
		r1 = len(dx[1], dy[1], dz[1]); r2 = len(dx[2], dy[2], dz[2])
		rm = len(dx[3], dy[3], dz[3])
		c = (dx[1] * dx[2] + dy[1] * dy[2] + dz[1] * dz[2]) / (r1 * r2)
		ang = atan2(sqrt(1 - c * c), c) * 45 / atan2(1, 1)
		soh += r1 + r2; sang += ang; som += rm
		if (dev(r1, doh) > moh) moh = dev(r1, doh)
		if (dev(r2, doh) > moh) moh = dev(r2, doh)
		if (dev(ang, hoh) > mang) mang = dev(ang, hoh)
		if (dev(rm, dom) > mom) mom = dev(rm, dom)
		ex = a * (dx[1] + dx[2]) - dx[3]; ey = a * (dy[1] + dy[2]) - dy[3]; ez = a * (dz[1] + dz[2]) - dz[3]
		if (len(ex, ey, ez) > msite) msite = len(ex, ey, ez)
	}
	printf "%d %.7f %.7f %.5f %.5f %.7f %.7f %.7f %d\n", nmol, soh / (2 * nmol), moh,
	    sang / nmol, mang, som / nmol, mom, msite, names
}' "$GRO" > geom
echo "mm-tip4p2005: molecules, mean and largest deviation of O-H (nm), HOH (deg), |OM| (nm); largest M off its site (nm); names: $(cat geom)"
read -r nmol moh_mean moh_max ang_mean ang_max om_mean om_max site_max names < geom
near molecules "$nmol" 267 0
near atom-names "$names" 1 0
# .gro rounding: each coordinate within 0.0005 nm, a difference of two
# atoms' within 0.001, a distance within sqrt(3) 0.001 = 0.0017 nm; the
# means of 534 O-H and 267 |OM| and HOH have standard errors of about
# 2e-5 nm and 0.03 deg
near oh-mean "$moh_mean" 0.09572 1e-4
le oh-each "$moh_max" 0.0018
near hoh-mean "$ang_mean" 104.52 0.15
le hoh-each "$ang_max" 2.5
near om-mean "$om_mean" 0.01546 1e-4
le om-each "$om_max" 0.0018
le m-site "$site_max" 0.0018
# the box: 2 nm cube, 267 molecules of 18.0154 g/mol = 998.4 kg/m^3
near box "$(awk 'END { print $1 + $2 + $3 }' "$GRO")" 6 0
near density "$(awk -v n="$nmol" 'BEGIN { print n * 18.0154 / 6.02214076e23 / 8e-21 * 1000 }')" 998.4 0.05

# ---- md-gpu --rerun -------------------------------------------------------------
t rerun 0 "md-gpu -d cpu --top $D/tip4p2005.top --mdp $D/tip4p2005.mdp --rerun $GRO -T > rerun.fek"
# columns: frame step bond angle ub pdih pidih rb idih lj14 coul14 ljsr
# dispcorr coulsr coulrecip pot
awk '!/^#/ { print; exit }' rerun.fek > row
echo "mm-tip4p2005: md-gpu LJ (SR), Disper. corr., Coulomb (SR), Coul. recip., Potential (kJ/mol): $(awk '{ print $12, $13, $14, $15, $16 }' row)"
ok finite awk 'BEGIN { e = 1 } { e = 0; for (i = 3; i <= 16; i++)
    if ($i !~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) { print "term " i ": " $i > "/dev/stderr"; e = 1 } }
    END { exit e }' row
near no-bonded "$(awk '{ s = 0; for (i = 3; i <= 11; i++) s += ($i < 0 ? -$i : $i); print s }' row)" 0 0
# -2/3 pi N^2/V C6 / rc^3, C6 = 4 eps sigma^6, eps = 93.2 K k_B
near dispcorr "$(awk '{ print $13 }' row)" \
    "$(awk 'BEGIN { e = 0.774907914; s = 0.31589; c6 = 4 * e * s^6; printf "%.9f", -2 / 3 * 3.14159265358979 * 267 * 267 / 8 * c6 }')" 1e-6
# LJ (SR) by hand: O-O pairs, minimum image, truncated at 1.0 nm with no
# shift (vdw-modifier None), sigma and epsilon from the paper
awk -v n="$nmol" 'NR > 2 && NR <= 4 * n + 2 && (NR - 3) % 4 == 0 {
	k++; X[k] = substr($0, 21, 8) + 0; Y[k] = substr($0, 29, 8) + 0; Z[k] = substr($0, 37, 8) + 0 }
    NR == 4 * n + 3 { L = $1 }
    function mi(d) { return d - L * int(d / L + (d >= 0 ? 0.5 : -0.5)) }
    END { e = 93.2 * 0.0083144626; s6 = 0.31589^6
	for (i = 1; i < k; i++) for (j = i + 1; j <= k; j++) {
		dx = mi(X[j] - X[i]); dy = mi(Y[j] - Y[i]); dz = mi(Z[j] - Z[i])
		r2 = dx * dx + dy * dy + dz * dz
		if (r2 < 1) { c = s6 / (r2 * r2 * r2); u += 4 * e * c * (c - 1) }
	}
	printf "%.12g\n", u }' "$GRO" > ljhand
echo "mm-tip4p2005: LJ (SR) by hand $(cat ljhand), md-gpu $(awk '{ print $12 }' row)"
le lj-by-hand "$(awk -v h="$(cat ljhand)" '{ d = $12 - h; if (d < 0) d = -d; printf "%.3g", d / h }' row)" 1e-8
near potential-per-molecule "$(awk '{ printf "%.3f", $16 / 267 }' row)" -47.7 3
le lj-positive 0 "$(awk '{ print $12 }' row)"

# ---- GROMACS on the same files ------------------------------------------------------
if have gmx_d; then
	GMX=gmx_d
elif have gmx; then
	GMX=gmx
else
	skip tip4p2005-gmx "no gmx (Debian's gromacs: scripts/install-deps bench)"
	exit 0
fi
GMX_MAXBACKUP=-1
export GMX_MAXBACKUP
echo "mm-tip4p2005: $($GMX --version 2>/dev/null | awk '/^GROMACS version/ { v = $3 } /^Precision/ { p = $2 } END { print "GROMACS", v, p }')"

# grompp refuses the 2 nm frame itself: the cut-off is half its edge
t gmx-refuses-half-box 1 "$GMX grompp -f $D/tip4p2005.mdp -c $GRO -p $D/tip4p2005.top -o half.tpr > half.grompp 2>&1 || { grep -q 'longer than half the shortest box' half.grompp && echo 'grompp: cut-off is half the box' >&2 && exit 1; }"
t big-gro 0 "$GMX genconf -f $GRO -nbox 2 2 2 -o big.gro > gc.log 2>&1"
t big-top 0 "cp $D/tip4p2005.itp . && sed 's/^ *SOL *267 *$/  SOL  2136/' $D/tip4p2005.top > big.top && grep -q '^  SOL  2136\$' big.top"
MM_TOL=1e-6 MM_TOL_RECIP=1e-6
if gmx_energy tip4p2005 "$D/tip4p2005.mdp" big.top big.gro &&
    ours tip4p2005 "$D/tip4p2005.mdp" big.top big.gro; then
	near gmx-terms "$(awk 'END { print NR }' tip4p2005.gmx)" 5 0
	compare tip4p2005
else
	fail tip4p2005 "a run failed: $(grep -A 1 ERROR tip4p2005.grompp 2>/dev/null | head -n 2) $(tail -n 2 tip4p2005.mdrun 2>/dev/null) $(tail -n 2 tip4p2005.fek 2>/dev/null)"
fi

# md-gpu's terms of the copy: 8 times the frame's
if [ -s tip4p2005.ours ]; then
	set -- "LJ-(SR)" 12 "Disper.-corr." 13 "Coulomb-(SR)" 14 "Coul.-recip." 15 Potential 16
	while [ $# -ge 2 ]; do
		big=$(awk -v t="$1" '$1 == t { print $2 }' tip4p2005.ours)
		small=$(awk -v c="$2" '{ print $c }' row)
		r=$(awk -v b="$big" -v s="$small" 'BEGIN { d = b - 8 * s; if (d < 0) d = -d; a = b < 0 ? -b : b; printf "%.3g", d / a }')
		echo "mm-tip4p2005: $1 2136 molecules $big, 8 x 267 molecules $(awk -v s="$small" 'BEGIN { printf "%.10g", 8 * s }') (rel. diff $r)"
		le "eight-copies-$1" "$r" 1e-9
		shift 2
	done
else
	fail eight-copies "no md-gpu terms of big.gro"
fi
