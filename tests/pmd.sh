# tests/pmd.sh - md-gpu's particle engine on the CPU (lib/pmd, the reference)
# against answers that do not come from it:
#   - forces against central differences of the energy, and the virial
#     against -3V dU/dV (tests/pmd-fd.c), for truncated, shifted,
#     force-shifted, WCA, mixed and tabulated pairs and a triclinic cell;
#   - energies and virials of the same configurations equal to Debian's
#     LAMMPS (pair_style lj/cut, pair_modify shift and tail, mixing,
#     triclinic) to 1e-8 relative, run live where lmp is installed;
#   - the tail: U_tail and P_tail against Allen and Tildesley's formulas,
#     reported once (E = K + U + U_tail, P - P_tail = (2K + W) / 3V);
#   - NVE: the drift of E/N over 10^4 steps at rho 0.8, T 0.85, rc 2.5,
#     skin 0.3, dt 0.005 below 1e-4 (issue 13's bound);
#   - the LJ liquid at T = 0.851, rho = 0.8 (full LJ: rc 4 and the tail):
#     U/N and P within their blocked errors + 0.02 of the Kolafa-Nezbeda
#     and Johnson-Zollweg-Gubbins equations of state (scripts/lj-eos), and
#     NPT at the Kolafa-Nezbeda pressure giving rho 0.800 +- 0.005;
#   - units: argon in real units is the reduced-unit run rescaled;
#   - a checkpoint continues a run bit for bit; box 1 of a batch is the
#     same run as alone; exit codes and one-line errors.
. "$(dirname "$0")/lib.sh"

M="md-gpu -d cpu"
FD="$TOP/tests/pmd-fd"
noprov() { grep -v '^#PROV' "$@"; }
# blocked COL SKIP SCALE [COL2]: the mean and Flyvbjerg-Petersen standard
# error (the largest over levels of at least 16 blocks) of column COL
# (plus COL2) times SCALE, over the rows after the first SKIP
blocked() {
	awk -v c="$1" -v k="$2" -v sc="$3" -v c2="${4:-0}" '
	!/^#/ && NF { n++; if (n > k) { m++; x[m] = ($c + (c2 ? $c2 : 0)) * sc } }
	END {
		if (m < 32) { print "none"; exit }
		for (i = 1; i <= m; i++) mean += x[i]; mean /= m
		nn = m
		while (nn >= 16) {
			v = 0; for (i = 1; i <= nn; i++) v += (x[i] - mean) ^ 2; v /= nn
			e = sqrt(v / (nn - 1)); if (e > best) best = e
			for (i = 1; i <= int(nn / 2); i++) x[i] = (x[2 * i - 1] + x[2 * i]) / 2
			nn = int(nn / 2)
		}
		printf "%.6f %.6f\n", mean, best
	}'
}
# drift LOG N: the drift of H/N over a log: least-squares slope times time
drift() {
	rows "$1" | awk -v n="$2" '{ t = $2; e = $9 / n; k++; st += t; se += e; stt += t * t; ste += t * e; if (k == 1) t1 = t; t2 = t }
	END { if (k < 3) { print 1; exit } b = (k * ste - st * se) / (k * stt - st * st); if (b < 0) b = -b; printf "%.3g\n", b * (t2 - t1) }'
}
# within NAME GOT WANT ERR EXTRA: |GOT - WANT| <= ERR + EXTRA
within() {
	near "$1" "$2" "$3" "$(awk -v e="$4" -v x="$5" 'BEGIN { printf "%.6f", e + x }')"
}

# ---- configurations -----------------------------------------------------------
t liquid 0 "$M --lattice fcc:6 --density 0.8 -t 2 -i baoab -n 300 -e 300 -s 5 --shift -T > liq.txt"
t mixture 0 "$M --lattice fcc:5 --density 0.8 -t 2 -i baoab -n 300 -e 300 -s 5 --shift -T |
	awk '/^#NTYPES/ { print \"#NTYPES 2\"; next } /^#TYPE 0/ { print; print \"#TYPE 1 B 1\"; next }
	/^#/ { print; next } { \$2 = (\$1 % 3 == 0); print }' > mix.txt"
# the liquid sheared into a triclinic cell (fractional coordinates kept)
awk '/^#BOX/ { L = $2; print "#BOX", $2, $3, $4, 1.1, -0.9, 0.6; next } /^#/ { print; next }
	{ sx = $3 / L; sy = $4 / L; sz = $5 / L; $3 = sprintf("%.17g", L * sx + 1.1 * sy - 0.9 * sz)
	  $4 = sprintf("%.17g", L * sy + 0.6 * sz); $5 = sprintf("%.17g", L * sz); print }' liq.txt > tric0.txt
t triclinic 0 "$M --config tric0.txt -n 0 -T > tric.txt"
awk 'BEGIN { for (i = 0; i <= 300; i++) { r = 0.8 + i * 0.006; u = 4 * (r ^ -12 - r ^ -6) + 0.3 * exp(-(r - 1.6) ^ 2 / 0.02)
	f = 4 * (12 * r ^ -13 - 6 * r ^ -7) + 0.3 * 2 * (r - 1.6) / 0.02 * exp(-(r - 1.6) ^ 2 / 0.02); printf "%.17g %.17g %.17g\n", r, u, f } }' > tab.txt

# ---- forces against the energy ------------------------------------------------------
if [ -x "$FD" ]; then
	for case in "liq.txt lj" "liq.txt shift" "liq.txt fshift" "liq.txt wca" "mix.txt mix" "tric.txt lj" "liq.txt table:tab.txt"; do
		set -- $case
		name=fd-${1%.txt}-${2%%:*}
		if t "$name" 0 "'$FD' $1 $2 2.5 1e-5"; then
			read -r _ ef _ ew < "$TMP/$name.out"
			le "$name-force" "$ef" 1e-6
			le "$name-virial" "$ew" 1e-6
		fi
	done
else
	skip fd "tests/pmd-fd not built (make check builds it)"
fi

# ---- the tail, once -----------------------------------------------------------------
t tail 0 "$M --config liq.txt -n 0 --tail -l tail.log --thermo 1"
ok tail-formulas sh -c "grep -v '^#' tail.log | awk '{ V = \$13; n = 864; rho = n / V; x3 = 2.5 ^ -3; x9 = x3 ^ 3; pi = 3.141592653589793
	ut = 8 / 3 * pi * rho * (x9 / 3 - x3) * n; pt = 16 / 3 * pi * rho * rho * (2 / 3 * x9 - x3)
	d1 = \$6 - ut; d2 = \$11 - pt; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
	e = \$8 - (\$7 + \$5 + \$6); if (e < 0) e = -e
	p = \$10 - \$11 - (2 * \$7 + \$12) / (3 * V); if (p < 0) p = -p
	print d1, d2, e, p; exit !(d1 < 1e-9 * -ut && d2 < 1e-9 * -pt && e < 1e-9 && p < 1e-12) }'"
t no-tail 0 "$M --config liq.txt -n 0 -l notail.log --thermo 1"
ok no-tail-zero sh -c "grep -v '^#' notail.log | awk '{ exit !(\$6 == 0 && \$11 == 0) }'"

# ---- LAMMPS ---------------------------------------------------------------------------
# tolammps FRAMES: a LAMMPS data file (atomic) of a frames text twin
tolammps() {
	awk '/^#NTYPES/ { nt = $2 } /^#BOX/ { lx = $2; ly = $3; lz = $4; xy = $5; xz = $6; yz = $7 }
	/^#ORIGIN/ { ox = $2; oy = $3; oz = $4 } /^#/ { next }
	{ n++; id[n] = $1; ty[n] = $2; x[n] = $3; y[n] = $4; z[n] = $5 }
	END { print "fek frames"; print ""; print n, "atoms"; print nt, "atom types"
		printf "%.17g %.17g xlo xhi\n%.17g %.17g ylo yhi\n%.17g %.17g zlo zhi\n", ox, ox + lx, oy, oy + ly, oz, oz + lz
		if (xy != 0 || xz != 0 || yz != 0) printf "%.17g %.17g %.17g xy xz yz\n", xy, xz, yz
		print ""; print "Masses"; print ""; for (t = 1; t <= nt; t++) print t, 1.0
		print ""; print "Atoms # atomic"; print ""
		for (i = 1; i <= n; i++) printf "%d %d %.17g %.17g %.17g\n", id[i], ty[i] + 1, x[i], y[i], z[i] }' "$1"
}
# lammps NAME FRAMES "PAIR LINES" FEKOPTS: pe and the virial pressure from
# lmp against md-gpu's U + U_tail and W / 3V + P_tail, both relative
lammps() {
	local name=$1 conf=$2 pair=$3
	shift 3
	tolammps "$conf" > "$name.data"
	{
		printf 'units lj\natom_style atomic\nread_data %s.data\n' "$name"
		printf '%s\n' "$pair"
		printf 'compute pv all pressure NULL virial\n'
		printf 'thermo_style custom pe c_pv vol\nthermo_modify norm no format float %%.17g\nrun 0\n'
	} > "$name.in"
	t "$name-lmp" 0 "lmp -in $name.in -log none -screen $name.lmp.out > /dev/null" &&
	t "$name-fek" 0 "$M --config $conf -n 0 $* -l $name.log --thermo 1" &&
	ok "$name-agree" sh -c "awk '/^ *Step|^ *PotEng/ { f = 1; next } f && NF == 3 { print \$1, \$2, \$3; exit }' $name.lmp.out > $name.lmp
		grep -v '^#' $name.log | awk '{ printf \"%.17g %.17g %.17g\\n\", \$5 + \$6, \$12 / (3 * \$13) + \$11, \$13 }' > $name.fek
		paste $name.lmp $name.fek | awk '{ d1 = (\$1 - \$4) / \$1; d2 = (\$2 - \$5) / \$2; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
		print \"U\", \$1, \$4, \"rel\", d1, \"Pvir\", \$2, \$5, \"rel\", d2; exit !(NF == 6 && d1 < 1e-8 && d2 < 1e-8) }'"
}
if command -v lmp > /dev/null 2>&1; then
	lammps lmp-cut liq.txt "pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0" --rc 2.5
	lammps lmp-tail liq.txt "pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0
pair_modify tail yes" --rc 2.5 --tail
	lammps lmp-shift liq.txt "pair_style lj/cut 3.0
pair_coeff 1 1 1.0 1.0
pair_modify shift yes" --rc 3.0 --shift
	lammps lmp-mix mix.txt "pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0
pair_coeff 2 2 0.5 0.88
pair_modify mix arithmetic shift yes" --lj 0:0:1:1 --lj 1:1:0.5:0.88 --shift
	lammps lmp-mix-tail mix.txt "pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0
pair_coeff 2 2 0.5 0.88
pair_modify mix arithmetic tail yes" --lj 0:0:1:1 --lj 1:1:0.5:0.88 --tail
	lammps lmp-tric tric.txt "pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0
pair_modify tail yes" --tail
else
	skip lammps "no lmp (Debian's lammps)"
fi

# ---- NVE: energy drift ---------------------------------------------------------------
t nve-melt 0 "$M --lattice fcc:10 --density 0.8 -t 2 -i baoab -n 600 -e 600 --force-shift -s 3 > m10.fek"
t nve-cool 0 "$M --config m10.fek -i nh -t 0.85 -n 2000 -e 2000 --force-shift -s 3 > m10c.fek"
t nve 0 "$M --config m10c.fek -n 10000 -e 0 --force-shift --rc 2.5 --skin 0.3 -l nve.log --thermo 100"
d=$(drift nve.log 4000)
echo "NVE: drift of E/N over 10^4 steps (force-shifted LJ, 4000 particles): $d"
le nve-drift "$d" 1e-4
Tn=$(rows nve.log | awk '{ s += $4; n++ } END { printf "%.3f", s / n }')
echo "NVE: mean T $Tn"
near nve-temperature "$Tn" 0.85 0.05

# ---- the LJ liquid against its equations of state -------------------------------------
read -r _ _ _ _ PKN UKN _ _ <<EOF
$("$TOP/scripts/lj-eos" -m kn 0.851 0.8)
EOF
read -r _ _ _ _ PJZG UJZG _ _ <<EOF
$("$TOP/scripts/lj-eos" -m jzg 0.851 0.8)
EOF
t eos-nvt 0 "$M --config liq.txt -i baoab -f 1 -t 0.851 --rc 4 --tail -n 30000 -e 0 -l nvt.log --thermo 50 -s 6"
read -r U Ue <<EOF
$(blocked 5 100 "$(awk 'BEGIN { printf "%.17g", 1 / 864 }')" 6 < nvt.log)
EOF
read -r P Pe <<EOF
$(blocked 10 100 1 < nvt.log)
EOF
echo "LJ T 0.851 rho 0.8: U/N $U +- $Ue (KN $UKN, JZG $UJZG), P $P +- $Pe (KN $PKN, JZG $PJZG)"
within eos-U-kn "$U" "$UKN" "$Ue" 0.02
within eos-U-jzg "$U" "$UJZG" "$Ue" 0.02
within eos-P-kn "$P" "$PKN" "$Pe" 0.02
within eos-P-jzg "$P" "$PJZG" "$Pe" 0.02
t eos-npt 0 "$M --config liq.txt -i baoab -f 1 -t 0.851 --rc 4 --skin 0.3 --tail --pressure $PKN --barostat-every 10 -n 20000 -e 0 -l npt.log --thermo 50 -s 7"
read -r R Re <<EOF
$(blocked 14 100 1 < npt.log)
EOF
echo "NPT at the KN pressure $PKN: rho $R +- $Re"
near eos-npt-density "$R" 0.8 0.005
# a negative control: 10% more pressure must give a density outside
t eos-npt-high 0 "$M --config liq.txt -i baoab -f 1 -t 0.851 --rc 4 --skin 0.3 --tail --pressure 1.0 --barostat-every 10 -n 6000 -e 0 -l npth.log --thermo 50 -s 7"
read -r R2 _ <<EOF
$(blocked 14 40 1 < npth.log)
EOF
le eos-npt-responds 0.805 "$R2"

# ---- units: argon in real units -------------------------------------------------------
# sigma 3.405 A, eps 0.2381 kcal/mol, m 39.948 g/mol: tau = sigma sqrt(m /
# eps) in fs; the same run in reduced units, rescaled, is the same run
AR="--lj 0.2381:3.405 --rc 8.5125 -m 39.948"
tau=$(awk 'BEGIN { printf "%.17g", 3.405 * sqrt(39.948 / 0.2381) * 48.88821290839617 }')
TK=$(awk 'BEGIN { printf "%.17g", 1.2 * 0.2381 / 0.0019872042586408316 }')
t real-units 0 "$M --units real --lattice fcc:4 --density $(awk 'BEGIN { printf "%.17g", 0.8 / 3.405 ^ 3 }') $AR -t $TK -H $(awk -v t="$tau" 'BEGIN { printf "%.17g", 0.005 * t }') -n 200 -e 200 -T -s 4 > ar.txt"
t lj-units 0 "$M --lattice fcc:4 --density 0.8 --rc 2.5 -t 1.2 -n 200 -e 200 -T -s 4 > lj.txt"
rescaled() {
	paste <(rows ar.txt) <(rows lj.txt) | awk -v s=3.405 '{ for (k = 3; k <= 5; k++) { d = $k / s - $(k + 8); if (d < 0) d = -d; if (d > m) m = d } }
	END { print "largest |x/sigma - x*|", m; exit !(NR == 256 && m < 1e-8) }'
}
ok real-is-rescaled rescaled

# ---- checkpoints, batches ----------------------------------------------------------------
for I in verlet baoab nh; do
	t full-$I 0 "$M --config liq.txt -i $I -t 0.9 -n 400 -e 400 --shift -s 11 -T > full-$I.txt"
	t first-$I 0 "$M --config liq.txt -i $I -t 0.9 -n 250 -e 0 --shift -s 11 --checkpoint ck-$I.fek"
	t second-$I 0 "$M --restart ck-$I.fek -i $I -t 0.9 -n 150 -e 150 --shift -T > second-$I.txt"
	ok restart-bits-$I cmp -s <(rows full-$I.txt) <(rows second-$I.txt)
done
t full-npt 0 "$M --config liq.txt -i baoab -t 1.5 --pressure 2 --barostat-every 5 -n 400 -e 400 --shift -s 12 -T > full-npt.txt"
t first-npt 0 "$M --config liq.txt -i baoab -t 1.5 --pressure 2 --barostat-every 5 -n 200 -e 0 --shift -s 12 --checkpoint ck-npt.fek"
t second-npt 0 "$M --restart ck-npt.fek -i baoab -t 1.5 --pressure 2 --barostat-every 5 -n 200 -e 200 --shift -T > second-npt.txt"
ok restart-bits-npt cmp -s <(rows full-npt.txt) <(rows second-npt.txt)
ok restart-box-npt cmp -s <(grep '^#BOX' full-npt.txt) <(grep '^#BOX' second-npt.txt)
t batch 0 "$M --lattice fcc:4 --density 0.8 -t 1 -i baoab -R 3 -n 100 -e 100 -s 13 -T > batch.txt"
t single 0 "$M --lattice fcc:4 --density 0.8 -t 1 -i baoab -n 100 -e 100 -s 13 -T > single.txt"
ok batch-box1-is-single cmp -s <(rows batch.txt | head -n 256) <(rows single.txt)
boxes_differ() { ! cmp -s <(rows batch.txt | sed -n 1,256p) <(rows batch.txt | sed -n 257,512p); }
ok batch-boxes-differ boxes_differ
ok batch-three sh -c "test \"\$(grep -c '^#REPLICA' batch.txt)\" = 3"

# ---- errors ----------------------------------------------------------------------------
t_usage err-no-system "$M -n 10 --rc 2.5 --lattice"
t_usage err-two-systems "$M --lattice fcc:3 --density 0.8 --config liq.txt"
t_usage err-density "$M --lattice fcc:3"
t_usage err-lattice "$M --lattice hcp:3 --density 0.8"
t_usage err-units "$M --units metal --lattice fcc:3 --density 0.8"
t err-real-needs-lj 64 "$M --units real --lattice fcc:3 --density 0.03"
t_usage err-baro-nve "$M --lattice fcc:3 --density 0.8 --pressure 1"
t_usage err-wca-tail "$M --lattice fcc:3 --density 0.8 --wca --tail"
t err-small-box 65 "$M --lattice fcc:2 --density 0.8 --rc 2.5"
t err-missing 66 "$M --config no-such-file.fek"
printf '#FEK 1\n#KIND frames\n#ROWS 1\n#COL x f64 1\n#COL y f64 1\n#COL z f64 1\n#END\n0 0 0\n' > nobox.txt
t err-no-box 65 "$M --config nobox.txt"
t err-bad-restart 65 "$M --restart liq.txt"
t err-table-missing 66 "$M --config liq.txt --table nothere.txt --rc 2.5"
printf '1 2\n0.5 1\n' > badtab.txt
t err-table-bad 65 "$M --config liq.txt --table badtab.txt --rc 2.5"
awk 'NR % 50 == 0' tab.txt > coarsetab.txt
t err-table-low 1 "$M --config liq.txt --table coarsetab.txt --rc 2.5 -t 20 -i baoab -n 2000 -H 0.02"
