# tests/lj-eos.sh: scripts/lj-eos, the Kolafa-Nezbeda 1994 (kn) and
# Johnson-Zollweg-Gubbins 1993 (jzg) equations of state of the full LJ
# fluid, against values computed independently of it:
#  - the EOS table of /work/shared/reference/anchors-tpi-bar.md 4.1
#    (beta mu_ex and P for both models at ten states, within 2e-3);
#  - NIST teqp 0.23.2 at T=0.851 rho=0.8 (data-inventory.md section 4:
#    a_res/kT, Z, beta mu_ex for both models, within 1e-4);
#  - U_res/N: kn and jzg agree within 0.05 at T=0.851 rho=0.8 and are near
#    teqp's (and LAMMPS's) -5.67; near the NIST SRSW saturated liquid
#    U/N = -6.1002 at T=0.70 rho=0.84341 (r_c 3 + LRC, anchors 4.2a);
#  - self-consistency checked in awk: beta mu_ex = A/(NT) + Z - 1 and
#    Z = P/(rho T); U = -T^2 d(A/(NT))/dT and P = rho T + rho^2 dA/d rho by
#    central differences of the A_res/N it prints at T +- dT, rho +- drho
#    (so the JZG closed-form pressure is checked against its free energy);
#  - the interface: columns, model order, -m, -h, direct execution, and
#    exit 64 with one "lj-eos: ..." line for bad arguments.
. "$(dirname "$0")/lib.sh"

EOS=$TOP/scripts/lj-eos
if ! [ -x "$PY" ]; then
	skip lj-eos "no $PY"
	exit 0
fi
LJ="$PY '$EOS'"

# col MODEL N FILE: column N of MODEL's line in FILE
col() {
	awk -v m="$1" -v c="$2" '$1 == m { print $c }' "$3"
}
# eos MODEL T RHO N: column N of a fresh run (empty on failure)
eos() {
	"$PY" "$EOS" -m "$1" "$2" "$3" 2>/dev/null | awk -v c="$4" '{ print $c }'
}

# ---- the published table (anchors-tpi-bar.md 4.1) -----------------------------
# T rho | JZG beta mu_ex | KN beta mu_ex | JZG P | KN P
while read -r T R JB KB JP KP; do
	n=lj-eos-$T-$R
	t "$n" 0 "$LJ $T $R > $n.txt" || continue
	near "$n-jzg-bmu" "$(col jzg 7 "$n.txt")" "$JB" 2e-3
	near "$n-kn-bmu" "$(col kn 7 "$n.txt")" "$KB" 2e-3
	near "$n-jzg-P" "$(col jzg 5 "$n.txt")" "$JP" 2e-3
	near "$n-kn-P" "$(col kn 5 "$n.txt")" "$KP" 2e-3
done <<'EOF'
0.85 0.80 -4.1353 -4.1777 0.2819 0.2629
0.851 0.80 -4.1203 -4.1627 0.2871 0.2681
0.90 0.80 -3.4329 -3.4758 0.5384 0.5180
1.00 0.80 -2.2716 -2.3069 1.0318 1.0148
1.20 0.70 -1.9075 -1.9195 0.6654 0.6650
1.20 0.80 -0.6077 -0.6254 1.9646 1.9594
1.50 0.30 -1.1175 -1.1324 0.2288 0.2249
1.50 0.50 -1.3220 -1.3390 0.4207 0.4167
2.00 0.80 2.3694 2.3404 5.3117 5.2902
0.72 0.84 -5.7070 -5.7078 0.0775 0.0845
EOF

# ---- teqp at T = 0.851, rho = 0.8 (data-inventory.md 4) --------------------------
t lj-eos-teqp 0 "$LJ 0.851 0.8 > s.txt"
ar() { awk -v m="$1" '$1 == m { printf "%.10g", $4 / $2 }' s.txt; }
near lj-eos-teqp-kn-ares "$(ar kn)" -3.55651 1e-4
near lj-eos-teqp-kn-Z "$(col kn 8 s.txt)" 0.39377 1e-4
near lj-eos-teqp-kn-bmu "$(col kn 7 s.txt)" -4.16274 1e-4
near lj-eos-teqp-jzg-ares "$(ar jzg)" -3.54205 1e-4
near lj-eos-teqp-jzg-Z "$(col jzg 8 s.txt)" 0.42176 1e-4
near lj-eos-teqp-jzg-bmu "$(col jzg 7 s.txt)" -4.12029 1e-4

# ---- U_res/N ------------------------------------------------------------------
UK=$(col kn 6 s.txt) UJ=$(col jzg 6 s.txt)
near lj-eos-U-kn-vs-jzg "$(awk -v a="$UK" -v b="$UJ" 'BEGIN { printf "%.10g", a - b }')" 0 0.05
near lj-eos-U-kn-teqp "$UK" -5.67 0.02
near lj-eos-U-jzg-teqp "$UJ" -5.67 0.02
t lj-eos-srsw-0.70 0 "$LJ 0.70 0.84341 > srsw.txt"
near lj-eos-U-kn-srsw "$(col kn 6 srsw.txt)" -6.1002 0.02
near lj-eos-U-jzg-srsw "$(col jzg 6 srsw.txt)" -6.1002 0.02

# ---- thermodynamic consistency, in awk ------------------------------------------
# identities on one line: beta mu = A/T + Z - 1, Z = P/(rho T)
ident() {
	awk -v m="$1" '$1 == m { T = $2; r = $3
		d1 = $7 - ($4 / T + $8 - 1); d2 = $8 - $5 / (r * T)
		if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
		if (d1 > 1e-8 || d2 > 1e-8) { print "bmu off by " d1 ", Z off by " d2 > "/dev/stderr"; exit 1 }
		n++ } END { exit n != 1 }' "$2"
}
# U at (T, rho) by -T^2 d(A/T)/dT from runs at T +- dT
unum() {
	local m=$1 T=$2 R=$3 dT=1e-3 ap am
	ap=$(eos "$m" "$(awk -v t="$T" -v d=$dT 'BEGIN { printf "%.10g", t + d }')" "$R" 4)
	am=$(eos "$m" "$(awk -v t="$T" -v d=$dT 'BEGIN { printf "%.10g", t - d }')" "$R" 4)
	awk -v t="$T" -v d=$dT -v ap="$ap" -v am="$am" 'BEGIN {
		if (ap == "" || am == "") exit 1
		printf "%.10g", -t * t * (ap / (t + d) - am / (t - d)) / (2 * d) }'
}
# P at (T, rho) by rho T + rho^2 dA/d rho from runs at rho +- drho
pnum() {
	local m=$1 T=$2 R=$3 dr=1e-3 ap am
	ap=$(eos "$m" "$T" "$(awk -v r="$R" -v d=$dr 'BEGIN { printf "%.10g", r + d }')" 4)
	am=$(eos "$m" "$T" "$(awk -v r="$R" -v d=$dr 'BEGIN { printf "%.10g", r - d }')" 4)
	awk -v t="$T" -v r="$R" -v d=$dr -v ap="$ap" -v am="$am" 'BEGIN {
		if (ap == "" || am == "") exit 1
		printf "%.10g", r * t + r * r * (ap - am) / (2 * d) }'
}
for s in "0.851 0.8" "0.72 0.84" "1.5 0.3" "2.0 0.8"; do
	set -- $s
	f=c-$1-$2.txt
	t "lj-eos-c-$1-$2" 0 "$LJ $1 $2 > $f" || continue
	for m in kn jzg; do
		ok "lj-eos-identities-$m-$1-$2" ident $m "$f"
		near "lj-eos-dAdT-$m-$1-$2" "$(unum $m "$1" "$2")" "$(col $m 6 "$f")" 1e-4
		near "lj-eos-dAdrho-$m-$1-$2" "$(pnum $m "$1" "$2")" "$(col $m 5 "$f")" 1e-4
	done
done

# ---- interface -------------------------------------------------------------------
ok lj-eos-executable test -x "$EOS"
ok lj-eos-two-lines awk 'NF != 8 { exit 1 } { m = m $1 " " } END { exit !(NR == 2 && m == "kn jzg ") }' s.txt
ok lj-eos-g10 awk '{ for (i = 2; i <= 8; i++) if ($i !~ /^-?[0-9.]+(e[+-][0-9]+)?$/ || length($i) > 17) exit 1 }' s.txt
t lj-eos-direct 0 "'$EOS' 0.851 0.8 > direct.txt"
same_file lj-eos-direct-same s.txt direct.txt
t lj-eos-m-kn 0 "$LJ -m kn 0.851 0.8 > kn.txt"
same_file lj-eos-m-kn-same kn.txt <(grep '^kn ' s.txt)
t lj-eos-m-jzg 0 "$LJ -m jzg 0.851 0.8 > jzg.txt"
same_file lj-eos-m-jzg-same jzg.txt <(grep '^jzg ' s.txt)
t lj-eos-m-both 0 "$LJ -m both 0.851 0.8 > both.txt"
same_file lj-eos-m-both-same s.txt both.txt
t lj-eos-help 0 "$LJ -h > help.txt"
ok lj-eos-help-usage grep -q '^usage: lj-eos \[-m kn|jzg|both\] T RHO' help.txt

# ---- bad arguments: exit 64, one "lj-eos: ..." line, empty stdout ----------------
while read -r n args; do
	t "lj-eos-bad-$n" 64 "$LJ $args" &&
	    ok "lj-eos-bad-$n-msg" grep -q '^lj-eos: ' "lj-eos-bad-$n.err"
done <<'EOF'
negative-rho 0.851 -0.8
negative-T -0.851 0.8
zero-rho 0.851 0
not-a-number 0.851 abc
half-number 0.851 0.8x
nan 0.851 nan
inf inf 0.8
unknown-model -m lj 0.851 0.8
m-no-arg -m
one-operand 0.851
three-operands 0.851 0.8 1
unknown-option -x 0.851 0.8
no-operands
packing-limit 0.5 3
EOF
