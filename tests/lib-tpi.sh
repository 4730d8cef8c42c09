# tests/lib-tpi.sh - what the test-insertion tests share (tests/tpi-mol.sh,
# gpu-tpi.sh, gpu-tpi-mol.sh): the sections and differences of two runs'
# outputs, and the molecular systems of tpi-gpu --top's tests.  Sourced
# after tests/lib.sh.

# section KIND FILE: the data rows of every section of KIND
section() { awk -v k="$1" '/^#KIND/ { in_k = ($2 == k) } /^#/ { next } in_k' "$2"; }
# relmax A B COLS [FLOOR]: the largest relative difference of the columns
# COLS (space separated) of two row files, finite values, |a - b| /
# (|a| + FLOOR) (FLOOR 1e-300 unless given); inf must match
relmax() {
	paste "$1" "$2" | awk -v cols="$3" -v fl="${4:-1e-300}" '
	BEGIN { nc = split(cols, c, " ") }
	{ h = NF / 2; for (i = 1; i <= nc; i++) { a = $(c[i]); b = $(c[i] + h)
	    if (a == b) continue
	    if (a ~ /inf/ || b ~ /inf/) { bad = 1; continue }
	    d = (a - b) / ((a < 0 ? -a : a) + fl); if (d < 0) d = -d; if (d > m) m = d } n++ }
	END { if (bad || n == 0) print 1; else printf "%.3g\n", m }'
}
# histdiff A B: moves whose histogram bin differs, over all moves
histdiff() {
	awk 'FNR == 1 { f++ } { k = $1 " " $2; if (f == 1) { i[k] = $3; d[k] = $4 } else { i[k] -= $3; d[k] -= $4 }; n += $3 + $4 }
	END { for (k in i) { x = i[k] < 0 ? -i[k] : i[k]; y = d[k] < 0 ? -d[k] : d[k]; s += x + y } printf "%.3g\n", n ? s / n : 1 }' "$1" "$2"
}

# top with its last [ molecules ] count changed by $2
count() {
	awk -v d="$2" '{ l[NR] = $0 } /^[ \t]*[A-Za-z]/ && m { last = NR }
	    /\[ *molecules *\]/ { m = 1 }
	    END { for (i = 1; i <= NR; i++) {
		if (i == last) { split(l[i], f); print f[1], f[2] + d }
		else print l[i] } }' "$1"
}

solute_top() {	# solute_top N TYPES MOLTYPE NAME COUNT
	{ sed -n '/\[ *defaults *\]/,/^$/p' tip4p2005.top
	  sed -n '/\[ *atomtypes *\]/,/^$/p' tip4p2005.top | grep -v '^$'
	  printf '%b\n' "$2"
	  echo '#include "tip4p2005.itp"'
	  printf '%b\n' "$3"
	  printf '[ system ]\nsolute in water\n[ molecules ]\nSOL 267\n'
	  [ "$5" -gt 0 ] && echo "$4 $5"; } > "$1"
}

# tpi_mol_inputs: in this directory, the systems of tpi-gpu --top's tests:
# TIP4P/2005 (testdata/mm: 267 waters at the SRSW options, rc = L/2) and
# three sets of options (pme.mdp: PME with potential-shift and EnerPres;
# pme6.mdp: PME of order 6 with plain cut-offs and Ener; rf.mdp: reaction
# field without the dispersion correction); npt.gro, the frame and the
# frame scaled by 1.01 (an NPT run's changing box); big.gro, big.top,
# big.mdp, the frame copied 2 x 2 x 2 (2136 waters in a 4 nm cube, 8
# cells a side at rc 0.9 nm); tilt.gro, that with a tilt of 1e-9 nm (the
# triclinic path); ua.top (a united-atom methane, TraPPE), sol0.top (the
# waters alone) and aa.top (an all-atom methane, OPLS-like, its
# geometry methane.gro's), each the topology's last molecule, absent from
# the frames
tpi_mol_inputs() {
	cp "$TOP"/testdata/mm/tip4p2005* . || return 1
	cat > pme.mdp <<-'EOF'
	coulombtype = PME
	rcoulomb = 0.9
	rvdw = 0.9
	DispCorr = EnerPres
	fourierspacing = 0.12
	pme-order = 4
	ewald-rtol = 1e-5
	EOF
	cat > pme6.mdp <<-'EOF'
	coulombtype = PME
	coulomb-modifier = None
	vdw-modifier = None
	rcoulomb = 0.9
	rvdw = 0.85
	DispCorr = Ener
	fourierspacing = 0.1
	pme-order = 6
	ewald-rtol = 1e-6
	EOF
	cat > rf.mdp <<-'EOF'
	coulombtype = Reaction-Field
	epsilon-rf = 78
	rcoulomb = 0.9
	rvdw = 0.9
	DispCorr = no
	EOF
	awk 'NR == 1 { print; next } NR == 2 { n = $1; print; next }
	    NR <= n + 2 { printf "%s%8.3f%8.3f%8.3f\n", substr($0, 1, 20),
		substr($0, 21, 8) * 1.01, substr($0, 29, 8) * 1.01, substr($0, 37, 8) * 1.01; next }
	    { printf "%10.5f%10.5f%10.5f\n", $1 * 1.01, $2 * 1.01, $3 * 1.01 }' \
	    tip4p2005-267.gro > scaled.gro
	cat tip4p2005-267.gro scaled.gro > npt.gro
	solute_top ua.top 'CH4 6 16.043 0.0 A 0.373 1.23051' \
	    '[ moleculetype ]\nCH4 0\n[ atoms ]\n1 CH4 1 CH4 C 1 0 16.043' CH4 1
	solute_top sol0.top 'CH4 6 16.043 0.0 A 0.373 1.23051' \
	    '[ moleculetype ]\nCH4 0\n[ atoms ]\n1 CH4 1 CH4 C 1 0 16.043' CH4 0
	solute_top aa.top 'CT 6 12.011 0.0 A 0.35 0.276144\nHC 1 1.008 0.0 A 0.25 0.12552' \
	    '[ moleculetype ]\nMET 3\n[ atoms ]\n1 CT 1 MET C 1 -0.24 12.011\n2 HC 1 MET H1 1 0.06 1.008\n3 HC 1 MET H2 1 0.06 1.008\n4 HC 1 MET H3 1 0.06 1.008\n5 HC 1 MET H4 1 0.06 1.008\n[ bonds ]\n1 2 1 0.109 284512\n1 3 1 0.109 284512\n1 4 1 0.109 284512\n1 5 1 0.109 284512\n[ angles ]\n2 1 3 1 109.5 276.144\n2 1 4 1 109.5 276.144\n2 1 5 1 109.5 276.144\n3 1 4 1 109.5 276.144\n3 1 5 1 109.5 276.144\n4 1 5 1 109.5 276.144' MET 1
	# the all-atom geometry: C at the origin, H at the corners of a cube's
	# alternate vertices 0.109 nm away (the tetrahedral angle)
	awk 'BEGIN { h = 0.109 / sqrt(3); print "methane"; print 5
	    printf "%5dMET  %5s%5d%8.4f%8.4f%8.4f\n", 1, "C", 1, 1, 1, 1
	    printf "%5dMET  %5s%5d%8.4f%8.4f%8.4f\n", 1, "H1", 2, 1 + h, 1 + h, 1 + h
	    printf "%5dMET  %5s%5d%8.4f%8.4f%8.4f\n", 1, "H2", 3, 1 + h, 1 - h, 1 - h
	    printf "%5dMET  %5s%5d%8.4f%8.4f%8.4f\n", 1, "H3", 4, 1 - h, 1 + h, 1 - h
	    printf "%5dMET  %5s%5d%8.4f%8.4f%8.4f\n", 1, "H4", 5, 1 - h, 1 - h, 1 + h
	    print "   2.00000   2.00000   2.00000" }' > methane.gro
	"$TOP/scripts/gro-copy" 2 2 2 < tip4p2005-267.gro > big.gro
	count tip4p2005.top 1869 > big.top
	{ grep -v -E '^(rcoulomb|rvdw|rlist) ' tip4p2005.mdp; printf 'rcoulomb = 0.9\nrvdw = 0.9\n'; } > big.mdp
	awk '{ l[NR] = $0 } END { for (i = 1; i < NR; i++) print l[i]
	    print "   4.00000   4.00000   4.00000   0.00000   0.00000   1e-9   0.00000   0.00000   0.00000" }' big.gro > tilt.gro
}
