# tests/mm-top.sh - lib/mm's GROMACS readers (top.c, cpp.c, mdp.c, through
# tests/mm-top-check), checked against answers that do not come from them:
#   - the preprocessor (testdata/mm/cpp/main.top): an #include found beside
#     the including file before the -I directories (in their order),
#     $GMXLIB and $GMXDATA/top, and an included file's own #include beside
#     it; nested #ifdef/#ifndef/#else under four sets of -D; macros that
#     stand for one or two fields, replaced as whole words only, defined
#     again, #undef'd; lines continued by a backslash; a skipped #include;
#     an undefined macro, a missing include (66) and -I order;
#   - testdata/mm/quirks.top worked by hand: masses and charges from the
#     types, pairs' c6, c12 and fudgeQQ qi qj from [ pairtypes ], from
#     [ nonbond_params ] and the combination rule times fudgeLJ, a given
#     one, a negative sigma (c6 = 0); LJ c6/c12 of type pairs; the
#     dihedral types chosen (most specific, then first, either way round,
#     old two-type forms, function 9 blocks, zero terms left out);
#     exclusions through bonds 1 and 5 and constraints 1 (not 2) to
#     nrexcl; the virtual site; molecule names without regard to case;
#     fek_mm_top_constrain h-bonds and all-bonds;
#   - testdata/mm/settle.top: a settled water without [ exclusions ] has
#     its three atoms excluded (our choice; grompp 2022 does not);
#   - .mdp files (testdata/mm/mdp): defaults, keys and values as people
#     write them; refused values and bad lines exit 65 naming FILE:LINE, a
#     missing file 66;
#   - bad topologies (testdata/mm/bad): each exits 65 with one line naming
#     the file and line marked ERROR and what is wrong; a missing include
#     and a missing file 66;
#   - with Debian's GROMACS 2022.5 installed, as the independent peer:
#     gmx pdb2gmx builds testdata/mm/peptide.pdb (SILDNPFKGTV) in
#     amber99sb-ildn with TIP4P (also -DFLEXIBLE, and constraints =
#     h-bonds), charmm27 -nocmap with TIP3P (also all-bonds) and oplsaa
#     with SPC/E and ethanol.itp, each with ions; gromos.top (with and
#     without -DHEAVY_H) and quirks.top; gmx grompp and gmx dump give the
#     flat system, whose atoms (name, residue, type, mass, charge,
#     ptype), LJ c6/c12 of every pair of types used, interactions
#     (bonds, angles, Urey-Bradley, proper dihedrals with type 9's terms,
#     Ryckaert-Bellemans, impropers, pairs' c6/c12 and qq, constraints,
#     settles, virtual sites) and exclusions must equal ours within 1e-5
#     relative (gmx dump prints 6 to 9 digits of single precision; the
#     largest differences are printed); charmm27 with CMAP is refused
#     naming its first [ cmap ] line; our .mdp defaults equal those grompp
#     writes to mdout.mdp.
. "$(dirname "$0")/lib.sh"

CHK=$TOP/tests/mm-top-check
D=$TOP/testdata/mm
unset GMXLIB GMXDATA

if ! [ -x "$CHK" ]; then
	fail mm-top-check "no $CHK: make tests/mm-top-check"
	exit 0
fi

# has_lines NAME FILE: pass iff every line of stdin is a line of FILE
has_lines() {
	local miss
	if ! [ -s "$2" ]; then
		fail "$1" "$2 is empty"
		return
	fi
	miss=$(grep -vxF -f "$2" | head -n 1)
	if [ -z "$miss" ]; then
		pass "$1"
	else
		fail "$1" "no line '$miss' in ${2##*/}"
	fi
}

# lines FILE REGEX: FILE's lines that match REGEX
lines() {
	grep -E -- "$2" "$1"
}

# lineof FILE PATTERN: the number of the first line of FILE with PATTERN
lineof() {
	grep -n -F -- "$2" "$1" | head -n 1 | cut -d: -f1
}

# ---- the preprocessor ---------------------------------------------------------
C=$D/cpp
# cpp_case NAME RC DEFINES [INCDIRS [GMXLIB]]: main.top read with them
cpp_case() {
	t "$1" "$2" "GMXLIB=${5-$C/gmxlib} GMXDATA=$C/gmxdata $CHK -I '${4-$C/inc1:$C/inc2}' -D '$3' $C/main.top"
}
cpp_case cpp-foo 0 "-DFOO -DQX=0.125" && has_lines cpp-foo-lines cpp-foo.out <<'EOF'
system cpp test
defaults 2 1 1
atoms 7 molecules 3
atom 0 A1 RES 1 TA 1 0.25 A 0
atom 1 B2 RES 1 TB 2 0.1 A 0
atom 2 C3 RES 1 TC 3 -0.5 A 0
atom 3 G4 RES 1 TG 4 0.125 A 0
atom 4 E5 RES 1 TE 5 0.6 A 0
atom 5 X1 RES 2 TX 1.5 2 A 1
atom 6 X1 RES 2 TX 1.5 2 A 2
count BOND 3
count ANGLE 1
BOND 0 1 0.12 5000
BOND 1 2 0.13 6000
BOND 2 3 0.14 7000
ANGLE 0 1 2 1.911135531 300
excl 0 1
excl 1 0 2
excl 2 1 3
excl 3 2 4
excl 4 3
excl 5
excl 6
EOF
cpp_case cpp-foobar 0 "-DFOO -DBAR -DQX=0.125" && has_lines cpp-foobar-lines cpp-foobar.out <<'EOF'
atom 1 B2 RES 1 TB 2 0.2 A 0
atom 2 C3 RES 1 TC 3 -0.5 A 0
EOF
cpp_case cpp-bar 0 "-DBAR -DQX=0.125" && has_lines cpp-bar-lines cpp-bar.out <<'EOF'
atom 1 B2 RES 1 TB 2 0.3 A 0
atom 2 C3 RES 1 TC 3 0.5 A 0
EOF
cpp_case cpp-none 0 "-DQX=-1e-3" && has_lines cpp-none-lines cpp-none.out <<'EOF'
atom 1 B2 RES 1 TB 2 0.4 A 0
atom 2 C3 RES 1 TC 3 0.5 A 0
atom 3 G4 RES 1 TG 4 -0.001 A 0
EOF
# -I in the other order: inc2's b.itp
cpp_case cpp-inc21 0 "-DQX=0" "$C/inc2:$C/inc1" && has_lines cpp-inc21-lines cpp-inc21.out <<'EOF'
atom 0 A1 RES 1 TA 1 0.25 A 0
atom 1 B2 RES 1 TB 20 0.4 A 0
EOF
cpp_case cpp-noqx 65 "-DFOO"
says cpp-noqx "/main\.top:$(lineof "$C/main.top" "G4"): \[ atoms \]: charge 'QX' is not a number"
cpp_case cpp-noinc 66 "-DQX=0" ""
says cpp-noinc "/main\.top:$(lineof "$C/main.top" '"b.itp"'): #include \"b\.itp\": not found"
cpp_case cpp-nolib 66 "-DQX=0" "$C/inc1:$C/inc2" ""
says cpp-nolib "/main\.top:$(lineof "$C/main.top" '<c.itp>'): #include \"c\.itp\": not found"
t cpp-defines 65 "$CHK -D 'FOO' $C/main.top"
says cpp-defines "defines: 'FOO' is not -DNAME"

# ---- quirks.top, worked by hand ---------------------------------------------------
t quirks 0 "$CHK $D/quirks.top" && has_lines quirks-lines quirks.out <<'EOF'
system grompp's quirks
defaults 2 0.5 0.8333
atoms 36 molecules 5
types 8
atom 0 C1 MOL 1 CA 12.011 0.1 A 0
atom 3 H4 MOL 1 HX 1.008 0.1 A 0
atom 6 V7 MOL 1 MW 0 0.15 V 0
atom 7 C8 MOL 2 CA 12.011 0.1 A 0
atom 9 H10 MOL 2 HX 1.008 0.05 A 0
atom 20 OW SOL 1 OW 15.9994 -0.8476 A 2
atom 26 C1 MOL 1 CA 12.011 0.1 A 4
count BOND 15
count ANGLE 6
count UB 3
count PDIH 33
count PIDIH 3
count RB 3
count IDIH 3
count PAIR 15
count CONSTR 6
count SETTLE 2
count VSITE3 3
BOND 0 1 0.152 2500
BOND 1 2 0.143 4000
BOND 0 3 0.109 3000
BOND 2 4 0.096 5000
BOND 1 5 0.147 3500
ANGLE 3 0 1 1.911135531 300
ANGLE 1 2 4 1.893682238 450
UB 0 1 2 1.93731547 400 0.24 5000
PDIH 3 0 1 2 0 1 1
PDIH 3 0 1 2 3.141592654 0.5 2
PDIH 4 2 1 0 0 0.7 2
PDIH 5 1 0 3 0 1.1 1
PDIH 5 1 0 3 0 1.2 2
PDIH 6 0 1 5 0 2 3
PDIH 0 1 5 7 0 0.3 1
PDIH 1 5 7 8 0 4 2
PDIH 3 0 1 5 0 1.1 1
PDIH 3 0 1 5 0 1.2 2
PDIH 4 2 1 5 0 1.5 2
PIDIH 1 0 2 5 3.141592654 10 2
IDIH 0 1 3 5 0.6154030943 300
RB 5 7 8 9 1 2 3 4 5 6
CONSTR 5 7 0.147
CONSTR 7 8 0.153
SETTLE 20 21 22 0.1 0.1633
VSITE3 6 0 1 2 0.3 0.3
VSITE3 32 26 27 28 0.3 0.3
excl 0 1 2 3 4 5 6 7
excl 1 0 2 3 4 5 6 7
excl 2 0 1 3 4 5 6 7
excl 3 0 1 2 5
excl 4 0 1 2 5
excl 5 0 1 2 3 4 7
excl 6 0 1 2
excl 7 0 1 2 5
excl 8 9
excl 9 8
excl 20 21 22
excl 35 34
EOF
# pairs: sigma arithmetic, epsilon geometric, c6 = 4 eps sigma^6, c12 =
# 4 eps sigma^12; generated ones have eps times fudgeLJ 0.5; qq = 0.8333
# qi qj
awk 'function p(i, j, s, e, qi, qj) { printf "PAIR %d %d %.17g %.17g %.17g\n", i, j,
	    (s < 0 ? 0 : 4 * e * s ^ 6), 4 * e * s ^ 12, 0.8333 * qi * qj }
	function lj(a, b, s, e) { printf "lj %s %s %.17g %.17g\n", a, b, (s < 0 ? 0 : 4 * e * s ^ 6), 4 * e * s ^ 12 }
	BEGIN {
	p(3, 2, (0.25 + 0.30) / 2, 0.5 * sqrt(0.06 * 0.80), 0.1, -0.4)	# HX-OX generated
	p(0, 4, 0.28, 0.11, 0.1, 0.3)					# [ pairtypes ] HX CA
	p(3, 5, -(0.25 + 0.32) / 2, 0.5 * sqrt(0.06 * 0.70), 0.1, -0.5)	# NX: sigma < 0
	p(2, 7, 0.31, 0.5 * 0.55, -0.4, 0.1)				# [ nonbond_params ]
	p(4, 5, 0.3, 0.5, 0.3, -0.5)					# given
	lj("CA", "CA", 0.34, 0.36)
	lj("CA", "CB", (0.34 + 0.35) / 2, sqrt(0.36 * 0.30))
	lj("CA", "OX", 0.31, 0.55)
	lj("HX", "NX", -(0.25 + 0.32) / 2, sqrt(0.06 * 0.70))
	lj("NX", "NX", -0.32, 0.70)
	lj("MW", "OW", 0.3166 / 2, 0)
	}' > quirks-pairs.exp
{ lines quirks.out '^PAIR [0-9] [0-9] '; for ab in "CA CA" "CA CB" "CA OX" "HX NX" "NX NX" "MW OW"; do lines quirks.out "^lj $ab "; done; } > quirks-pairs.got
numcmp_files quirks-pairs quirks-pairs.exp quirks-pairs.got 1e-9 1e-30
t quirks-hbonds 0 "$CHK -c h-bonds $D/quirks.top" && has_lines quirks-hbonds-lines quirks-hbonds.out <<'EOF'
count BOND 9
count CONSTR 12
BOND 0 1 0.152 2500
BOND 1 5 0.147 3500
CONSTR 5 7 0.147
CONSTR 0 3 0.109
CONSTR 2 4 0.096
CONSTR 28 30 0.096
EOF
t quirks-allbonds 0 "$CHK -c all-bonds $D/quirks.top" && has_lines quirks-allbonds-lines quirks-allbonds.out <<'EOF'
count BOND 0
count CONSTR 21
CONSTR 0 1 0.152
CONSTR 1 5 0.147
EOF
t settle 0 "$CHK $D/settle.top" && has_lines settle-lines settle.out <<'EOF'
count SETTLE 2
SETTLE 0 1 2 0.1 0.1633
SETTLE 3 4 5 0.1 0.1633
excl 0 1 2
excl 1 0 2
excl 2 0 1
excl 3 4 5
excl 4 3 5
excl 5 3 4
EOF

# ---- .mdp files -------------------------------------------------------------------
M=$D/mdp
t mdp-empty 0 "$CHK -m $M/empty.mdp" && has_lines mdp-empty-lines mdp-empty.out <<'EOF'
integrator md
tinit 0
dt 0.001
nsteps 0
coulombtype cut-off
coulomb-modifier potential-shift
vdw-modifier potential-shift
rcoulomb 1
rvdw 1
epsilon-r 1
epsilon-rf 0
ewald-rtol 1e-05
pme-order 4
fourierspacing 0.12
fourier-n 0 0 0
dispcorr no
constraints none
tau-p 1
tcoupl no
pcoupl no
EOF
t mdp-run 0 "$CHK -m $M/run.mdp" && has_lines mdp-run-lines mdp-run.out <<'EOF'
integrator sd
tinit 10
dt 0.002
nsteps 500000
coulombtype pme
coulomb-modifier potential-shift
vdw-modifier none
rcoulomb 1.2
rvdw 1.1
epsilon-r 1
epsilon-rf 0
ewald-rtol 1e-06
pme-order 6
fourierspacing 0.16
fourier-n 48 40 0
dispcorr enerpres
constraints h-bonds
define -DPOSRES -DFLEXIBLE
include -I/some/where
ref-t 300
tau-t 0.1
ref-p 1
tau-p 2
compressibility 4.5e-05
tcoupl v-rescale
pcoupl c-rescale
EOF
t mdp-rf 0 "$CHK -m $M/rf.mdp" && has_lines mdp-rf-lines mdp-rf.out <<'EOF'
coulombtype reaction-field
epsilon-rf 78.5
dispcorr ener
constraints all-bonds
EOF
for f in ewald group hangles forceswitch number twice nokey pppm; do
	t "mdp-$f" 65 "$CHK -m $M/$f.mdp"
	says "mdp-$f" "/$f\.mdp:$(lineof "$M/$f.mdp" ERROR): "
done
says mdp-ewald "Ewald .* not supported: use PME"
t mdp-missing 66 "$CHK -m $M/no-such.mdp"

# ---- bad topologies -----------------------------------------------------------------
B=$D/bad
for f in "$B"/*.top; do
	n=${f##*/}
	n=${n%.top}
	want=65
	[ "$n" = include ] && want=66
	at=$f
	grep -q ERROR "$f" || at=$B/$n.itp
	case $n in
	directive) why="unknown directive \[ atomz \]" ;;
	notype) why="no \[ bondtypes \] entry for bonded types CA CA" ;;
	range) why="atom index 4 out of range" ;;
	number) why="charge '0\.1\.5' is not a number" ;;
	molname) why="no molecule type 'XYZ'" ;;
	error) why="#error this topology needs -DNEEDED" ;;
	ifdef) why="#ifdef or #ifndef without #endif" ;;
	cmap) why="\[ cmap \]: CMAP corrections are not supported" ;;
	include) why="#include \"no-such-file\.itp\": not found" ;;
	g96) why="function type 2 is not supported" ;;
	order) why="\[ atomtypes \] after the first \[ moleculetype \]" ;;
	numbering) why="atoms must be numbered" ;;
	cppif) why="directive '#if'" ;;
	dihedral) why="no \[ dihedraltypes \] entry .* CA CA CA HA" ;;
	nomolecules) why="no \[ molecules \]" ;;
	*) why="" ;;
	esac
	t "bad-$n" "$want" "$CHK $f"
	says "bad-$n" "/${at##*/}:$(lineof "$at" ERROR): .*$why"
done
t bad-notop 66 "$CHK $B/no-such.top"

# ---- GROMACS 2022 as the peer ---------------------------------------------------------
if ! have gmx; then
	skip gmx "no gmx (Debian's gromacs): nothing compared with grompp"
	exit 0
fi
GMX_MAXBACKUP=-1
export GMX_MAXBACKUP
echo "mm-top: $(gmx --version 2>/dev/null | awk '/^GROMACS version/ { print "GROMACS", $3 }')"

# The awk programs that turn gmx dump's .tpr and our output into one text,
# with the interactions of each kind sorted by their atoms (stably, so that
# a dihedral's terms keep their order).
cat > dump2txt.awk <<'EOF'
# gmx dump -s x.tpr -> atoms, interactions, exclusions of the flat system
# and lj lines for every pair of type names used (run after splitting the
# lines where gmx dump runs one functype into the next)
function flush_excl() { if (xcur >= 0) { xl[mt, xcur] = xbuf; xcur = -1 } }
function field(re, s) { if (!match($0, re)) return ""; s = substr($0, RSTART, RLENGTH); sub(/^[^=]*= */, "", s); return s }
BEGIN { DEG = atan2(0, -1) / 180; mt = -1; xcur = -1 }
/^   molblock \(/ { nb++; next }
/^      moltype += / { mbt[nb] = $3 + 0; next }
/^      #molecules += / { mbn[nb] = $3 + 0; next }
/^      atnr=/ { atnr = substr($1, 6) + 0; next }
/^      fudgeQQ/ { fqq = $3 + 0; next }
/^ *functype\[/ {
	s = $0; sub(/^ *functype\[/, "", s); id = s + 0; sub(/^[0-9]+\]=/, "", s)
	ft = s; sub(/,.*/, "", ft); fty[id] = ft
	sub(/^[A-Z_0-9]+, */, "", s)
	n = split(s, kv, /, */)
	for (i = 1; i <= n; i++) { split(kv[i], q, "="); fpn[id, i] = q[1]; fp[id, i] = q[2] + 0 }
	fnp[id] = n
	next
}
/^   moltype \(/ { flush_excl(); mt = substr($2, 2) + 0; next }
mt >= 0 && /^            atom\[ *[0-9]+\]=\{type=/ {
	s = $0; sub(/^ *atom\[ */, "", s); i = s + 0
	ag[mt, i] = field("type= *[0-9]+") + 0
	ap[mt, i] = field("ptype= *[A-Za-z]+") == "VSite" ? "V" : "A"
	am[mt, i] = field(" m= *[-0-9.e+]+") + 0
	aq[mt, i] = field(" q= *[-0-9.e+]+") + 0
	ar[mt, i] = field("resind= *[0-9]+") + 0
	na[mt] = i + 1
	next
}
mt >= 0 && /^            (atom|type|residue)\[[0-9]+\]=\{name=/ {
	s = $0; sub(/^ *[a-z]+\[/, "", s); i = s + 0
	match($0, /name="[^"]*"/); v = substr($0, RSTART + 6, RLENGTH - 7)
	if ($0 ~ /^ *atom/) an[mt, i] = v
	else if ($0 ~ /^ *type/) tn[mt, i] = v
	else { rn[mt, i] = v; match($0, /nr=-?[0-9]+/); rr[mt, i] = substr($0, RSTART + 3, RLENGTH - 3) }
	next
}
mt >= 0 && /^         excls\[/ {
	flush_excl(); s = $0; sub(/^ *excls\[/, "", s); xcur = s + 0
	s = $0; sub(/^[^{]*\{/, "", s); xbuf = s; if (s ~ /\}/) flush_excl()
	next
}
xcur >= 0 { xbuf = xbuf " " $0; if ($0 ~ /\}/) flush_excl(); next }
mt >= 0 && /^            [0-9]+ type=[0-9]+ \(/ {
	id = $2; sub(/type=/, "", id); k = ++nil[mt]; ilt[mt, k] = id + 0
	s = ""; for (i = 4; i <= NF; i++) s = s " " $i
	ila[mt, k] = s
	next
}
function P(id, name,   i) {
	for (i = 1; i <= fnp[id]; i++) if (fpn[id, i] == name) return fp[id, i]
	print "dump2txt: no " name " in functype " id > "/dev/stderr"; bad = 1; return 0
}
function g(x) { return sprintf("%.10g", x) }
END {
	off = 0
	for (b = 1; b <= nb; b++) {
		m = mbt[b]
		for (c = 0; c < mbn[b]; c++) {
			for (i = 0; i < na[m]; i++) {
				gq[off + i] = aq[m, i]
				print "atom", off + i, an[m, i], rn[m, ar[m, i]], rr[m, ar[m, i]], tn[m, i], g(am[m, i]), g(aq[m, i]), ap[m, i]
				used[tn[m, i]] = ag[m, i]
			}
			for (k = 1; k <= nil[m]; k++) {
				id = ilt[m, k]; f = fty[id]; n = split(ila[m, k], a, " ")
				s = ""; for (i = 1; i <= n; i++) s = s " " (a[i] + off)
				if (f == "BONDS") out = "BOND" s " " g(P(id, "b0A")) " " g(P(id, "cbA"))
				else if (f == "ANGLES") out = "ANGLE" s " " g(P(id, "thA") * DEG) " " g(P(id, "ctA"))
				else if (f == "UREY_BRADLEY") out = "UB" s " " g(P(id, "thetaA") * DEG) " " g(P(id, "kthetaA")) " " g(P(id, "r13A")) " " g(P(id, "kUBA"))
				else if (f == "PDIHS") out = "PDIH" s " " g(P(id, "phiA") * DEG) " " g(P(id, "cpA")) " " g(P(id, "mult"))
				else if (f == "PIDIHS") out = "PIDIH" s " " g(P(id, "phiA") * DEG) " " g(P(id, "cpA")) " " g(P(id, "mult"))
				else if (f == "IDIHS") out = "IDIH" s " " g(P(id, "xiA") * DEG) " " g(P(id, "cxA"))
				else if (f == "RBDIHS") { out = "RB" s; for (j = 0; j < 6; j++) out = out " " g(P(id, "rbcA[" j "]")) }
				else if (f == "LJ14") out = "PAIR" s " " g(P(id, "c6A")) " " g(P(id, "c12A")) " " g(fqq * gq[a[1] + off] * gq[a[2] + off])
				else if (f == "CONSTR" || f == "CONSTRNC") out = "CONSTR" s " " g(P(id, "dA"))
				else if (f == "SETTLE") out = "SETTLE" s " " g(P(id, "doh")) " " g(P(id, "dhh"))
				else if (f == "VSITE3") out = "VSITE3" s " " g(P(id, "a")) " " g(P(id, "b"))
				else if (f == "CONNBONDS") continue
				else out = "UNKNOWN-" f s
				print out
			}
			for (i = 0; i < na[m]; i++) {
				n = split(xl[m, i], x, /[ ,{}]+/); s = "excl " (off + i)
				for (j = 1; j <= n; j++) if (x[j] != "" && x[j] + 0 != i) s = s " " (x[j] + off)
				print s
			}
			off += na[m]
		}
	}
	for (ta in used) for (tb in used) if (ta <= tb)
		print "lj", ta, tb, g(fp[used[ta] * atnr + used[tb], 1]), g(fp[used[ta] * atnr + used[tb], 2])
	exit bad
}
EOF
cat > norm.awk <<'EOF'
# one text from either side: the lines compared, each with a sort key
BEGIN {
	n["BOND"] = 2; n["ANGLE"] = 3; n["UB"] = 3; n["PDIH"] = 4; n["PIDIH"] = 4
	n["RB"] = 4; n["IDIH"] = 4; n["PAIR"] = 2; n["CONSTR"] = 2; n["SETTLE"] = 3
	n["VSITE3"] = 4; n["atom"] = 1; n["excl"] = 1
}
$1 == "lj" { if ($2 > $3) { t = $2; $2 = $3; $3 = t } print "lj " $2 " " $3 "\t" $0; next }
$1 == "atom" { $10 = ""; sub(/ +$/, "") }
$1 in n { k = $1; for (i = 2; i <= n[$1] + 1; i++) k = k sprintf(" %09d", $i); print k "\t" $0 }
EOF
norm() {
	awk -f norm.awk | LC_ALL=C sort -s -t "	" -k1,1 | cut -f2-
}
# the largest relative differences, by kind, of two normalised texts
maxdiff() {
	awk 'FNR == NR { a[FNR] = $0; next }
	{ n = split(a[FNR], x, " "); split($0, y, " ")
	  for (i = 2; i <= n; i++) if (x[i] ~ /^[-+0-9.]+(e[-+]?[0-9]+)?$/ && x[i] != y[i]) {
		m = (x[i] < 0 ? -x[i] : x[i]); if ((y[i] < 0 ? -y[i] : y[i]) > m) m = (y[i] < 0 ? -y[i] : y[i])
		d = x[i] - y[i]; if (d < 0) d = -d
		if (m > 0 && d / m > r[$1]) r[$1] = d / m } }
	END { for (k in r) s = s sprintf(" %s %.1e", k, r[k]); print (s == "" ? " none" : s) }' "$1" "$2"
}
# mkgro < OURS: a .gro of those atoms on a grid in a 7 nm box (grompp does
# not look at the positions, only at the names and the count)
mkgro() {
	awk '$1 == "atom" { n++; nm[n] = $3; rn[n] = $4; rr[n] = $5 }
	END {
		print "fek mm-top test"; print n
		k = int(n ^ (1 / 3)) + 1
		for (i = 1; i <= n; i++) {
			j = i - 1
			printf "%5d%-5s%5s%5d%8.3f%8.3f%8.3f\n", rr[i] % 100000, substr(rn[i], 1, 5), substr(nm[i], 1, 5), i % 100000, 0.5 + 0.31 * (j % k), 0.5 + 0.31 * (int(j / k) % k), 0.5 + 0.31 * int(j / k / k)
		}
		print "   7.00000   7.00000   7.00000"
	}'
}
cat > base.mdp <<'EOF'
integrator    = steep
nsteps        = 0
cutoff-scheme = Verlet
coulombtype   = Cut-off
EOF
# vs NAME TOP MDP [OPTS]: our reading of TOP (with mm-top-check OPTS)
# against gmx dump of grompp's .tpr from TOP and MDP
vs() {
	local n=$1 top=$2 mdp=$3 opts=${4:-}
	t "$n-ours" 0 "$CHK $opts $top" || return
	mkgro < "$n-ours.out" > "$n.gro"
	t "$n-grompp" 0 "gmx -quiet grompp -f $mdp -c $n.gro -p $top -o $n.tpr -po $n-mdout.mdp -maxwarn 20" || return
	t "$n-dump" 0 "gmx -quiet dump -s $n.tpr" || return
	sed 's/,\( \{2,\}functype\[\)/,\n\1/g' "$n-dump.out" | awk -f dump2txt.awk | norm > "$n.gmx"
	norm < "$n-ours.out" > "$n.fek"
	numcmp_files "$n" "$n.gmx" "$n.fek" 1e-5 1e-12
	echo "$n: $(grep -c . "$n.fek") lines alike; largest relative differences:$(maxdiff "$n.gmx" "$n.fek")"
}
# pdb NAME FF WATER [PDB2GMX OPTIONS]: the peptide in force field FF with
# water model WATER, then 4 waters and a Na+ Cl- pair
pdb() {
	local n=$1 ff=$2 w=$3
	shift 3
	t "$n-pdb2gmx" 0 "gmx -quiet pdb2gmx -f $D/peptide.pdb -ff $ff -water $w -o $n-pdb.gro -p $n.top -i $n-posre.itp $*" || return
	printf 'SOL 4\nNA 1\nCL 1\n' >> "$n.top"
}

printf 'constraints = h-bonds\n' | cat base.mdp - > hbonds.mdp
printf 'constraints = all-bonds\n' | cat base.mdp - > allbonds.mdp
printf 'define = -DFLEXIBLE\n' | cat base.mdp - > flexible.mdp
printf 'define = -DHEAVY_H\n' | cat base.mdp - > heavyh.mdp

if pdb amber amber99sb-ildn tip4p; then
	vs amber amber.top base.mdp
	vs amber-flexible amber.top flexible.mdp "-D -DFLEXIBLE"
	vs amber-hbonds amber.top hbonds.mdp "-c h-bonds"
	lines amber.fek '^PDIH' | awk '{ print $2, $3, $4, $5 }' | uniq -d | grep -q . &&
	    pass amber-type9-terms || fail amber-type9-terms "no dihedral with several type 9 terms"
fi
if pdb charmm charmm27 tip3p -nocmap; then
	vs charmm charmm.top base.mdp
	vs charmm-allbonds charmm.top allbonds.mdp "-c all-bonds"
fi
if pdb charmm-cmap charmm27 tip3p; then
	L=$(awk '/^\[ *cmap *\]/ { f = 1; next } f && NF && !/^;/ { print NR; exit }' charmm-cmap.top)
	t charmm-cmap-refused 65 "$CHK charmm-cmap.top"
	says charmm-cmap-refused "charmm-cmap\.top:$L: \[ cmap \]"
fi
if pdb opls oplsaa spce; then
	awk '/^\[ *system *\]/ { print "#include \"oplsaa.ff/ethanol.itp\"\n" } { print }' opls.top > opls2.top
	printf 'ETH 2\n' >> opls2.top
	vs opls opls2.top base.mdp
fi
vs gromos "$D/gromos.top" base.mdp
vs gromos-heavyh "$D/gromos.top" heavyh.mdp "-D -DHEAVY_H"
vs quirks "$D/quirks.top" base.mdp

# our defaults against those grompp wrote for base.mdp
if [ -s quirks-mdout.mdp ]; then
	"$CHK" -m base.mdp > mdp-ours.txt
	awk -F '[ \t]*=[ \t]*' 'BEGIN { split("integrator tinit dt nsteps coulombtype coulomb-modifier vdw-modifier rcoulomb rvdw epsilon-r epsilon-rf ewald-rtol pme-order fourierspacing DispCorr constraints tau-p tcoupl pcoupl", k, " "); for (i in k) want[tolower(k[i])] = 1 }
	{ key = tolower($1); v = tolower($2); sub(/-verlet$/, "", v); sub(/[ \t]+$/, "", v) }
	key in want { print key, v }
	key ~ /^fourier-n[xyz]$/ { fn = fn " " v }
	END { print "fourier-n" fn }' quirks-mdout.mdp | sort > mdp-gmx.txt
	awk '{ $1 = tolower($1) } { print }' mdp-ours.txt | grep -E "^($(awk '{ print $1 }' mdp-gmx.txt | paste -sd '|')) " | sort > mdp-ours-keys.txt
	numcmp_files mdp-defaults-gmx mdp-gmx.txt mdp-ours-keys.txt 1e-12 1e-30
fi
