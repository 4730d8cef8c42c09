# tests/lib-mm.sh - helpers of the molecular-system tests: the build of
# alanine dipeptide (ACE-ALA-NME) with GROMACS for tests/mm-gmx.sh,
# mm-md.sh, mm-replicas.sh, gpu-mm.sh, gpu-mm-run.sh and
# gpu-mm-replicas.sh, the GPU tests' systems (also scripts/mm-gpu-data),
# the thermostats' statistics of an energy log for mm-md.sh and
# gpu-mm-run.sh, the reader of the C check programs' verdicts
# (mm-bonded.sh, mm-constr.sh, mm-pme.sh, gpu-mm.sh), and the term by term
# comparison of md-gpu --rerun with gmx mdrun -rerun (mm-gmx.sh,
# mm-tip4p2005.sh), the four-site water topologies' numbers (mm-tip4p.sh,
# mm-tip4p2005.sh) and the barostat's ideal gas (mm-baro.sh,
# gpu-mm-run.sh).  Source it after
# lib.sh.  The heavy atoms come from testdata/mm/ala2-heavy.pdb and gmx
# pdb2gmx adds the hydrogens (-ignh).  Each builder prints a command
# line for t (which runs it with sh -c in $TMP), so that every test keeps
# its own result names and file names; whether gmx is installed, and
# what to skip when it is not, stays with each test.
ALA2_PDB=$TOP/testdata/mm/ala2-heavy.pdb

# ala2_pdb2gmx GMX GRO TOP: GMX pdb2gmx builds the dipeptide in
# amber99sb-ildn with TIP3P as GRO and TOP; its output goes to p2g.log.
ala2_pdb2gmx() {
	echo "$1 pdb2gmx -f $ALA2_PDB -ff amber99sb-ildn -water tip3p -ignh -o $2 -p $3 > p2g.log 2>&1"
}

# ala2_box GMX GRO: GMX editconf centres GRO in a cube of 3 nm as
# ala2.gro; its output goes to ec.log.
ala2_box() {
	echo "$1 editconf -f $2 -o ala2.gro -box 3 -c > ec.log 2>&1"
}

# ala2_amber TOP: both of the above with gmx, through a.gro, which leave
# the dipeptide in vacuum as ala2.gro and TOP.
ala2_amber() {
	echo "$(ala2_pdb2gmx gmx a.gro "$1") &&
	$(ala2_box gmx a.gro)"
}

# ala2_solvate GMX TOP: GMX solvate fills the box of ala2.gro with SPC216
# waters as ala2-wat.gro and adds them to TOP; its output goes to
# solv.log.
ala2_solvate() {
	echo "$1 solvate -cp ala2.gro -cs spc216.gro -p $2 -o ala2-wat.gro > solv.log 2>&1"
}

# ala2_charmm GMX PDB GRO TOP [CHECK]: the dipeptide in charmm27 with
# TIP3P, centred in a cube of 3 nm as ala2c.gro, and its topology without
# the CMAP (which md-gpu lacks) as TOP.  charmm27 calls the methylamide
# cap CT3, so the heavy atoms are first renamed into PDB, and its termini
# are chosen by hand (None and None: 3 and 5 in its lists).  GMX pdb2gmx
# writes GRO, the full topology ala2c-cmap.top and its output to
# p2gc.log; the command line CHECK, where one is given, runs next; the
# output of editconf goes to ecc.log.
ala2_charmm() {
	echo "sed 's/NME/CT3/' $ALA2_PDB > $2 &&
	printf '3\\n5\\n' | $1 pdb2gmx -f $2 -ff charmm27 -water tip3p -ignh -ter -o $3 -p ala2c-cmap.top > p2gc.log 2>&1 &&${5:+
	$5 &&}
	awk '/^\\[ *cmap *\\]/ { skip = 1; next } /^[[#]/ { skip = 0 } !skip' ala2c-cmap.top > $4 &&
	$1 editconf -f $3 -o ala2c.gro -box 3 -c > ecc.log 2>&1"
}


# mm_gpu_inputs: the systems of the GPU tests (gpu-mm.sh, gpu-mm-run.sh,
# gpu-mm-replicas.sh), made with gmx in the current folder: spc216.gro and
# spce216.top, tip4p.top and .gro (1728 TIP4P), ala2.top and .gro
# (vacuum), ala2w.top and ala2-wat.gro (TIP3P), ala2c.top and .gro
# (charmm27), each topology preprocessed by grompp -pp, and big.gro (27
# copies of spc216.gro).  A shell function: run it with ok, not t.
mm_gpu_inputs() {
	local G=/usr/share/gromacs/top
	cp $G/spc216.gro . &&
	cp "$TOP/testdata/mm/spce216.top" . &&
	printf '#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/tip4p.itp"\n[ system ]\nTIP4P\n[ molecules ]\nSOL 1728\n' > tip4p-raw.top &&
	gmx genconf -f $G/tip4p.gro -nbox 2 2 2 -o tip4p.gro > gc.log 2>&1 &&
	gmx genconf -f spc216.gro -nbox 3 3 3 -o big.gro > gcb.log 2>&1 &&
	sh -c "$(ala2_amber ala2-raw.top)" &&
	cp ala2-raw.top ala2w-raw.top &&
	sh -c "$(ala2_solvate gmx ala2w-raw.top)" &&
	sh -c "$(ala2_charmm gmx c.pdb c.gro ala2c-raw.top)" &&
	printf 'coulombtype = PME\nrcoulomb = 0.9\nrvdw = 0.9\n' > pp.mdp &&
	for s in tip4p:tip4p ala2:ala2 ala2w:ala2-wat ala2c:ala2c; do
		gmx grompp -f pp.mdp -p ${s%%:*}-raw.top -c ${s#*:}.gro -pp ${s%%:*}.top -o x.tpr -maxwarn 10 > pp.log 2>&1 || return 1
	done
}

# reldev X REF: |X / REF - 1|.
reldev() {
	awk -v t="$1" -v r="$2" 'BEGIN { d = t / r - 1; print d < 0 ? -d : d }'
}

# thermostat_stats LOG: of an md-gpu --top energy log (E, T and H in
# columns 19, 20 and 21), from step 1000 on, the mean T and |dH| / |E|,
# the change of H between the first and the last of those rows over the
# first's |E|.
thermostat_stats() {
	awk '!/^#/ && $2 >= 1000 { n++; t += $20; h[n] = $21; e[n] = $19 }
	    END { d = h[n] - h[1]; if (d < 0) d = -d; a = e[1] < 0 ? -e[1] : e[1]; printf "%.4f %.3g\n", t / n, d / a }' "$1"
}

# check_lines PREFIX FILE: each "ok NAME" / "FAIL NAME: why" line of FILE
# (the output of a C check program, tests/check.h) as the result
# PREFIXNAME; the number of them in check_nres.
check_lines() {
	local verdict name rest
	check_nres=0
	while read -r verdict name rest; do
		case $verdict in
		ok) pass "$1$name"; check_nres=$((check_nres + 1)) ;;
		FAIL) fail "$1${name%:}" "$rest"; check_nres=$((check_nres + 1)) ;;
		esac
	done < "$2"
}

# check_prog NAME WANT PROG ARG...: run the check program PROG (its output
# in $TMP/NAME.out and .err), each of its verdicts a result NAME:CHECK;
# NAME-run fails if it exited other than 0 (all passed) or 1 (some
# failed), as after a crash or a usage error; NAME-count passes iff it
# gave WANT verdicts (a check that stopped early gives fewer); NAME-status
# fails if it exited 1 without a FAIL line.
check_prog() {
	local name=$1 want=$2 rc
	shift 2
	"$@" > "$TMP/$name.out" 2> "$TMP/$name.err" < /dev/null
	rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
		fail "$name-run" "exit $rc: $(tail -n 1 "$TMP/$name.err")"
	fi
	check_lines "$name:" "$TMP/$name.out"
	if [ "$check_nres" = "$want" ]; then
		pass "$name-count"
	else
		fail "$name-count" "$check_nres results, expected $want"
	fi
	if [ "$rc" = 1 ] && ! grep -q '^FAIL' "$TMP/$name.out"; then
		fail "$name-status" "exit 1 without a FAIL line"
	fi
}

# ---- md-gpu --rerun against gmx mdrun -rerun (mm-gmx.sh, mm-tip4p2005.sh) ----
# The caller sets GMX (gmx_d or gmx) and GMX_MAXBACKUP=-1.

# gmx_energy NAME MDP TOP GRO: GROMACS's terms for GRO as "name value"
# lines (spaces in names as '-') in NAME.gmx
gmx_energy() {
	local n=$1 mdp=$2 top=$3 gro=$4
	$GMX grompp -f "$mdp" -c "$gro" -p "$top" -o "$n.tpr" -maxwarn 10 > "$n.grompp" 2>&1 &&
	$GMX mdrun -s "$n.tpr" -rerun "$gro" -nt 1 -e "$n.edr" -g "$n.log" > "$n.mdrun" 2>&1 &&
	{ printf '%s\n' Bond Angle U-B Proper-Dih. Per.-Imp.-Dih. Ryckaert-Bell. \
	    Improper-Dih. LJ-14 Coulomb-14 LJ-\(SR\) Disper.-corr. Coulomb-\(SR\) \
	    Coul.-recip. Potential | $GMX energy -f "$n.edr" -o "$n.xvg" > "$n.energy" 2>&1; } &&
	awk '/^@ s[0-9]+ legend/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*$/, "", s); gsub(/ /, "-", s); name[n++] = s }
	    !/^[#@]/ { for (i = 2; i <= NF; i++) v[i - 2] = $i }
	    END { for (i = 0; i < n; i++) print name[i], v[i] }' "$n.xvg" > "$n.gmx"
}

# ours NAME MDP TOP GRO: md-gpu's terms, the same "name value" lines
ours() {
	local n=$1 mdp=$2 top=$3 gro=$4
	md-gpu -d cpu --top "$top" --mdp "$mdp" --rerun "$gro" -T > "$n.fek" &&
	awk 'BEGIN { split("Bond Angle U-B Proper-Dih. Per.-Imp.-Dih. Ryckaert-Bell. Improper-Dih. LJ-14 Coulomb-14 LJ-(SR) Disper.-corr. Coulomb-(SR) Coul.-recip. Potential", nm, " ") }
	    !/^#/ { for (i = 3; i <= NF; i++) print nm[i - 2], $i; exit }' "$n.fek" > "$n.ours"
}

# compare NAME: every term GROMACS reports, ours within the tolerance:
# MM_TOL relative (default 1e-5; absolute where the term is below 1
# kJ/mol), MM_TOL_RECIP for Coul. recip. and Potential (default 1e-4)
compare() {
	local n=$1 line term g o tol
	while read -r term g; do
		o=$(awk -v t="$term" '$1 == t { print $2 }' "$n.ours")
		if [ -z "$o" ]; then
			fail "$n-$term" "GROMACS reports $term = $g, md-gpu no such term"
			continue
		fi
		tol=${MM_TOL:-1e-5}
		case $term in Coul.-recip.|Potential) tol=${MM_TOL_RECIP:-1e-4} ;; esac
		line=$(awk -v g="$g" -v o="$o" -v tol="$tol" 'BEGIN {
		    d = o - g; if (d < 0) d = -d; a = g < 0 ? -g : g
		    printf "%.3g %s", d / (a > 1 ? a : 1), (d / (a > 1 ? a : 1) <= tol) ? "ok" : "bad" }')
		echo "$n: $term GROMACS $g md-gpu $o (rel. diff ${line% *})"
		le "$n-$term" "${line% *}" "$tol"
	done < "$n.gmx"
}

# ideal_gas_inputs: gas.top and gas.gro, 100 rigid diatomics (a
# constraint each, no LJ, no charges) at random points of a 3.4 nm cube,
# whose isobaric volume is known exactly (tests/mm-baro.sh)
ideal_gas_inputs() {
	cat > gas.top <<'TOP'
[ defaults ]
; nbfunc comb-rule gen-pairs fudgeLJ fudgeQQ
1 2 no 1.0 1.0
[ atomtypes ]
; name mass charge ptype sigma epsilon
X 10.0 0.0 A 0.0 0.0
[ moleculetype ]
GAS 1
[ atoms ]
1 X 1 GAS A1 1 0.0 10.0
2 X 1 GAS A2 1 0.0 10.0
[ constraints ]
1 2 1 0.1
[ system ]
ideal diatomic gas
[ molecules ]
GAS 100
TOP
	awk 'BEGIN { print "ideal diatomic gas"; print 200; s = 12345
	    for (m = 0; m < 100; m++) {
		for (k = 0; k < 3; k++) { s = (s * 1103515245 + 12345) % 2147483648; c[k] = s / 2147483648 * 3.4 }
		printf "%5d%-5s%5s%5d%8.3f%8.3f%8.3f\n", m + 1, "GAS", "A1", 2 * m + 1, c[0], c[1], c[2]
		printf "%5d%-5s%5s%5d%8.3f%8.3f%8.3f\n", m + 1, "GAS", "A2", 2 * m + 2, c[0] + 0.1, c[1], c[2] }
	    print "   3.40000   3.40000   3.40000" }' > gas.gro
}

# four_site_checks NAME ITP TOP OWTYPE DOM QH SIGMA EPSK: a TIP4P-like
# model's numbers against its paper's: the settle's doh 0.09572 nm and
# dhh (HOH 104.52 deg), the M site's a = b giving |OM| = DOM nm, q(H) QH
# and q(M) -2 QH e, neutral, the O type's sigma SIGMA nm and epsilon/k
# EPSK K (k_B 0.0083144626 kJ/mol/K); the itp's doh dhh a b q(H) q(M)
# sum(q) are left in the file itp.  (A rerun takes M where the frame
# has it, so a wrong a would pass one unseen.)
four_site_checks() {
	local n=$1 itp=$2 top=$3 ow=$4 dom=$5 qh0=$6 sig=$7 epsk=$8
	local doh dhh a b qh qm qsum
	awk '/^\[/ { d = $2; next } /^ *;/ || NF == 0 { next }
	    d == "settles" { doh = $3; dhh = $4 }
	    d == "virtual_sites3" { a = $6; b = $7 }
	    d == "atoms" { q[$5] = $7; sq += $7 }
	    END { printf "%.10g %.10g %.10g %.10g %.10g %.10g %.10g\n", doh, dhh, a, b, q["HW1"], q["MW"], sq }' \
	    "$itp" > itp
	read -r doh dhh a b qh qm qsum < itp
	echo "$n: itp doh dhh a b q(H) q(M) sum(q): $doh $dhh $a $b $qh $qm $qsum"
	near itp-doh "$doh" 0.09572 0
	near itp-hoh "$(awk -v d="$doh" -v h="$dhh" 'BEGIN { s = h / (2 * d); printf "%.6f", 2 * atan2(s, sqrt(1 - s * s)) * 45 / atan2(1, 1) }')" 104.52 1e-5
	near itp-a-is-b "$a" "$b" 0
	# |OM| = (a + b) doh cos(HOH / 2)
	near itp-om "$(awk -v d="$doh" -v h="$dhh" -v a="$a" -v b="$b" 'BEGIN { s = h / (2 * d); printf "%.10f", (a + b) * d * sqrt(1 - s * s) }')" "$dom" 1e-8
	near itp-qh "$qh" "$qh0" 0
	near itp-qm "$qm" "$(awk -v q="$qh0" 'BEGIN { printf "%.10g", -2 * q }')" 0
	near itp-neutral "$qsum" 0 1e-12
	near top-sigma "$(awk -v t="$ow" '$1 == t { print $6 }' "$top")" "$sig" 0
	near top-epsilon "$(awk -v t="$ow" '$1 == t { printf "%.6f", $7 / 0.0083144626 }' "$top")" "$epsk" 1e-6
}
