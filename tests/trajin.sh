# tests/trajin.sh - the trajectory reader (lib/particles/trajin.c, through
# tests/trajin-check), checked against answers that do not come from it:
#   - fek frames from md-gpu (text and binary, through stdin too, and
#     scaled by -l): steps, cells and positions equal the text twin's
#     numbers as awk reads them; frames of different sizes in one stream;
#   - a triclinic frames file written by awk (columns in another order,
#     extra columns, an origin, positions outside the cell, NTYPES, TYPE
#     and REPLICA keys): the cell, the type names, the replica, and the
#     positions equal to the file's modulo the cell and inside it;
#   - the same frames as multi-frame .gro files written by awk (10
#     decimals in 15 columns; 3- and 9-number box lines; a name first met
#     in frame 2 appended to the types; a blank title): positions and
#     cells as the file's numbers times -l, steps from "step=";
#   - the same frames as LAMMPS dumps written by awk (atoms out of id
#     order; x y z, xu yu zu and scaled xs ys zs; triclinic bounds of the
#     bounding box; TIME and UNITS items) and by Debian's LAMMPS itself
#     (a triclinic box deformed as it runs; dump custom x y z and xu yu
#     zu at %.17g, dump atom's scaled %g): cells equal LAMMPS's thermo lx
#     ly lz xy xz yz, positions the dump's, types t - 1;
#   - DCD files written by md-gpu and by a Python writer here (only the
#     struct module: little- and big-endian, 4- and 8-byte markers, angles
#     in degrees and NAMD's cosines, a 4D record) and by MDAnalysis: the
#     cell from a b c alpha beta gamma, positions to float32 precision,
#     steps ISTART + k NSAVC;
#   - the format told by the first bytes of files without a telling name;
#   - malformed input (a truncated DCD, a DCD whose NSET disagrees, one
#     without cells, a .gro with a bad count or too few atoms, a dump with
#     a missing column, a short atom line, a type out of range or an id
#     twice, a fek stream with a section of another KIND, a frames
#     section without BOX, an infinite position) exits 65 with one line
#     naming the file and the frame, section or line; a missing file 66;
#     a bad format name and a DCD on stdin 64.
. "$(dirname "$0")/lib.sh"

TC="$TOP/tests/trajin-check -v"
M="md-gpu -d cpu"

if ! [ -x "$TOP/tests/trajin-check" ]; then
	fail trajin-check "no $TOP/tests/trajin-check: make tests/trajin-check"
	exit 0
fi

# cmp_frames EXP GOT TOL BOXTOL: trajin-check -v's output GOT against the
# expected EXP (frame lines "frame k step s n N box lx ly lz xy xz yz",
# particle lines "type x y z", positions not necessarily in the cell): the
# frame line's words equal (numbers of the box within BOXTOL), types
# equal, positions equal modulo the cell within TOL, and GOT's positions
# in the cell (fractional coordinates from its origin in [0, 1] within
# 1e-9); a tolerance is relative, of 1 + the expected number's |value|
# (of the largest of x y z for positions)
cmp_frames() {
	awk -v tol="$3" -v btol="$4" 'FNR == 1 { f++ }
	f == 1 { e[FNR] = $0; ne = FNR; next }
	FNR == 1 && $1 == "format" { next }
	{ ng++; m = split(e[ng], x, " ") }
	$1 == "frame" {
		nfr++
		lx = $8; ly = $9; lz = $10; xy = $11; xz = $12; yz = $13
		ox = $15; oy = $16; oz = $17
		if (m != 13 || x[1] != "frame" || $14 != "origin" || !(lx > 0 && ly > 0 && lz > 0)) { bad++; lx = ly = lz = 1; next }
		for (k = 1; k <= 7; k++) if ($k != x[k]) { bad++; next }
		for (k = 8; k <= 13; k++) { d = abs($k - x[k]) / (1 + abs(x[k])); if (d > db) db = d }
		next
	}
	{
		np++
		if (m != 4 || $1 != x[1]) { bad++; next }
		dx = $2 - x[2]; dy = $3 - x[3]; dz = $4 - x[4]
		q = rnd(dz / lz); dx -= q * xz; dy -= q * yz; dz -= q * lz
		q = rnd(dy / ly); dx -= q * xy; dy -= q * ly
		q = rnd(dx / lx); dx -= q * lx
		d = max3(dx, dy, dz) / (1 + max3(x[2], x[3], x[4]))
		if (d > dm) dm = d
		sz = ($4 - oz) / lz; sy = ($3 - oy - sz * yz) / ly; sx = ($2 - ox - sy * xy - sz * xz) / lx
		if (sx < -1e-9 || sx > 1 + 1e-9 || sy < -1e-9 || sy > 1 + 1e-9 || sz < -1e-9 || sz > 1 + 1e-9) out++
	}
	function abs(a) { return a < 0 ? -a : a }
	function max3(a, b, c) { a = abs(a); if (abs(b) > a) a = abs(b); if (abs(c) > a) a = abs(c); return a }
	function rnd(a) { return a >= 0 ? int(a + 0.5) : -int(-a + 0.5) }
	END { printf "lines %d (expected %d), frames %d, particles %d, bad frame lines or types %d, outside the cell %d, largest relative |dbox| %.3g |dx| %.3g\n", ng, ne, nfr, np, bad, out, db, dm > "/dev/stderr"
		exit !(ng == ne && nfr > 0 && bad == 0 && out == 0 && db <= btol && dm <= tol) }' "$1" "$2"
}

# notypes FRAMES: trajin-check's output or an expected one with every type
# 0 (as DCD files have them)
notypes() {
	awk '$1 != "frame" && $1 != "format" { $1 = 0 } { print }' "$1"
}

# fek_exp TEXT S: the expected frames of a fek frames text twin, lengths
# times S (positions as they are)
fek_exp() {
	awk -v s="$2" 'function flush() { if (n) printf "frame %d step %s n %d box %.10g %.10g %.10g %.10g %.10g %.10g\n%s", nf++, st, n, b[1], b[2], b[3], b[4], b[5], b[6], rows; n = 0; rows = "" }
	/^#FEK/ { flush(); nc = 0; st = -1; tc = 0; b[4] = b[5] = b[6] = 0; next }
	/^#COL/ { nc++; if ($2 == "type") tc = nc; if ($2 == "x") xc = nc; if ($2 == "y") yc = nc; if ($2 == "z") zc = nc; next }
	/^#STEP/ { st = $2; next }
	/^#BOX/ { for (k = 1; k < NF; k++) b[k] = $(k + 1) * s; next }
	/^#/ || NF == 0 { next }
	{ n++; rows = rows sprintf("%d %.17g %.17g %.17g\n", tc ? $tc : 0, $xc * s, $yc * s, $zc * s) }
	END { flush() }' "$1"
}

# tric_frames: two frames sections (text) of 50 particles of 3 types in
# triclinic cells off the origin, positions up to 1.5 cells outside, the
# columns x id z type y q; STEP 100 and 200, REPLICA 1 2 and 2 2
tric_frames() {
	awk 'BEGIN { srand(5); n = 50
	for (fr = 1; fr <= 2; fr++) {
		lx = 4 + fr; ly = 3.5; lz = 5 - 0.3 * fr; xy = 1.2 * fr - 1.9; xz = -0.7 + 0.2 * fr; yz = 0.9
		ox = fr == 1 ? -1.5 : 0; oy = fr == 1 ? 2.25 : 0; oz = 0.5
		print "#FEK 1"; print "#KIND frames"; print "#ROWS " n
		print "#COL x f64 sigma"; print "#COL id i64 1"; print "#COL z f64 sigma"
		print "#COL type i32 1"; print "#COL y f64 sigma"; print "#COL q f64 1"
		print "#STEP " 100 * fr; print "#REPLICA " fr " 2"
		printf "#BOX %.17g %.17g %.17g %.17g %.17g %.17g\n", lx, ly, lz, xy, xz, yz
		printf "#ORIGIN %.17g %.17g %.17g\n", ox, oy, oz
		print "#NTYPES 3"; print "#TYPE 0 A"; print "#TYPE 1 Bb 2.5"; print "#TYPE 2 -"
		print "#UNITS lj"; print "#END"
		for (i = 1; i <= n; i++) {
			s0 = -1.5 + 4 * rand(); s1 = -1.5 + 4 * rand(); s2 = -1.5 + 4 * rand()
			printf "%.17g %d %.17g %d %.17g %.3f\n", ox + s0 * lx + s1 * xy + s2 * xz, 100 + i,
			    oz + s2 * lz, i % 3, oy + s1 * ly + s2 * yz, rand()
		}
	} }'
}

# fek_to_gro TEXT [blank]: the frames as a .gro trajectory, x y z in
# %15.10f; atom names ZN (every fifth, from the first) and AR, but the
# first atom of frame 2 NE; 9 numbers on the box line when the cell is
# tilted; titles "frames t= ... step= S" (with blank: frame 2's empty)
fek_to_gro() {
	awk -v blank="$2" 'function flush(  i) { if (!n) return
		nfr++
		if (blank && nfr == 2) print ""; else printf "frames t= %.5f step= %d\n", 0.005 * st, st
		printf "%5d\n", n
		for (i = 1; i <= n; i++) printf "%5d%-5s%5s%5d%15.10f%15.10f%15.10f\n", i % 100000, "LJ", nfr == 2 && i == 1 ? "NE" : i % 5 == 1 ? "ZN" : "AR", i % 100000, x[i], y[i], z[i]
		if (b[4] == 0 && b[5] == 0 && b[6] == 0) printf "%15.10f%15.10f%15.10f\n", b[1], b[2], b[3]
		else printf "%15.10f%15.10f%15.10f%15.10f%15.10f%15.10f%15.10f%15.10f%15.10f\n", b[1], b[2], b[3], 0, 0, b[4], 0, b[5], b[6]
		n = 0 }
	/^#FEK/ { flush(); nc = 0; b[4] = b[5] = b[6] = 0; next }
	/^#COL/ { nc++; if ($2 == "x") xc = nc; if ($2 == "y") yc = nc; if ($2 == "z") zc = nc; next }
	/^#STEP/ { st = $2; next }
	/^#BOX/ { for (k = 1; k < NF; k++) b[k] = $(k + 1); next }
	/^#/ || NF == 0 { next }
	{ n++; x[n] = $xc; y[n] = $yc; z[n] = $zc }
	END { flush() }' "$1"
}

# gro_exp GRO S: the expected frames of a .gro trajectory from its own
# fixed columns (the field width from the decimal points of the first
# atom line), lengths times S, types the atom names in order of first
# appearance in the file, steps from "step=" (-1 without)
gro_exp() {
	awk -v s="$2" 'st == "" { st = -1; if (match($0, /step= *-?[0-9]+/)) { st = substr($0, RSTART + 5, RLENGTH - 5) + 0 }; ln = 1; next }
	ln == 1 { n = $1 + 0; ln = 2; k = 0; rows = ""; w = 0; next }
	ln == 2 && k < n {
		k++
		if (!w) { p = index(substr($0, 21), "."); w = index(substr($0, 21 + p), ".") }
		nm = substr($0, 11, 5); gsub(/ /, "", nm)
		if (!(nm in tmap)) tmap[nm] = nt++
		rows = rows sprintf("%d %.17g %.17g %.17g\n", tmap[nm], s * substr($0, 21, w), s * substr($0, 21 + w, w), s * substr($0, 21 + 2 * w, w))
		next
	}
	ln == 2 {
		printf "frame %d step %s n %d box %.10g %.10g %.10g %.10g %.10g %.10g\n%s", nfr++, st, n, s * $1, s * $2, s * $3, NF == 9 ? s * $6 : 0, NF == 9 ? s * $8 : 0, NF == 9 ? s * $9 : 0, rows
		st = ""; ln = 0
	}' "$1"
}

# fek_to_dump TEXT MODE: the frames as a LAMMPS dump, atoms in reverse id
# order (ids 1..n), type + 1; MODE x: "id type x y z"; u: "id type xu yu
# zu" and TIME and UNITS items; s: "type vx id xs ys zs" (fractional from
# the origin); triclinic cells as bounding-box bounds with the tilts
fek_to_dump() {
	awk -v mode="$2" 'function min(a, b) { return a < b ? a : b }
	function max(a, b) { return a > b ? a : b }
	function flush(  i, t, sx, sy, sz, xl, xh, yl, yh) { if (!n) return
		if (mode == "u") { print "ITEM: UNITS"; print "lj"; print "ITEM: TIME"; printf "%.6f\n", 0.005 * st }
		print "ITEM: TIMESTEP"; print st; print "ITEM: NUMBER OF ATOMS"; print n
		xl = o[1]; xh = o[1] + b[1]; yl = o[2]; yh = o[2] + b[2]
		if (b[4] == 0 && b[5] == 0 && b[6] == 0) {
			print "ITEM: BOX BOUNDS pp pp pp"
			printf "%.17g %.17g\n%.17g %.17g\n%.17g %.17g\n", xl, xh, yl, yh, o[3], o[3] + b[3]
		} else {
			print "ITEM: BOX BOUNDS xy xz yz pp pp pp"
			printf "%.17g %.17g %.17g\n", xl + min(min(0, b[4]), min(b[5], b[4] + b[5])), xh + max(max(0, b[4]), max(b[5], b[4] + b[5])), b[4]
			printf "%.17g %.17g %.17g\n", yl + min(0, b[6]), yh + max(0, b[6]), b[5]
			printf "%.17g %.17g %.17g\n", o[3], o[3] + b[3], b[6]
		}
		print mode == "s" ? "ITEM: ATOMS type vx id xs ys zs" : mode == "u" ? "ITEM: ATOMS id type xu yu zu" : "ITEM: ATOMS id type x y z"
		for (i = n; i >= 1; i--) {
			t = tc ? ty[i] + 1 : 1
			if (mode != "s") { printf "%d %d %.17g %.17g %.17g\n", i, t, x[i], y[i], z[i]; continue }
			sz = (z[i] - o[3]) / b[3]; sy = (y[i] - o[2] - sz * b[6]) / b[2]; sx = (x[i] - o[1] - sy * b[4] - sz * b[5]) / b[1]
			printf "%d 0.5 %d %.17g %.17g %.17g\n", t, i, sx, sy, sz
		}
		n = 0 }
	/^#FEK/ { flush(); nc = 0; tc = 0; b[4] = b[5] = b[6] = 0; o[1] = o[2] = o[3] = 0; next }
	/^#COL/ { nc++; if ($2 == "type") tc = nc; if ($2 == "x") xc = nc; if ($2 == "y") yc = nc; if ($2 == "z") zc = nc; next }
	/^#STEP/ { st = $2; next }
	/^#BOX/ { for (k = 1; k < NF; k++) b[k] = $(k + 1); next }
	/^#ORIGIN/ { o[1] = $2; o[2] = $3; o[3] = $4; next }
	/^#/ || NF == 0 { next }
	{ n++; x[n] = $xc; y[n] = $yc; z[n] = $zc; if (tc) ty[n] = $tc }
	END { flush() }' "$1"
}

# ---- 1. fek frames -----------------------------------------------------------
MD="$M --lattice fcc:3 --density 0.8 -t 1.5 -i baoab -n 20 -e 10 --rc 1.2"
t md-text 0 "$MD -T -o lj.dcd > lj.txt"
t md-binary 0 "$MD > lj.fek"
fek_exp lj.txt 1 > lj.exp
fek_exp lj.txt 2.5 > lj-25.exp
t fek-text 0 "$TC lj.txt > fek-text.out"
ok fek-text-frames cmp_frames lj.exp fek-text.out 1e-9 1e-9
ok fek-text-steps-and-count awk '/^frame/ { s = s $4 " " } END { exit !(s == "10 20 ") }' fek-text.out
t fek-binary 0 "$TC lj.fek > fek-binary.out"
same_file fek-binary-as-text fek-text.out fek-binary.out
t fek-stdin 0 "$TC - < lj.fek > fek-stdin.out"
same_file fek-stdin-as-file fek-text.out fek-stdin.out
t fek-lscale 0 "$TC -l 2.5 lj.fek > fek-25.out"
ok fek-lscale-frames cmp_frames lj-25.exp fek-25.out 1e-9 1e-9

tric_frames > tric.txt
fek_exp tric.txt 1 > tric.exp
t fek-triclinic 0 "$TC -v tric.txt > fek-tric.out"
ok fek-triclinic-frames cmp_frames tric.exp fek-tric.out 1e-9 1e-9
ok fek-triclinic-keys awk '/^frame/ { k++; ok += $14 == "origin" && $15 == (k == 1 ? -1.5 : 0) &&
	$16 == (k == 1 ? 2.25 : 0) && $17 == 0.5 && $19 == 3 && $21 == k && $22 == 2 && $24 == "A" && $25 == "Bb" && $26 == "-" }
	END { exit !(k == 2 && ok == 2) }' fek-tric.out
t fek-triclinic-lscale 0 "$TC -l 0.1 tric.txt > fek-tric-01.out"
fek_exp tric.txt 0.1 > tric-01.exp
notypes tric-01.exp > tric0-01.exp
ok fek-triclinic-lscale-frames cmp_frames tric-01.exp fek-tric-01.out 1e-9 1e-9
ok fek-triclinic-lscale-origin awk '/^frame/ { k++; ok += $15 == (k == 1 ? -0.15 : 0) && $16 == (k == 1 ? 0.225 : 0) && $17 == 0.05 }
	END { exit !(k == 2 && ok == 2) }' fek-tric-01.out

# frames of other sizes in one stream: 108, 108, 50 and 50 particles
cat lj.txt tric.txt > mixed.txt
cat lj.exp tric.exp | awk '/^frame/ { $2 = k++ } { print }' > mixed.exp
t fek-sizes-differ 0 "$TC mixed.txt > fek-mixed.out"
ok fek-sizes-differ-frames cmp_frames mixed.exp fek-mixed.out 1e-9 1e-9

# ---- 2. .gro ---------------------------------------------------------------------
fek_to_gro lj.txt > lj.gro
gro_exp lj.gro 1 > lj-gro.exp
gro_exp lj.gro 10 > lj-gro10.exp
t gro 0 "$TC -v lj.gro > gro.out"
ok gro-frames cmp_frames lj-gro.exp gro.out 1e-9 1e-9
notypes lj.exp > lj0.exp
notypes gro.out > gro0.out
ok gro-as-fek cmp_frames lj0.exp gro0.out 1e-9 1e-9
# types: ZN 0, AR 1 in frame 1; NE, new in frame 2, appended
ok gro-types awk '/^format/ { next } /^frame/ { k++; ok += $4 == 10 * k && (k == 1 ? $19 == 2 && $24 == "ZN" && $25 == "AR" : $19 == 3 && $26 == "NE"); i = 0; next }
	{ i++; want = k == 2 && i == 1 ? 2 : i % 5 == 1 ? 0 : 1; if ($1 != want) badt++ }
	END { exit !(k == 2 && ok == 2 && badt == 0) }' gro.out
t gro-nm-to-A 0 "$TC -l 10 lj.gro > gro10.out"
ok gro-nm-to-A-frames cmp_frames lj-gro10.exp gro10.out 1e-9 1e-9
fek_to_gro tric.txt blank > tric.gro
printf '\n\n' >> tric.gro
gro_exp tric.gro 1 > tric-gro.exp
t gro-triclinic 0 "$TC -f gro tric.gro > gro-tric.out"
ok gro-triclinic-frames cmp_frames tric-gro.exp gro-tric.out 1e-9 1e-9
notypes tric.exp > tric0.exp
notypes gro-tric.out > gro-tric0.out
awk '/^frame 1 / { $4 = -1 } { print }' tric0.exp > tric0-nostep.exp
ok gro-triclinic-as-fek cmp_frames tric0-nostep.exp gro-tric0.out 1e-9 1e-9
ok gro-blank-title-no-step awk '/^frame/ { k++; s = s $4 " " } END { exit !(k == 2 && s == "100 -1 ") }' gro-tric.out

# ---- 3. LAMMPS dumps -------------------------------------------------------------
for mode in x u s; do
	fek_to_dump lj.txt $mode > lj-$mode.lammpstrj
	fek_to_dump tric.txt $mode > tric-$mode.lammpstrj
	t dump-$mode 0 "$TC lj-$mode.lammpstrj > dump-$mode.out"
	ok dump-$mode-frames cmp_frames lj.exp dump-$mode.out 1e-9 1e-9
	t dump-tric-$mode 0 "$TC -v tric-$mode.lammpstrj > dump-tric-$mode.out"
	ok dump-tric-$mode-frames cmp_frames tric.exp dump-tric-$mode.out 1e-9 1e-9
done
ok dump-tric-origin awk '/^frame/ { k++; ok += $15 == (k == 1 ? -1.5 : 0) && $16 == (k == 1 ? 2.25 : 0) && $17 == 0.5 && $19 == 3 }
	END { exit !(k == 2 && ok == 2) }' dump-tric-x.out
t dump-lscale 0 "$TC -l 2.5 lj-x.lammpstrj > dump-25.out"
ok dump-lscale-frames cmp_frames lj-25.exp dump-25.out 1e-9 1e-9

# LAMMPS itself: 108 atoms of 2 types in a tilted cell that fix deform
# stretches and shears as it runs; thermo gives the cells
if have lmp; then
	cat > tric.in <<'EOF'
units lj
atom_style atomic
lattice fcc 0.8
region box prism 0 3 0 3 0 3 0.5 0.3 -0.4
create_box 2 box
create_atoms 1 box
set type 1 type/fraction 2 0.3 12345
mass * 1.0
velocity all create 1.5 4928 loop geom
pair_style lj/cut 1.2
pair_coeff * * 1.0 1.0
fix 1 all nve
fix 2 all deform 1 x scale 1.02 xy delta 0.1 remap x
dump 1 all custom 10 xyz.lammpstrj id type x y z
dump_modify 1 format float %.17g
dump 2 all atom 10 atom.lammpstrj
dump 3 all custom 10 unw.lammpstrj id type xu yu zu
dump_modify 3 format float %.17g
thermo_style custom step lx ly lz xy xz yz xlo ylo zlo
thermo_modify format float %.17g
thermo 10
run 30
EOF
	if t lmp-run 0 "lmp -in tric.in -log none -screen lmp.out > /dev/null"; then
		# expected: the x y z dump's atoms by id, LAMMPS's cells
		awk 'FNR == 1 { f++ }
		f == 1 && /^ *Step +Lx/ { th = 1; next }
		f == 1 && th && $1 ~ /^[0-9]+$/ { box[$1] = sprintf("%.10g %.10g %.10g %.10g %.10g %.10g", $2, $3, $4, $5, $6, $7); next }
		f == 1 { th = 0; next }
		/^ITEM: TIMESTEP/ { getline; st = $1; next }
		/^ITEM: NUMBER/ { getline; n = $1; next }
		/^ITEM: ATOMS/ { printf "frame %d step %d n %d box %s\n", nfr++, st, n, box[st]
			delete r; for (k = 0; k < n; k++) { getline; r[$1] = sprintf("%d %s %s %s", $2 - 1, $3, $4, $5) }
			for (i = 1; i <= n; i++) print r[i] }' lmp.out xyz.lammpstrj > lmp.exp
		ok lmp-dump-unsorted awk '/^ITEM: ATOMS/ { a = 1; next } /^ITEM/ { a = 0 } a { if ($1 < last) un++; last = $1 } END { exit !(un > 0) }' xyz.lammpstrj
		t lmp-xyz 0 "$TC xyz.lammpstrj > lmp-xyz.out"
		ok lmp-xyz-frames cmp_frames lmp.exp lmp-xyz.out 1e-9 1e-9
		ok lmp-frames-steps awk '/^frame/ { s = s $4 " " } END { exit !(s == "0 10 20 30 ") }' lmp-xyz.out
		t lmp-unwrapped 0 "$TC unw.lammpstrj > lmp-unw.out"
		ok lmp-unwrapped-frames cmp_frames lmp.exp lmp-unw.out 1e-9 1e-9
		t lmp-atom-scaled 0 "$TC atom.lammpstrj > lmp-atom.out"
		# dump atom writes xs ys zs in %g: 6 digits
		ok lmp-atom-scaled-frames cmp_frames lmp.exp lmp-atom.out 3e-6 1e-9
	fi
else
	skip lammps "no lmp (Debian's lammps)"
fi

# ---- 4. DCD ----------------------------------------------------------------------
t dcd-md-gpu 0 "$TC lj.dcd > dcd.out"
ok dcd-md-gpu-frames cmp_frames lj.exp dcd.out 2e-7 1e-9
cat > fektext.py <<'EOF'
# fektext.py: read_frames(PATH), the frames of a fek text twin, each
# {'cols': names, 'rows': numbers, 'box': six numbers or None}; the
# DCD writers below import it
def read_frames(path):
    frames, cur = [], None
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == '#FEK':
            cur = {'cols': [], 'rows': [], 'box': None}
            frames.append(cur)
        elif w[0] == '#COL':
            cur['cols'].append(w[1])
        elif w[0] == '#BOX':
            b = [float(v) for v in w[1:]]
            cur['box'] = b + [0.0] * (6 - len(b))
        elif not w[0].startswith('#'):
            cur['rows'].append([float(v) for v in w])
    return frames
EOF
cat > dcdw.py <<'EOF'
# dcdw.py TEXT OUT ORDER MARK CELL [NSET [CELLFLAG [FOURD]]]: the frames of
# a fek text twin as a DCD file (CHARMM layout): ORDER < or >, MARK 4 or
# 8 bytes, CELL deg (angles) or cos (NAMD's cosines); ISTART 100, NSAVC
# 100; NSET default the frame count
import math, struct, sys
from fektext import read_frames
text, out, order, mark, cell = sys.argv[1:6]
frames = read_frames(text)
nset = int(sys.argv[6]) if len(sys.argv) > 6 else len(frames)
cellflag = int(sys.argv[7]) if len(sys.argv) > 7 else 1
fourd = int(sys.argv[8]) if len(sys.argv) > 8 else 0
M = order + ('i' if mark == '4' else 'q')
def rec(payload):
    m = struct.pack(M, len(payload))
    return m + payload + m
n = len(frames[0]['rows'])
icntrl = [0] * 20
icntrl[0], icntrl[1], icntrl[2], icntrl[3] = nset, 100, 100, 100 * nset
icntrl[9] = struct.unpack(order + 'i', struct.pack(order + 'f', 0.005))[0]
icntrl[10], icntrl[11], icntrl[19] = cellflag, fourd, 24
with open(out, 'wb') as f:
    f.write(rec(b'CORD' + struct.pack(order + '20i', *icntrl)))
    f.write(rec(struct.pack(order + 'i', 1) + b'%-80s' % b'written by tests/trajin.sh'))
    f.write(rec(struct.pack(order + 'i', n)))
    for fr in frames:
        lx, ly, lz, xy, xz, yz = fr['box']
        a, b, c = lx, math.hypot(ly, xy), math.sqrt(lz * lz + xz * xz + yz * yz)
        cosa, cosb, cosg = (xy * xz + ly * yz) / (b * c), xz / c, xy / b
        if cell == 'cos':
            u = [a, cosg, b, cosb, cosa, c]
        else:
            deg = lambda v: math.degrees(math.acos(v))
            u = [a, deg(cosg), b, deg(cosb), deg(cosa), c]
        if cellflag:
            f.write(rec(struct.pack(order + '6d', *u)))
        ix = [fr['cols'].index(k) for k in ('x', 'y', 'z')]
        for k in ix:
            f.write(rec(struct.pack(order + '%df' % n, *[r[k] for r in fr['rows']])))
        if fourd:
            f.write(rec(struct.pack(order + '%df' % n, *([0.0] * n))))
EOF
if has_py struct; then
	for v in "le4deg < 4 deg" "be4deg > 4 deg" "le8cos < 8 cos" "be8cos4d > 8 cos 2 1 1"; do
		set -- $v
		name=$1
		shift
		t dcd-py-$name-write 0 "$PY dcdw.py tric.txt $name.dcd '$1' $2 $3 ${4:-} ${5:-} ${6:-}" || continue
		t dcd-py-$name 0 "$TC -v $name.dcd > dcd-$name.out"
		ok dcd-py-$name-frames cmp_frames tric0.exp dcd-$name.out 2e-7 1e-9
		ok dcd-py-$name-steps awk '/^frame/ { s = s $4 " " } END { exit !(s == "100 200 ") }' dcd-$name.out
	done
	t dcd-py-nset0-write 0 "$PY dcdw.py tric.txt nset0.dcd '<' 4 deg 0"
	t dcd-py-nset0 0 "$TC nset0.dcd > dcd-nset0.out"
	ok dcd-py-nset0-frames cmp_frames tric0.exp dcd-nset0.out 2e-7 1e-9
	t dcd-py-lscale 0 "$TC -l 0.1 le4deg.dcd > dcd-01.out"
	ok dcd-py-lscale-frames cmp_frames tric0-01.exp dcd-01.out 2e-7 1e-9
	# malformed: NSET says 5, no cell flag
	t dcd-py-nset5-write 0 "$PY dcdw.py tric.txt nset5.dcd '<' 4 deg 5"
	t dcd-nset-disagrees 65 "$TC nset5.dcd"
	says dcd-nset-disagrees 'nset5\.dcd: header: 5 frames \(NSET\)'
	t dcd-py-nocell-write 0 "$PY dcdw.py tric.txt nocell.dcd '<' 4 deg 2 0"
	t dcd-no-cell 65 "$TC nocell.dcd"
	says dcd-no-cell 'nocell\.dcd: .*no unit cell'
else
	skip dcd-python "no $PY"
fi
if has_py MDAnalysis; then
	cat > mdaw.py <<'EOF'
# mdaw.py TEXT OUT: the frames of a fek text twin written by MDAnalysis's
# DCDWriter, cells as a b c alpha beta gamma from the BOX keys
import math, sys, warnings
warnings.simplefilter('ignore')
import numpy as np
import MDAnalysis as mda
from MDAnalysis.coordinates.DCD import DCDWriter
from fektext import read_frames
frames = read_frames(sys.argv[1])
n = len(frames[0]['rows'])
u = mda.Universe.empty(n, trajectory=True)
with DCDWriter(sys.argv[2], n, istart=100, nsavc=100) as wr:
    for fr in frames:
        ix = [fr['cols'].index(k) for k in ('x', 'y', 'z')]
        u.atoms.positions = np.array([[r[k] for k in ix] for r in fr['rows']])
        lx, ly, lz, xy, xz, yz = fr['box']
        a, b, c = lx, math.hypot(ly, xy), math.sqrt(lz * lz + xz * xz + yz * yz)
        deg = lambda v: math.degrees(math.acos(v))
        u.dimensions = [a, b, c, deg((xy * xz + ly * yz) / (b * c)), deg(xz / c), deg(xy / b)]
        wr.write(u)
EOF
	if t dcd-mdanalysis-write 0 "$PY mdaw.py tric.txt mda.dcd"; then
		t dcd-mdanalysis 0 "$TC mda.dcd > dcd-mda.out"
		# MDAnalysis stores the cell in float32
		ok dcd-mdanalysis-frames cmp_frames tric0.exp dcd-mda.out 5e-6 5e-6
		ok dcd-mdanalysis-steps awk '/^frame/ { s = s $4 " " } END { exit !(s == "100 200 ") }' dcd-mda.out
	fi
else
	skip dcd-mdanalysis "no MDAnalysis for $PY"
fi
size=$(wc -c < lj.dcd)
head -c $((size - 10)) lj.dcd > trunc.dcd
t dcd-truncated 65 "$TC trunc.dcd"
says dcd-truncated 'trunc\.dcd: frame 2: truncated'
t dcd-stdin 64 "$TC -f dcd - < lj.dcd"

# ---- 5. formats told by content ------------------------------------------------
cp lj.dcd dcdfile
cp lj.gro grofile
cp lj-x.lammpstrj dumpfile
cp lj.fek fekfile
for f in dcd gro dump fek; do
	t guess-$f 0 "$TC -v ${f}file > guess-$f.out"
done
ok guess-formats sh -c 'head -n 1 guess-dcd.out guess-gro.out guess-dump.out guess-fek.out | grep -c "^format" | grep -qx 4 &&
	head -n 1 -q guess-dcd.out guess-gro.out guess-dump.out guess-fek.out | tr "\n" " " | grep -qx "format dcd format gro format lammpsdump format fek "'
ok guess-dcd-frames cmp_frames lj.exp guess-dcd.out 2e-7 1e-9
ok guess-gro-frames cmp_frames lj-gro.exp guess-gro.out 1e-9 1e-9
ok guess-dump-frames cmp_frames lj.exp guess-dump.out 1e-9 1e-9
ok guess-fek-frames cmp_frames lj.exp guess-fek.out 1e-9 1e-9
printf 'this is\nnot a trajectory\n' > prose
t guess-unknown 65 "$TC prose"
says guess-unknown '^trajin-check: prose: '

# ---- 6. malformed input ----------------------------------------------------------
# .gro: frame 2's count is not a number; frame 2 says more atoms than it has
awk 'NR == 113 { $0 = "  1x8" } { print }' lj.gro > badcount.gro
t gro-bad-count 65 "$TC badcount.gro"
says gro-bad-count 'badcount\.gro: frame 2: line 113: '
awk 'NR == 113 { $0 = "  109" } { print }' lj.gro > short.gro
t gro-too-few-atoms 65 "$TC short.gro"
says gro-too-few-atoms 'short\.gro: frame 2: .*(line 222|the file ends)'
# dumps: a missing column, a short atom line, type 17, an id twice
awk '/^ITEM: ATOMS/ && ++k == 2 { $0 = "ITEM: ATOMS id type x y" } { print }' lj-x.lammpstrj > nocol.lammpstrj
t dump-missing-column 65 "$TC nocol.lammpstrj"
says dump-missing-column 'nocol\.lammpstrj: frame 2: line [0-9]+: .*no columns x y z'
awk '/^ITEM: ATOMS/ { a = NR } a && NR == a + 5 { $NF = "" } { print }' lj-x.lammpstrj > shortline.lammpstrj
t dump-short-line 65 "$TC shortline.lammpstrj"
says dump-short-line 'shortline\.lammpstrj: frame 1: line 14: 4 fields'
awk '/^ITEM: ATOMS/ { a = NR } a && NR == a + 3 { $2 = 17 } { print }' lj-x.lammpstrj > type17.lammpstrj
t dump-type-range 65 "$TC type17.lammpstrj"
says dump-type-range 'type17\.lammpstrj: frame 1: line 12: type'
awk '/^ITEM: ATOMS/ { a = NR } a && NR == a + 3 { $1 = 1 } { print }' lj-x.lammpstrj > twice.lammpstrj
t dump-id-twice 65 "$TC twice.lammpstrj"
says dump-id-twice 'twice\.lammpstrj: frame 1: lines [0-9]+ and [0-9]+: atom id 1 twice'
# fek: a thermo section after the frames; no BOX; an infinite position
t md-log 0 "$MD -T -l log.txt > /dev/null"
cat lj.txt log.txt > withlog.txt
t fek-other-kind 65 "$TC withlog.txt"
says fek-other-kind 'withlog\.txt: section 3: KIND thermo'
grep -v '^#BOX' lj.txt > nobox.txt
t fek-no-box 65 "$TC nobox.txt"
says fek-no-box 'nobox\.txt: section 1: .*BOX'
awk '!/^#/ && ++k == 5 { $3 = "inf" } { print }' lj.txt > inf.txt
t fek-infinite 65 "$TC inf.txt"
says fek-infinite 'inf\.txt: (frame|section) 1: .*(finite|inf)'
for f in fek dcd gro lammpsdump; do
	t missing-$f 66 "$TC -f $f no-such-file"
done
t missing-guessed 66 "$TC no-such-file"
t bad-format 64 "$TC -f xyz lj.txt"
