# tests/pmd-io.sh - what md-gpu's particle mode reads and writes
# (tools/md-gpu/particles.c, lib/particles/config.c, lib/pmd/output.c,
# man/man1/md-gpu.1), checked against answers that do not come from it:
#   - LAMMPS data files written by Debian's LAMMPS itself (write_data; units
#     lj and real; atom styles atomic and full; an orthorhombic box off the
#     origin and triclinic region prisms; velocities, 2 types with masses,
#     image flags; Atoms lines out of id order): positions equal LAMMPS's
#     write_dump (%.17g) to 1e-12 (minimum image), velocities to 1e-12,
#     types 1..M -> 0..M-1, the cell equal to the dump's bounds, the masses
#     in the TYPE keys (and -m over them), and the pair and kinetic energies
#     equal to LAMMPS's pe and ke (norm no) to 1e-10 relative;
#   - GROMACS .gro files written by awk here (5 decimals in 10 columns,
#     velocities 6, a triclinic 9-number box line) and by MDAnalysis (the
#     standard %8.3f and %8.4f, 3- and 9-number box lines): positions and
#     velocities equal the file's numbers (parsed by awk from the fixed
#     columns) in gmx units and 10 and 0.01 times them in real units, the
#     box from the box line, types the atom names in order of appearance
#     (TYPE keys), ids the line order; a .gro found by its content is a .gro
#     in real units too;
#   - md-gpu's own frames, binary and text, read back bit for bit (lj and
#     real units), through stdin as well; a frames file of 3 sections is 3
#     boxes (-R 3 or -R 1; -R 2 exits 64); a hand-written frames file with
#     columns in another order, extra columns and keys, v_x names, an
#     origin, ids not 1..N and named types with masses;
#   - the DCD file read by mdtraj and by MDAnalysis: the frame count, the
#     positions to float32 precision (lj as they are, real in A, gmx in A =
#     10 x nm), the unit cell (a b c alpha beta gamma) from the BOX key by
#     the triclinic formulas, for box 1 of a batch under a barostat too;
#   - the thermo log: its header as documented (COL order and units), the
#     row count and order for -N, -n, --thermo and -R, and in real units T =
#     2K / (nf kB) with nf = 3N - 3, P = (2K + W) / 3V in atm (1 atm =
#     101325 Pa, kcal = 4184 J, NA = 6.02214076e23) + Ptail, E = K + U +
#     Utail, rho = N / V, t = step dt; in gmx units K = 1/2 m v^2 of the
#     .gro's numbers, T with kB in kJ/mol/K, P in bar, and real units' K
#     that over 4.184 with the same U and W; a restart's log continues the
#     whole run's rows;
#   - checkpoints: truncated ones exit 65 naming the file, other units exit
#     64;
#   - md-config-check (lib/particles/config.c alone): counts, masses, the cell, and
#     the format told by content for files without a telling name;
#   - malformed .gro, LAMMPS data and frames files exit 65 with one line
#     naming the file and the line, row or section; a missing file exits 66.
. "$(dirname "$0")/lib.sh"

M="md-gpu -d cpu"
CC="$TOP/tests/md-config-check"
LJ2="--lj 0:0:1:1 --lj 1:1:0.8:0.9 --rc 2.5"

# cmp_dump DUMP FRAMES: a LAMMPS dump (id type x y z vx vy vz) against a
# frames text twin: the same ids, type - 1, positions (minimum image in the
# frames' cell) and velocities within 1e-12; the frames' ids increasing
cmp_dump() {
	awk 'FNR == 1 { f++ }
	f == 1 && /^ITEM: ATOMS/ { a = 1; next }
	f == 1 && a { ty[$1] = $2; x[$1] = $3; y[$1] = $4; z[$1] = $5; vx[$1] = $6; vy[$1] = $7; vz[$1] = $8; nd++; next }
	f == 2 && /^#BOX/ { lx = $2; ly = $3; lz = $4; xy = $5; xz = $6; yz = $7; next }
	f == 2 && /^#/ { next }
	f == 2 {
		nf++; i = $1
		if (!(i in ty) || i <= last) { bad++; next }
		last = i
		if ($2 != ty[i] - 1) bad++
		dx = $3 - x[i]; dy = $4 - y[i]; dz = $5 - z[i]
		n = rnd(dz / lz); dx -= n * xz; dy -= n * yz; dz -= n * lz
		n = rnd(dy / ly); dx -= n * xy; dy -= n * ly
		n = rnd(dx / lx); dx -= n * lx
		d = max3(dx, dy, dz); if (d > mx) mx = d
		d = max3($6 - vx[i], $7 - vy[i], $8 - vz[i]); if (d > mv) mv = d
	}
	function abs(v) { return v < 0 ? -v : v }
	function max3(a, b, c) { a = abs(a); if (abs(b) > a) a = abs(b); if (abs(c) > a) a = abs(c); return a }
	function rnd(v) { return v >= 0 ? int(v + 0.5) : -int(-v + 0.5) }
	END { printf "particles %d (dump %d), bad ids or types %d, largest |dx| %.3g |dv| %.3g\n", nf, nd, bad, mx, mv > "/dev/stderr"
		exit !(nd == nf && nd > 0 && bad == 0 && mx <= 1e-12 && mv <= 1e-12) }' "$1" "$2"
}
# cmp_bounds DUMP FRAMES: LAMMPS's dump box bounds (with the bounding box
# of a tilted cell) from the frames' BOX and ORIGIN, within 1e-12
cmp_bounds() {
	awk 'FNR == 1 { f++ }
	f == 1 && /^ITEM: BOX BOUNDS/ { b = 1; next }
	f == 1 && b && b <= 3 { lo[b] = $1; hi[b] = $2; t[b] = NF > 2 ? $3 : 0; b++; next }
	f == 2 && /^#BOX/ { lx = $2; ly = $3; lz = $4; xy = $5; xz = $6; yz = $7 }
	f == 2 && /^#ORIGIN/ { ox = $2; oy = $3; oz = $4 }
	function min(a, b) { return a < b ? a : b }
	function max(a, b) { return a > b ? a : b }
	function abs(v) { return v < 0 ? -v : v }
	END {
		w[1] = ox + min(min(0, xy), min(xz, xy + xz)); w[2] = ox + lx + max(max(0, xy), max(xz, xy + xz))
		w[3] = oy + min(0, yz); w[4] = oy + ly + max(0, yz); w[5] = oz; w[6] = oz + lz
		g[1] = lo[1]; g[2] = hi[1]; g[3] = lo[2]; g[4] = hi[2]; g[5] = lo[3]; g[6] = hi[3]
		w[7] = xy; w[8] = xz; w[9] = yz; g[7] = t[1]; g[8] = t[2]; g[9] = t[3]
		for (k = 1; k <= 9; k++) { d = abs(w[k] - g[k]); if (d > m) m = d }
		printf "largest bound difference %.3g\n", m > "/dev/stderr"; exit !(b == 4 && m <= 1e-12) }' "$1" "$2"
}
# cmp_gro GRO FRAMES S VS TOL: md-gpu's reading of GRO (its frames text)
# against the file's own numbers: positions and the box times S,
# velocities times VS (when the file has them), within TOL (minimum
# image); ids the line order; types the atom names in order of appearance
cmp_gro() {
	awk -v s="$3" -v vs="$4" -v tol="$5" 'FNR == 1 { f++ }
	f == 1 && FNR == 2 { n = $1 + 0; next }
	f == 1 && FNR > 2 && FNR <= n + 2 {
		k = FNR - 2
		if (!w) { p = index(substr($0, 21), "."); w = index(substr($0, 21 + p), "."); hv = length($0) > 20 + 3 * w }
		nm = substr($0, 11, 5); gsub(/ /, "", nm)
		if (!(nm in tmap)) { tmap[nm] = nt; tname[nt++] = nm }
		ty[k] = tmap[nm]
		for (d = 0; d < 3; d++) { x[k, d] = substr($0, 21 + d * w, w) + 0; v[k, d] = substr($0, 21 + (3 + d) * w, w) + 0 }
		next
	}
	f == 1 && FNR == n + 3 { bl = $1 * s; bly = $2 * s; blz = $3 * s; bxy = NF == 9 ? $6 * s : 0; bxz = NF == 9 ? $8 * s : 0; byz = NF == 9 ? $9 * s : 0; next }
	f == 2 && /^#BOX/ { lx = $2; ly = $3; lz = $4; xy = $5; xz = $6; yz = $7
		db = max3(lx - bl, ly - bly, lz - blz); d = max3(xy - bxy, xz - bxz, yz - byz); if (d > db) db = d; next }
	f == 2 && /^#TYPE/ { if (tname[$2] != $3) bad++; ntk++; next }
	f == 2 && /^#/ { next }
	f == 2 {
		i = $1; m++
		if (i != m || $2 != ty[i]) bad++
		dx = $3 - s * x[i, 0]; dy = $4 - s * x[i, 1]; dz = $5 - s * x[i, 2]
		q = rnd(dz / lz); dx -= q * xz; dy -= q * yz; dz -= q * lz
		q = rnd(dy / ly); dx -= q * xy; dy -= q * ly
		q = rnd(dx / lx); dx -= q * lx
		d = max3(dx, dy, dz); if (d > mx) mx = d
		if (hv) { d = max3($6 - vs * v[i, 0], $7 - vs * v[i, 1], $8 - vs * v[i, 2]); if (d > mv) mv = d }
	}
	function abs(a) { return a < 0 ? -a : a }
	function max3(a, b, c) { a = abs(a); if (abs(b) > a) a = abs(b); if (abs(c) > a) a = abs(c); return a }
	function rnd(a) { return a >= 0 ? int(a + 0.5) : -int(-a + 0.5) }
	END { printf "atoms %d, read %d, field width %d, velocities %d, types %d (TYPE keys %d), bad ids/types/names %d, largest |dbox| %.3g |dx| %.3g |dv| %.3g\n", n, m, w, hv, nt, ntk, bad, db, mx, mv > "/dev/stderr"
		exit !(n == m && n > 0 && bad == 0 && ntk == nt && db <= tol && mx <= tol && mv <= tol) }' "$1" "$2"
}
# gro_fcc NC A XY XZ YZ DEC VEL: a .gro of an fcc lattice of NC^3 cells of
# edge A (nm), each site moved by up to 0.05 A along each edge, in the cell
# (NC A, 0, 0), (XY, NC A, 0), (XZ, YZ, NC A) (3 numbers on the box line
# when it is rectangular, else 9); x y z with DEC decimals in DEC + 5
# columns, velocities (VEL 1) with DEC + 1; atom names ZN (every fifth,
# from the first) and AR
gro_fcc() {
	awk -v nc="$1" -v a="$2" -v xy="$3" -v xz="$4" -v yz="$5" -v p="$6" -v vel="$7" 'BEGIN {
		srand(17); L = nc * a; w = p + 5
		fx = "%" w "." p "f"; fv = "%" w "." (p + 1) "f"
		split("0 0 0 0.5 0.5 0 0.5 0 0.5 0 0.5 0.5", bs, " ")
		print "an fcc lattice, jittered"
		printf "%5d\n", 4 * nc ^ 3
		for (i = 0; i < nc; i++) for (j = 0; j < nc; j++) for (k = 0; k < nc; k++) for (b = 0; b < 4; b++) {
			sx = (i + bs[3 * b + 1] + 0.25 + 0.1 * (rand() - 0.5)) / nc
			sy = (j + bs[3 * b + 2] + 0.25 + 0.1 * (rand() - 0.5)) / nc
			sz = (k + bs[3 * b + 3] + 0.25 + 0.1 * (rand() - 0.5)) / nc
			n++; nm = n % 5 == 1 ? "ZN" : "AR"
			line = sprintf("%5d%-5s%5s%5d" fx fx fx, n, "LJ", nm, n, L * sx + xy * sy + xz * sz, L * sy + yz * sz, L * sz)
			if (vel) line = line sprintf(fv fv fv, rand() - 0.5, rand() - 0.5, rand() - 0.5)
			print line
		}
		if (xy == 0 && xz == 0 && yz == 0) printf "%10.5f%10.5f%10.5f\n", L, L, L
		else printf "%10.5f%10.5f%10.5f%10.5f%10.5f%10.5f%10.5f%10.5f%10.5f\n", L, L, L, 0, 0, xy, 0, xz, yz
	}'
}

# ---- 1. LAMMPS data files written by LAMMPS --------------------------------------
# lmp_input UNITS STYLE REGION TILT NAME: melt an fcc lattice of 2 types
# for 200 steps, write NAME.data and NAME.dump, then print pe and ke; lj:
# rho 0.8, masses 1 and 2.5, T 1.5; real: argon and krypton, 5.26 A cells,
# 100 K
lmp_input() {
	if [ "$1" = lj ]; then
		set -- "$@" 0.8 1.0 2.5 1.5 2.5 "1.0 1.0" "0.8 0.9"
	else
		set -- "$@" 5.26 39.948 83.798 100 8.5 "0.2381 3.405" "0.4 3.6"
	fi
	cat <<EOF
units $1
atom_style $2
lattice fcc $6
region box $3
create_box 2 box
create_atoms 1 box
$4
set type 1 type/fraction 2 0.3 12345
mass 1 $7
mass 2 $8
velocity all create $9 4928 loop geom
pair_style lj/cut ${10}
pair_coeff 1 1 ${11}
pair_coeff 2 2 ${12}
pair_modify mix arithmetic
fix 1 all nve
run 200
write_data $5.data
write_dump all custom $5.dump id type x y z vx vy vz modify sort id format float %.17g
thermo_style custom step pe ke
thermo_modify norm no format float %.17g
run 0
EOF
}
# lmp_pe_ke OUT: "pe ke" from lmp's screen output
lmp_pe_ke() {
	awk '/^ *Step +PotEng +KinEng/ { getline; print $2, $3; exit }' "$1"
}
if have lmp; then
	lmp_input lj atomic "block -2 2 -2 2 -2 2" "" orth > orth.in
	lmp_input lj full "prism 0 4 0 4 0 4 0 0 0" \
	    "change_box all xy final 0.6 xz final -0.4 yz final 0.3 remap units box" tric > tric.in
	lmp_input real atomic "prism 0 4 0 4 0 4 0 0 0" \
	    "change_box all xy final 2.1 xz final 1.5 yz final -1.2 remap units box" artric > artric.in
	for b in orth tric artric; do
		opts=$LJ2 m1=1 m2=2.5
		[ $b = artric ] && opts="--units real --lj 0:0:0.2381:3.405 --lj 1:1:0.4:3.6 --rc 8.5" m1=39.948 m2=83.798
		t lmp-$b 0 "lmp -in $b.in -log none -screen $b.lmp.out > /dev/null" || continue
		ok lmp-$b-has-images sh -c "awk '/^Atoms/ { a = 1; next } /^Velocities/ { a = 0 } a && NF >= 8 && (\$(NF-2) != 0 || \$(NF-1) != 0 || \$NF != 0) { n++ } END { exit !(n > 0) }' $b.data"
		t lmp-$b-read 0 "$M --config $b.data $opts -n 0 -T -l $b.log > $b.txt"
		ok lmp-$b-positions-velocities-types cmp_dump $b.dump $b.txt
		ok lmp-$b-cell cmp_bounds $b.dump $b.txt
		ok lmp-$b-masses awk -v m1=$m1 -v m2=$m2 '/^#TYPE/ { k++; ok += $2 == k - 1 && $3 == "-" && $4 == (k == 1 ? m1 : m2) }
			END { exit !(k == 2 && ok == 2) }' $b.txt
		read -r pe ke <<EOF
$(lmp_pe_ke $b.lmp.out)
EOF
		read -r U K <<EOF
$(rows $b.log | awk '{ print $5, $7 }')
EOF
		echo "$b: LAMMPS pe $pe ke $ke, md-gpu U $U K $K"
		near lmp-$b-pe "$(awk -v a="$U" -v b="$pe" 'BEGIN { printf "%.3g", (a - b) / b }')" 0 1e-10
		# (real units: LAMMPS's mvv2e uses 48.88821291 fs, our 48.88821290839617:
		# 6.6e-11 apart)
		near lmp-$b-ke "$(awk -v a="$K" -v b="$ke" 'BEGIN { printf "%.3g", (a - b) / b }')" 0 1e-10
	done
	if [ -s orth.txt ]; then
		# Atoms and Velocities lines in reverse: the same configuration
		awk '/^(Atoms|Velocities)/ { print; getline; print; sec = 1; n = 0; next }
		sec && NF == 0 { for (i = n; i >= 1; i--) print l[i]; sec = 0; print; next }
		sec { l[++n] = $0; next } { print }
		END { if (sec) for (i = n; i >= 1; i--) print l[i] }' orth.data > orth-rev.data
		t lmp-reversed-read 0 "$M --config orth-rev.data $LJ2 -n 0 -T > orth-rev.txt"
		ok lmp-reversed-in-id-order cmp -s <(rows orth.txt) <(rows orth-rev.txt)
		t lmp-mass-option 0 "$M --config orth.data $LJ2 -m 1:4 -n 0 -T > orth-m.txt"
		ok lmp-mass-option-wins sh -c "grep -qx '#TYPE 1 - 4' orth-m.txt && grep -qx '#TYPE 0 - 1' orth-m.txt"
	fi
	if [ -x "$CC" ] && [ -s tric.data ]; then
		t cc-lammps-full 0 "'$CC' lammps tric.data 1 1 > cc-tric.out"
		ok cc-lammps-full-header sh -c "awk 'NR == 1 { ok = \$0 == \"256 1 2 1\" }
		NR == 2 { ok = ok && \$1 == 0 && \$2 == 0 && \$3 == 0 && \$7 == 0.6 && \$8 == -0.4 && \$9 == 0.3 && \$4 == \$5 && \$5 == \$6 }
		NR == 3 { ok = ok && \$0 == \"0 1 -\" } NR == 4 { ok = ok && \$0 == \"1 2.5 -\" }
		END { exit !(ok && NR == 260) }' cc-tric.out"
	fi
else
	skip lammps "no lmp (Debian's lammps)"
fi

# ---- 2. GROMACS .gro -------------------------------------------------------------
gro_fcc 4 1.71 0.5 -0.7 0.4 5 1 > hp-tric.gro
gro_fcc 4 1.71 0 0 0 5 0 > hp-orth.gro
GMX="--units gmx --lj 0:0:1:1 --lj 1:1:1:1 -n 0 -T"
REAL="--units real --lj 0:0:1:10 --lj 1:1:1:10 -n 0 -T"
gro_cases="hp-tric hp-orth"
if has_py MDAnalysis; then
	t mda-gro-write 0 "$PY -W ignore - 2> mda.err <<'EOF'
import MDAnalysis as mda
for name in ('tric', 'orth'):
    u = mda.Universe('hp-%s.gro' % name)
    u.atoms.write('mda-%s.gro' % name)
EOF" && gro_cases="$gro_cases mda-tric mda-orth"
else
	skip mda-gro "MDAnalysis not importable by $PY"
fi
for g in $gro_cases; do
	t gro-$g-gmx 0 "$M $GMX --config $g.gro > $g-gmx.txt" &&
		ok gro-$g-gmx-exact cmp_gro $g.gro $g-gmx.txt 1 1 1e-12
	t gro-$g-real 0 "$M $REAL --config $g.gro > $g-real.txt" &&
		ok gro-$g-real-times-10 cmp_gro $g.gro $g-real.txt 10 0.01 1e-11
done
ok gro-hp-width-10 grep -q 'field width 10, velocities 1' "$(_t_file gro-hp-tric-gmx-exact).err"
# a .gro told by its content, or by a name in capitals, is a .gro: in real
# units it is in nm all the same
cp hp-tric.gro conf1
cp hp-tric.gro CONF2.GRO
for g in conf1 CONF2.GRO; do
	t gro-guessed-$g-real 0 "$M --units real --lj 0:0:1:0.5 --lj 1:1:1:0.5 -n 0 -T --config $g > $g-real.txt" &&
		ok gro-guessed-$g-real-times-10 cmp_gro $g $g-real.txt 10 0.01 1e-11
done
t gro-stdin 0 "$M $GMX --format gro --config - < hp-tric.gro > gro-stdin.txt" &&
	ok gro-stdin-same cmp -s <(rows gro-stdin.txt) <(rows hp-tric-gmx.txt)
t gro-lj 0 "$M --lj 0:0:1:1 --lj 1:1:1:1 -n 0 -T --config hp-tric.gro > hp-tric-lj.txt" &&
	ok gro-lj-as-is cmp_gro hp-tric.gro hp-tric-lj.txt 1 1 1e-12
if [ -x "$CC" ]; then
	# the format told by content, for names that do not tell it
	t fek-bin 0 "$M --lattice fcc:4 --density 0.8 -n 10 > lat.fek"
	for p in "gro hp-tric.gro conf1" "fek lat.fek conf3" "lammps tric.data conf4"; do
		set -- $p
		[ -s "$2" ] || continue
		cp "$2" "$3"
		ok cc-guess-$1 cmp -s <("$CC" "$1" "$2" 1 1) <("$CC" auto "$3" 1 1)
	done
else
	skip md-config-check "tests/md-config-check not built (make check builds it)"
fi

# ---- 3. fek frames: round trips, batches, stdin, foreign frames ---------------------
t rt-bin 0 "$M --lattice fcc:4 --density 0.8 -i baoab -t 1.5 -n 50 -s 3 > rt.fek"
t rt-text 0 "$M --lattice fcc:4 --density 0.8 -i baoab -t 1.5 -n 50 -s 3 -T > rt.txt"
t rt-read-bin 0 "$M --config rt.fek -n 0 -T > rt-bin.txt"
t rt-read-text 0 "$M --config rt.txt -n 0 -T > rt-text.txt"
t rt-read-stdin-bin 0 "$M --config - -n 0 -T < rt.fek > rt-sbin.txt"
t rt-read-stdin-text 0 "$M --config - -n 0 -T < rt.txt > rt-stext.txt"
for k in bin text sbin stext; do
	ok rt-$k-bits cmp -s <(rows rt.txt) <(rows rt-$k.txt)
done
ok rt-box-bits cmp -s <(grep -E '^#(BOX|ORIGIN|TYPE|NTYPES)' rt.txt) <(grep -E '^#(BOX|ORIGIN|TYPE|NTYPES)' rt-bin.txt)
RHO_AR=$(awk 'BEGIN { printf "%.17g", 0.8 / 3.405 ^ 3 }')
AR="--units real --lj 0.2381:3.405 -m 39.948"
t rt-real 0 "$M $AR --lattice fcc:4 --density $RHO_AR -i baoab -t 150 -n 50 -s 3 -T > rtr.txt"
t rt-real-read 0 "$M $AR --config rtr.txt -n 0 -T > rtr-back.txt"
ok rt-real-bits cmp -s <(rows rtr.txt) <(rows rtr-back.txt)
# three boxes under a barostat (three cells); the runs' keys aside, the
# batch read back is the batch
NOTRUN='^#\(PROV\|INTEGRATOR\|PRESSURE\|STEP\|TIME\) '
t batch3 0 "$M --lattice fcc:4 --density 0.8 -i baoab -t 1.5 --pressure 1 --barostat-every 5 -R 3 -n 50 -s 4 -T > b3.txt"
ok batch3-cells-differ sh -c "test \"\$(grep '^#BOX' b3.txt | sort -u | wc -l)\" = 3"
for R in none 3 1; do
	opt=; [ $R = none ] || opt="-R $R"
	t batch3-read-$R 0 "$M --config b3.txt -i baoab -t 1.5 $opt -n 0 -T > b3-$R.txt" &&
		ok batch3-read-$R-same cmp -s <(grep -v "$NOTRUN" b3.txt) <(grep -v "$NOTRUN" b3-$R.txt)
done
t batch3-R2 64 "$M --config b3.txt -R 2 -n 0 -T"
says batch3-R2 'b3\.txt.*3'
# a frames file written by hand: other column order, an extra column and
# key, v_x names, an origin, ids from 1000 in threes, named types, masses
awk 'BEGIN { srand(5); L = 6.84; xy = -0.8; xz = 0.3; yz = 1.1; o1 = 1; o2 = -2; o3 = 0.5
	print "#FEK 1"; print "#KIND frames"; print "#ROWS 256"
	print "#COL charge f64 e"; print "#COL z f64 sigma"; print "#COL y f64 sigma"; print "#COL x f64 sigma"
	print "#COL v_x f64 1"; print "#COL v_y f64 1"; print "#COL v_z f64 1"; print "#COL type i32 1"; print "#COL id i64 1"
	printf "#BOX %.17g %.17g %.17g %.17g %.17g %.17g\n", L, L, L, xy, xz, yz
	printf "#ORIGIN %.17g %.17g %.17g\n", o1, o2, o3
	print "#NTYPES 2"; print "#TYPE 0 AR 39.948"; print "#TYPE 1 KR 83.798"; print "#COLOUR blue"; print "#END"
	for (i = 0; i < 4; i++) for (j = 0; j < 4; j++) for (k = 0; k < 4; k++) for (b = 0; b < 4; b++) {
		sx = (i + (b == 1 || b == 2) * 0.5 + 0.25) / 4; sy = (j + (b == 1 || b == 3) * 0.5 + 0.25) / 4; sz = (k + (b >= 2) * 0.5 + 0.25) / 4
		n++
		printf "%.3f %.17g %.17g %.17g %.17g %.17g %.17g %d %d\n", rand(), o3 + L * sz, o2 + L * sy + yz * sz, o1 + L * sx + xy * sy + xz * sz,
			rand() - 0.5, rand() - 0.5, rand() - 0.5, n % 3 == 0, 997 + 3 * n }
}' > hand.txt
t hand-read 0 "$M --config hand.txt $LJ2 -n 0 -T > hand-back.txt"
hand_rows() {
	paste <(rows hand.txt) <(rows hand-back.txt) | awk '{ if ($10 != $9 || $11 != $8 || $15 != $5 || $16 != $6 || $17 != $7) bad++
		for (k = 0; k < 3; k++) { d = $(12 + k) - $(4 - k); if (d < 0) d = -d; if (d > m) m = d } }
	END { print NR, "rows,", bad + 0, "with other ids, types or velocities; largest |dx|", m > "/dev/stderr"; exit !(NR == 256 && bad == 0 && m <= 1e-12) }'
}
ok hand-rows hand_rows
ok hand-keys awk '/^#TYPE 0 / { ok += $3 == "AR" && $4 == 39.948 } /^#TYPE 1 / { ok += $3 == "KR" && $4 == 83.798 }
	/^#ORIGIN/ { ok += $2 == 1 && $3 == -2 && $4 == 0.5 }
	/^#BOX/ { ok += $2 == 6.84 && $3 == 6.84 && $4 == 6.84 && $5 == -0.8 && $6 == 0.3 && $7 == 1.1 }
	END { exit !(ok == 4) }' hand-back.txt

# ---- 4. DCD files, read by mdtraj and MDAnalysis --------------------------------------
# each case: NAME:DCD:FRAMES-TEXT:SCALE (the DCD's numbers are SCALE x the
# frames' lengths)
dcd_cases=
dcd_run() {	# dcd_run NAME SCALE OPTIONS...
	local name=$1 scale=$2
	shift 2
	t dcd-$name 0 "$M $* -o $name.dcd -T > $name.txt" && dcd_cases="$dcd_cases $name:$name.dcd:$name.txt:$scale"
}
dcd_run lj 1 --lattice fcc:4 --density 0.8 -i baoab -t 1.5 -N 10 -n 20 -e 5
ok dcd-lj-frames-after-N sh -c "test \"\$(grep '^#STEP' lj.txt | tr '\n' ' ')\" = '#STEP 15 #STEP 20 #STEP 25 #STEP 30 '"
dcd_run real 1 $AR --lattice fcc:4 --density $RHO_AR -t 120 -n 10 -e 5
dcd_run gmx-tric 10 $GMX --config hp-tric.gro -n 10 -e 5
dcd_run lj-tric-single 1 --lj 0:0:1:1 --lj 1:1:1:1 --config hp-tric.gro -n 0
dcd_run npt-R2 1 --lattice fcc:4 --density 0.8 -i baoab -t 1.5 --pressure 2 --barostat-every 2 -R 2 -n 20 -e 5
ok dcd-npt-R2-cells-move sh -c "test \"\$(grep '^#BOX' npt-R2.txt | sort -u | wc -l)\" -gt 2"
[ -s tric.data ] && dcd_run lmp-tric 1 --config tric.data $LJ2 -n 10 -e 5
cat > dcdcheck.py <<'EOF'
# dcdcheck.py LIB CASE...: each CASE NAME:DCD:FRAMES:SCALE read by LIB
# (mdtraj or MDAnalysis) against the frames text twin: "NAME ok|FAIL ..."
import math, sys, warnings
warnings.filterwarnings("ignore")
import numpy as np

def frames(path):
    """the text twin as a list of (xyz of all boxes, box 1's BOX)"""
    secs = []
    for line in open(path):
        if line.startswith("#FEK"):
            secs.append({"rows": []})
        elif line.startswith("#BOX") or line.startswith("#REPLICA"):
            secs[-1][line.split()[0]] = [float(v) for v in line.split()[1:]]
        elif line.strip() and not line.startswith("#"):
            secs[-1]["rows"].append([float(v) for v in line.split()[2:5]])
    out, k = [], 0
    while k < len(secs):
        nb = int(secs[k]["#REPLICA"][1])
        out.append((np.concatenate([np.array(s["rows"]) for s in secs[k:k + nb]]), secs[k]["#BOX"]))
        k += nb
    return out

def cell(box, s):
    lx, ly, lz, xy, xz, yz = box
    b = math.sqrt(ly * ly + xy * xy)
    c = math.sqrt(lz * lz + xz * xz + yz * yz)
    ang = [math.degrees(math.acos((xy * xz + ly * yz) / (b * c))),
           math.degrees(math.acos(xz / c)), math.degrees(math.acos(xy / b))]
    return np.array([s * lx, s * b, s * c]), np.array(ang)

def err(got, want):
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    return float(np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want))))

lib = sys.argv[1]
if lib == "mdtraj":
    import mdtraj as md
else:
    import MDAnalysis as mda
for case in sys.argv[2:]:
    name, dcd, txt, s = case.split(":")
    want = frames(txt)
    n = len(want[0][0])
    try:
        if lib == "mdtraj":
            top = md.Topology()
            chain = top.add_chain()
            for i in range(n):
                top.add_atom("AR", md.element.argon, top.add_residue("LJ", chain))
            tr = md.load_dcd(dcd, top=top)
            # mdtraj takes a DCD to be in A and gives nm
            got = [(10 * tr.xyz[k], 10 * tr.unitcell_lengths[k], tr.unitcell_angles[k]) for k in range(tr.n_frames)]
        else:
            u = mda.Universe.empty(n, trajectory=True)
            u.load_new(dcd, format="DCD")
            got = [(ts.positions.copy(), ts.dimensions[:3].copy(), ts.dimensions[3:].copy()) for ts in u.trajectory]
    except Exception as e:
        print(name, "FAIL", "cannot read it:", repr(e).replace("\n", " "))
        continue
    if len(got) != len(want):
        print(name, "FAIL", "%d frames, the frames file has %d" % (len(got), len(want)))
        continue
    ex = el = ea = 0.0
    for (gx, gl, ga), (wx, wb) in zip(got, want):
        wl, wa = cell(wb, float(s))
        ex = max(ex, err(gx, float(s) * wx))
        el = max(el, err(gl, wl))
        ea = max(ea, err(ga, wa))
    good = ex <= 1e-4 and el <= 1e-4 and ea <= 1e-4
    print(name, "ok" if good else "FAIL", "%d frames of %d atoms: relative errors xyz %.2g, a b c %.2g, angles %.2g" % (len(got), n, ex, el, ea))
EOF
for lib in mdtraj MDAnalysis; do
	if ! has_py $lib; then
		skip dcd-$lib "$lib not importable by $PY"
		continue
	fi
	if ! "$PY" -W ignore dcdcheck.py $lib $dcd_cases > dcd-$lib.out 2> dcd-$lib.err; then
		fail dcd-$lib "$(tail -n 1 dcd-$lib.err)"
		continue
	fi
	for c in $dcd_cases; do
		name=${c%%:*}
		line=$(grep "^$name " dcd-$lib.out)
		echo "$lib: $line"
		case $line in
		"$name ok "*) pass dcd-$lib-$name ;;
		*) fail dcd-$lib-$name "${line:-no result}" ;;
		esac
	done
done

# ---- 5. the thermo log ------------------------------------------------------------------
t log-real 0 "$M $AR --lattice fcc:4 --density $RHO_AR -t 100 -i verlet -R 2 -N 20 -n 30 --thermo 10 -l real.log > /dev/null"
log_header() {
	awk 'BEGIN { split("step t replica T U Utail K E H P Ptail W V rho acc nbuild", c, " ")
		split("1 fs 1 K kcal/mol kcal/mol kcal/mol kcal/mol kcal/mol atm atm kcal/mol A^3 1/A^3 1 1", u, " ") }
	/^#COL/ { k++; if ($2 != c[k] || $4 != u[k]) { print "COL", k, $0, "want", c[k], u[k] > "/dev/stderr"; bad = 1 } }
	NR == 1 && $0 != "#FEK 1" { bad = 1 } NR == 2 && $0 != "#KIND thermo" { bad = 1 }
	/^#PARTICLES / { ok += $2 == 256 } /^#REPLICAS / { ok += $2 == 2 } /^#UNITS / { ok += $2 == "real" }
	/^#TEMP / { ok += $2 == 100 && $3 == "K" } /^#INTEGRATOR / { ok += $2 == "verlet" } /^#TIMESTEP / { ok += $2 == 1 && $3 == "fs" }
	/^#END$/ { e++ }
	END { exit !(!bad && k == 16 && ok == 6 && e == 1) }' real.log
}
ok log-real-header log_header
log_rows() {
	test "$(rows real.log | awk '{ printf "%s/%s ", $1, $3 }')" = '0/1 0/2 10/1 10/2 20/1 20/2 30/1 30/2 40/1 40/2 50/1 50/2 '
}
ok log-real-rows log_rows
# the default --thermo (100) from step 0: steps 0, 100 and 200 of 250
t log-default-every 0 "$M --lattice fcc:4 --density 0.8 -n 250 -e 0 -l def.log"
ok log-default-rows sh -c "test \"\$(grep -v '^#' def.log | cut -d' ' -f1 | tr '\n' ' ')\" = '0 100 200 '"
log_physics() {
	rows real.log | awk -v n=256 '
	function rel(a, b) { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; return d / (s > 1e-300 ? s : 1) }
	function chk(what, a, b, tol) { r = rel(a, b); if (r > tol) { printf "row %d: %s %.17g, want %.17g\n", NR, what, a, b > "/dev/stderr"; bad = 1 } }
	BEGIN { kB = 0.0019872042586408316; atm = 4184 / 6.02214076e23 / 1e-30 / 101325 }
	{
		chk("t", $2, $1 * 1, 1e-15)
		chk("T", $4, 2 * $7 / ((3 * n - 3) * kB), 1e-12)
		chk("E", $8, $7 + $5 + $6, 1e-12)
		chk("H", $9, $8, 1e-12)
		chk("P", $10, (2 * $7 + $12) / (3 * $13) * atm + $11, 1e-9)
		chk("rho", $14, n / $13, 1e-12)
		if ($4 < 50 || $4 > 150) { print "T", $4, "far from 100 K" > "/dev/stderr"; bad = 1 }
	}
	END { exit !(NR == 12 && !bad) }'
}
ok log-real-physics log_physics
# gmx and real units against the numbers of one .gro (velocities in nm/ps,
# mass 39.948 g/mol: K in kJ/mol is 1/2 m v^2 as it stands; eps 1 kJ/mol
# and sigma 1 nm in gmx units, 1 kcal/mol and 10 A in real units, the same
# U and W in numbers); kB 0.00831446261815324 kJ/mol/K; 1 bar = 1e5 Pa
t log-gmx 0 "$M $GMX -m 39.948 --config hp-tric.gro -l gmx.log > /dev/null"
t log-gmx-real 0 "$M $REAL -m 39.948 --config hp-tric.gro -l realg.log > /dev/null"
read -r Kg Kr Ug Ur Wg Wr Vg Vr Tg Pg Kgro Tw Pw <<EOF
$(awk 'FNR == 1 { f++ }
	f == 1 && FNR > 2 && FNR <= 258 { for (d = 0; d < 3; d++) { v = substr($0, 51 + 10 * d, 10); s += v * v } }
	f == 2 && !/^#/ { Kg = $7; Ug = $5; Wg = $12; Vg = $13; Tg = $4; Pg = $10; Ptg = $11 }
	f == 3 && !/^#/ { Kr = $7; Ur = $5; Wr = $12; Vr = $13 }
	END { K = 0.5 * 39.948 * s; bar = 1000 / 6.02214076e23 / 1e-27 / 1e5
		printf "%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", Kg, Kr, Ug, Ur, Wg, Wr, Vg, Vr, Tg, Pg, K,
			2 * Kg / (765 * 0.00831446261815324), (2 * Kg + Wg) / (3 * Vg) * bar + Ptg }' hp-tric.gro gmx.log realg.log)
EOF
echo "gmx: K $Kg (1/2 m v^2 of the .gro: $Kgro), U $Ug, W $Wg, V $Vg, T $Tg ($Tw), P $Pg bar ($Pw); real: K $Kr, U $Ur, W $Wr, V $Vr"
relerr() { awk -v a="$1" -v b="$2" 'BEGIN { d = (a - b) / b; printf "%.3g", d < 0 ? -d : d }'; }
near log-gmx-K-is-half-mv2 "$(relerr "$Kg" "$Kgro")" 0 1e-12
near log-real-K-in-kcal "$(relerr "$Kr" "$(awk -v k="$Kgro" 'BEGIN { printf "%.17g", k / 4.184 }')")" 0 1e-12
near log-gmx-T "$(relerr "$Tg" "$Tw")" 0 1e-12
near log-gmx-P-in-bar "$(relerr "$Pg" "$Pw")" 0 1e-9
near log-gmx-real-same-U "$(relerr "$Ur" "$Ug")" 0 1e-12
near log-gmx-real-same-W "$(relerr "$Wr" "$Wg")" 0 1e-12
near log-gmx-V "$(relerr "$Vg" 320.013504)" 0 1e-12
near log-real-V "$(relerr "$Vr" 320013.504)" 0 1e-12
# the log is a fek stream: md-gpu's reader takes its header and then
# refuses it for what it is (KIND thermo, not frames)
t log-is-a-stream 65 "$M --config real.log --format fek -n 0"
says log-is-a-stream 'real\.log.*KIND thermo'
# a restart's log continues the whole run's (its own start not repeated;
# nbuild counts from the restart)
t log-whole 0 "$M --lattice fcc:4 --density 0.8 -i verlet -t 1.2 -n 40 --thermo 10 -l whole.log -e 0"
t log-first 0 "$M --lattice fcc:4 --density 0.8 -i verlet -t 1.2 -n 20 --thermo 10 -l first.log -e 0 --checkpoint ck.fek"
t log-second 0 "$M --restart ck.fek -i verlet -n 20 --thermo 10 -l second.log -e 0"
ok log-restart-continues cmp -s <(rows whole.log | cut -d' ' -f1-15) <(rows first.log second.log | cut -d' ' -f1-15)

# ---- 6. checkpoints -----------------------------------------------------------------------
head -c 500 ck.fek > ck-head.fek
head -c 3000 ck.fek > ck-short.fek
t ckpt-truncated-header 65 "$M --restart ck-head.fek -n 10"
says ckpt-truncated-header 'ck-head\.fek'
t ckpt-truncated-rows 65 "$M --restart ck-short.fek -n 10"
says ckpt-truncated-rows 'ck-short\.fek'
t ckpt-other-units 64 "$M --restart ck.fek --units real --lj 0.2381:3.405 -n 10"
says ckpt-other-units 'ck\.fek.*lj'
t ckpt-other-R 64 "$M --restart ck.fek -R 2 -n 10"
t ckpt-missing 66 "$M --restart no-such-ck.fek -n 10"
t ckpt-is-frames 65 "$M --restart rt.fek -n 10"
says ckpt-is-frames 'rt\.fek'

# ---- 7. malformed input: exit 65, one line naming the file and where ---------------------
# bad NAME FILE REGEX OPTIONS...: md-gpu on FILE exits 65 with one line
# matching "FILE: ... REGEX"
bad() {
	local name=$1 file=$2 re=$3
	shift 3
	t "$name" 65 "$M --config $file $* -n 0" && says "$name" "^md-gpu: $file: .*$re"
}
G2="--units gmx --lj 0:0:1:1 --lj 1:1:1:1"
awk 'NR == 5 { $0 = substr($0, 1, 15) } { print }' hp-tric.gro > bad-short.gro
bad bad-gro-short-line bad-short.gro 'line 5:' $G2
awk 'NR == 6 { $0 = substr($0, 1, 30) "    abc   " substr($0, 41) } { print }' hp-tric.gro > bad-nan.gro
bad bad-gro-not-a-number bad-nan.gro 'line 6: y' $G2
awk 'NR == 3 { $0 = substr($0, 1, 40) } { print }' hp-tric.gro > bad-noz.gro
bad bad-gro-no-z bad-noz.gro 'line 3:' $G2
awk 'NR == 259 { $0 = "6.84 6.84" } { print }' hp-tric.gro > bad-box2.gro
bad bad-gro-box-2-numbers bad-box2.gro 'line 259: box' $G2
awk 'NR == 259 { $0 = "6.84 6.84 6.84q" } { print }' hp-tric.gro > bad-boxq.gro
bad bad-gro-box-not-a-number bad-boxq.gro 'line 259: box' $G2
awk 'NR == 259 { $4 = 0.1 } { print }' hp-tric.gro > bad-boxv1y.gro
bad bad-gro-box-v1y bad-boxv1y.gro 'line 259: box' $G2
awk 'NR == 259 { $1 = -6.84 } { print }' hp-tric.gro > bad-boxneg.gro
bad bad-gro-box-negative bad-boxneg.gro 'line 259: box' $G2
head -n 100 hp-tric.gro > bad-missing.gro
bad bad-gro-missing-atoms bad-missing.gro '98 of the 256 atoms' $G2
head -n 258 hp-tric.gro > bad-nobox.gro
bad bad-gro-no-box-line bad-nobox.gro 'no box line' $G2
awk 'NR == 2 { $0 = "  25x" } { print }' hp-tric.gro > bad-count.gro
bad bad-gro-count bad-count.gro 'line 2:' $G2
# LAMMPS data (from LAMMPS when it is here, else a small one written here)
if [ -s orth.data ]; then
	cp orth.data good.data
else
	awk 'BEGIN { print "LAMMPS data file written by awk"; print ""; print "256 atoms"; print "2 atom types"; print ""
		for (d = 1; d <= 3; d++) print "0 6.84", substr("xyz", d, 1) "lo", substr("xyz", d, 1) "hi"
		print ""; print "Masses"; print ""; print "1 1"; print "2 2.5"; print ""; print "Atoms # atomic"; print ""
		for (i = 0; i < 256; i++) printf "%d %d %.6f %.6f %.6f 0 0 0\n", i + 1, 1 + (i % 3 == 0), 1.71 * (i % 4) + 0.4 * (int(i / 4) % 2), 1.71 * (int(i / 8) % 4) + 0.4 * (int(i / 32) % 2), 1.71 * int(i / 64) + 0.4 * (int(i / 4) % 2) }' > good.data
fi
a=$(grep -n '^Atoms' good.data | cut -d: -f1)
awk -v l=$((a + 2)) 'NR == l { $0 = $1 " " $2 " " $3 " " $4 } { print }' good.data > bad-cols1.data
bad bad-lmp-first-line-short bad-cols1.data "line $((a + 2)):" $LJ2
awk -v l=$((a + 5)) 'NR == l { $0 = $1 " " $2 " " $3 " " $4 } { print }' good.data > bad-cols.data
bad bad-lmp-line-short bad-cols.data "line $((a + 5)):" $LJ2
awk -v l=$((a + 6)) 'NR == l { $2 = 3 } { print }' good.data > bad-type.data
bad bad-lmp-type-range bad-type.data "line $((a + 6)): type 3" $LJ2
awk -v l=$((a + 7)) 'NR == l { $2 = 0 } { print }' good.data > bad-type0.data
bad bad-lmp-type-0 bad-type0.data "line $((a + 7)): type 0" $LJ2
awk -v l=$((a + 8)) 'NR == l { $1 = 2 } { print }' good.data > bad-dup.data
bad bad-lmp-duplicate-id bad-dup.data "lines $((a + 3)) and $((a + 8)): atom id 2" $LJ2
grep -v 'zlo zhi' good.data > bad-nozlo.data
bad bad-lmp-no-zlo bad-nozlo.data "zlo zhi" $LJ2
awk -v l=$((a + 4)) 'NR == l { $3 = "1.0x" } { print }' good.data > bad-x.data
bad bad-lmp-not-a-number bad-x.data "line $((a + 4)): x" $LJ2
awk '/^Atoms/ { exit } { print }' good.data > bad-noatoms.data
bad bad-lmp-no-atoms bad-noatoms.data "Atoms" $LJ2
# fek frames
awk '!/^#BOX/' rt.txt > bad-nobox.txt
bad bad-fek-no-box bad-nobox.txt 'section 1: no BOX' 
awk '!/^#/ { k++; if (k == 7) $4 = "nan" } { print }' rt.txt > bad-nan.txt
bad bad-fek-nan bad-nan.txt 'section 1: row 7' 
awk '!/^#/ { k++; if (k == 9) $2 = 99 } { print }' rt.txt > bad-type99.txt
bad bad-fek-type-99 bad-type99.txt 'section 1: row 9: type 99' 
awk '!/^#/ { k++; if (k == 9) $2 = 1 } { print }' rt.txt > bad-type-ntypes.txt
bad bad-fek-type-over-ntypes bad-type-ntypes.txt 'section 1: row 9: type 1, but NTYPES 1' 
awk '/^#BOX/ { $0 = "#BOX 6.84 6.84" } { print }' rt.txt > bad-box2.txt
bad bad-fek-box-2-numbers bad-box2.txt 'section 1: key BOX' 
awk '!/^#/ { k++; if (k == 200) $1 = 3 } { print }' rt.txt > bad-dupid.txt
bad bad-fek-duplicate-id bad-dupid.txt 'section 1: id 3 appears twice' 
awk '/^#FEK/ { s++ } !(s == 2 && !/^#/ && ++k == 5) { print }' b3.txt | sed '0,/^#ROWS 256/! s/^#ROWS 256$/#ROWS 255/' > bad-sections.txt
bad bad-fek-sections-differ bad-sections.txt 'section 2: 255 particles'
cat rt.txt | sed 's/^#KIND frames/#KIND samples/' > bad-kind.txt
bad bad-fek-kind bad-kind.txt 'KIND samples'
for f in no-such.gro no-such.data no-such.fek no-such; do
	t missing-$f 66 "$M --config $f $LJ2 -n 0"
	says missing-$f "$f"
done
