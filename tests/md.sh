# tests/md.sh - md-gpu's replica modes on the CPU (tools/md-gpu/replicas.c,
# lib/md/replica.c, lib/md/replica_eval.h) against answers from physics:
# the Boltzmann density of the double well (chi-square), the exact mean
# first-passage time of seed 003's Test C (E_b = 2, beta = D = 1, -1.5
# reflecting to +1.0 absorbing: 5.170946) by brute force, its
# per-milestone K and tau table by Milestoning, ballistic NVE crossings,
# the exact stationary variance and statistical inefficiency of the
# Euler-Maruyama Ornstein-Uhlenbeck process, umbrella MD on the
# butane-like torsion through WHAM, energy conservation, the DCD file read
# by mdtraj; reproducibility, shards, and exit codes.
#
# Statistical checks use fixed seeds and tolerances of 4 to 5 standard
# errors; the negative controls (a wrong barrier, crossings checked at the
# steps only) show that the checks can fail.
. "$(dirname "$0")/lib.sh"

MB_EXACT=5.170946
# seed 003 section 6, Test C: K_(i,i+1) and tau_i for i = 0..9
KUP="1.000000 0.849611 0.518410 0.348443 0.329130 0.391993 0.500000 0.608007 0.670870 0.651557"
TAU="0.015996 0.034900 0.037319 0.032151 0.029446 0.028847 0.028867 0.028847 0.029446 0.032151"

# chi2_dw EB LO HI NB: chi-square "chi2 dof" of column 1 of a text stream
# against exp(-EB (x^2 - 1)^2) on [LO, HI] in NB bins (Simpson, 20 panels
# per bin; expected counts below 5 pooled).
chi2_dw() {
	awk -v eb="$1" -v lo="$2" -v hi="$3" -v nb="$4" '
	function U(x) { return eb * (x * x - 1) ^ 2 }
	!/^#/ && NF { b = int(($1 - lo) / (hi - lo) * nb); if (b >= 0 && b < nb) { o[b]++; n++ } }
	END {
		h = (hi - lo) / nb; m = 20
		for (b = 0; b < nb; b++) {
			a = lo + b * h; s = exp(-U(a)) + exp(-U(a + h))
			for (j = 1; j < m; j++) s += (j % 2 ? 4 : 2) * exp(-U(a + j * h / m))
			I[b] = s; tot += s
		}
		for (b = 0; b < nb; b++) {
			e = n * I[b] / tot
			if (e < 5) { pe += e; po += o[b]; continue }
			chi += (o[b] - e) ^ 2 / e; cat++
		}
		if (pe > 0) { chi += (po - pe) ^ 2 / pe; cat++ }
		printf "%.6g %d\n", chi, cat - 1
	}'
}
chi_ok() {	# chi_ok NAME "chi2 dof": chi2 < dof + 5 sqrt(2 dof)
	set -- "$1" $2
	le "$1" "$2" "$(awk -v d="$3" 'BEGIN { print d + 5 * sqrt(2 * d) }')"
}
chi_bad() {	# chi_bad NAME "chi2 dof": chi2 > dof + 10 sqrt(2 dof)
	set -- "$1" $2
	le "$1" "$(awk -v d="$3" 'BEGIN { print d + 10 * sqrt(2 * d) }')" "$2"
}
# mean_se COL: "mean standard-error n" of column COL of the data rows
mean_se() {
	awk -v c="$1" '!/^#/ && NF { s += $c; s2 += $c * $c; n++ }
	END { m = s / n; printf "%.17g %.17g %d\n", m, sqrt((s2 / n - m * m) / (n - 1)), n }'
}
within() {	# within NAME GOT WANT SE K: |GOT - WANT| <= K SE
	near "$1" "$2" "$3" "$(awk -v s="$4" -v k="$5" 'BEGIN { printf "%.17g", s * k }')"
}
# ktau FILE: per start milestone of a trajectories text stream: "i n
# K_up se_K tau se_tau" (valid runs that reached a milestone)
ktau() {
	awk '!/^#/ && NF && $4 == 1 && $2 >= 0 { i = $1; n[i]++; up[i] += ($2 > $1); t[i] += $3; t2[i] += $3 * $3 }
	END { for (i = 0; i in n; i++) { k = up[i] / n[i]; m = t[i] / n[i]
		printf "%d %d %.10g %.10g %.10g %.10g\n", i, n[i], k, sqrt(k * (1 - k) / n[i]) + 1e-12, m, sqrt((t2[i] / n[i] - m * m) / (n[i] - 1)) } }' "$1"
}
# zmax FILE: the largest |z| of K_up and tau against the Test C table
zmax() {
	ktau "$1" | awk -v ku="$KUP" -v ta="$TAU" 'BEGIN { split(ku, K, " "); split(ta, T, " ") }
	{ z = ($3 - K[$1 + 1]) / $4; if (z < 0) z = -z; if (z > m) m = z
	  z = ($5 - T[$1 + 1]) / $6; if (z < 0) z = -z; if (z > m) m = z }
	END { printf "%.3g\n", m }'
}
# zmean_tau FILE: the mean z of tau against the table (the sign of a bias)
zmean_tau() {
	ktau "$1" | awk -v ta="$TAU" 'BEGIN { split(ta, T, " ") }
	{ s += ($5 - T[$1 + 1]) / $6; n++ } END { printf "%.3g\n", s / n }'
}
rows() { grep -hv "^#" "$@"; }

# ---- equilibrium: the double well's Boltzmann density -----------------------
# E_b = 1 (hops every few time units), frames 5 time units apart after 5
# of equilibration: 4000 replicas x 5 frames of nearly independent points.
EQ="-p dw:1 -r -3:3 -E kT -x -1 -R 4000 -N 5000 -n 25000 -e 5000 -T -s 7"
t eq-brownian 0 "md-gpu $EQ -i brownian -H 0.001 > eqb.txt"
chi_ok eq-brownian-chi2 "$(chi2_dw 1 -2 2 40 < eqb.txt)"
chi_bad eq-brownian-wrong-barrier "$(chi2_dw 1.25 -2 2 40 < eqb.txt)"
t eq-baoab 0 "md-gpu $EQ -i baoab -f 2 -H 0.005 > eqa.txt"
chi_ok eq-baoab-chi2 "$(chi2_dw 1 -2 2 40 < eqa.txt)"
# equipartition: <m v^2> = kT for BAOAB (column 2 is v_x)
read -r m se n <<EOF
$(awk '!/^#/ && NF { print $2 * $2 }' eqa.txt | mean_se 1)
EOF
within eq-baoab-equipartition "$m" 1 "$se" 5
ok eq-frames-keys sh -c "grep -qx '#ROWS 4000' eqb.txt && grep -qx '#STEP 30000' eqb.txt && grep -qx '#TIME 30' eqb.txt && grep -qx '#COL x f64 1' eqb.txt && grep -qx '#COL U f64 kT' eqb.txt && test \$(grep -c '^#KIND frames' eqb.txt) = 5"

# ---- brute-force MFPT of seed 003's Test C -----------------------------------
# From -1.5 (a reflecting wall, milestone 0) to +1.0: the time of the
# first crossing of +1.0, Brownian-bridge corrected.
t mfpt-run 0 "md-gpu -p dw:2 -r -1.5:1.5 -E kT -M -1.5,1 -j 1 -R 4000 -H 0.001 -T -s 3 > mfpt.txt"
read -r m se n <<EOF
$(rows mfpt.txt | mean_se 3)
EOF
echo "brute-force MFPT $m +- $se (exact $MB_EXACT)"
near mfpt-count "$n" 4000 0
within mfpt-exact "$m" $MB_EXACT "$se" 3
ok mfpt-all-arrive sh -c "rows mfpt.txt | awk '\$2 != 1 || \$4 != 1 { exit 1 }'"
ok mfpt-keys sh -c "grep -qx '#MILESTONES 2' mfpt.txt && grep -qx '#MILESTONE 0 -1.5' mfpt.txt && grep -qx '#COL t f64 1' mfpt.txt && grep -qx '#CROSSING bridge' mfpt.txt && grep -qx '#FHP -1' mfpt.txt"

# ---- Milestoning: K and tau of Test C from exact starts ---------------------
M="-p dw:2 -r -1.5:1.5 -E kT -M -1.5:1:0.25 -R 5000 -H 0.0001 -T -s 5"
t ms-points 0 "md-gpu $M -j 1:10 > ms.txt"
z=$(zmax ms.txt)
echo "Milestoning, points: largest |z| of K and tau against Test C: $z"
le ms-points-table "$z" 4
# the negative control: crossings checked at the steps only make tau
# longer by O(sqrt(dt)) (about 6% here)
t ms-steps-only 0 "md-gpu $M -j 1:10 -B > msb.txt"
le ms-steps-only-biased 4 "$(zmean_tau msb.txt)"
ok ms-steps-only-key grep -qx '#CROSSING steps' msb.txt
# Voronoi anchors halfway between the points: the same interfaces;
# restrained sampling (Eq. 2.90) puts the starts within ~0.01 of them
awk 'BEGIN { for (i = 0; i < 12; i++) print -1.625 + 0.25 * i }' > anchors.txt
t ms-voronoi 0 "md-gpu -p dw:2 -r -1.5:1.5 -E kT -A anchors.txt -k 2000 -N 1000 -e 50 -c 10 -j 1:10 -R 400 -H 0.0001 -T -s 9 > msv.txt"
le ms-voronoi-table "$(zmax msv.txt)" 4
ok ms-voronoi-keys sh -c "grep -qx '#MILESTONE 3 3 4' msv.txt && grep -qx '#ANCHOR -1.125' msv.txt && grep -qx '#SPRING 2000' msv.txt"
# shards: milestones 1-4 and 5-10 run apart give the rows of one run
t ms-shard-a 0 "md-gpu $M -j 1:4 > sa.txt"
t ms-shard-b 0 "md-gpu $M -j 5:10 > sb.txt"
rows sa.txt sb.txt > shards.rows
rows ms.txt > whole.rows
same_file ms-shards-union whole.rows shards.rows

# ---- NVE crossings: ballistic times and the backward run --------------------
# Flat potential, milestones 0..3, starts on the points with Maxwell-
# Boltzmann velocities (kT/m = 1): a run from i ends at i +- 1 after
# t = 1/|v|, so <1/t> = <|v|> = sqrt(2/pi); the backward run (-v) goes to
# the other neighbour in the same time, crossing its own milestone once.
t nve-run 0 "md-gpu -p '0*x' -r -1:4 -E kT -i verlet -M 0,1,2,3 -j 2:3 -R 2000 -H 0.001 -n 1000000 -T -s 4 > nve.txt"
read -r m se n <<EOF
$(rows nve.txt | awk '$4 == 1 { print 1 / $3 }' | mean_se 1)
EOF
within nve-speed "$m" 0.79788456080286536 "$se" 4
ok nve-backward sh -c "rows nve.txt | awk '\$4 == 1 && (\$6 != 2 * \$1 - \$2 || \$7 - \$3 > 0.0011 || \$3 - \$7 > 0.0011) { exit 1 } \$4 != 1 { bad++ } END { exit bad > 0.01 * NR }'"
read -r m se n <<EOF
$(rows nve.txt | awk '$4 == 1 { print ($2 > $1) }' | mean_se 1)
EOF
within nve-direction "$m" 0.5 "$se" 4

# ---- umbrella: the Euler-Maruyama Ornstein-Uhlenbeck process ----------------
# No potential, one window of spring k, Brownian steps of mu = D dt / kT:
# x' = (1 - mu k) x + sqrt(2 D dt) xi exactly, so the stationary variance
# is (kT / k) / (1 - mu k / 2) and samples e steps apart have the
# statistical inefficiency g = (1 + phi) / (1 - phi), phi = (1 - mu k)^e.
echo '2 4' > w1.txt
t ou-run 0 "md-gpu -p '0*x' -r -50:50 -E kcal -t 300 -w w1.txt -R 50 -D 0.05 -H 0.01 -n 50000 -e 10 -T -s 6 > ou.txt"
read -r m se n <<EOF
$(rows ou.txt | mean_se 1)
EOF
read -r mu var g <<EOF
$(awk 'BEGIN { kt = 0.0019872042586408316 * 300; mu = 0.05 * 0.01 / kt; phi = (1 - mu * 4) ^ 10
	printf "%.17g %.17g %.17g\n", mu, kt / 4 / (1 - mu * 4 / 2), (1 + phi) / (1 - phi) }')
EOF
near ou-count "$n" 250000 0
within ou-mean "$m" 2 "$(awk -v s=$se -v g=$g 'BEGIN { print s * sqrt(g) }')" 5
v=$(rows ou.txt | awk '{ d = $1 - 2; s += d * d; n++ } END { printf "%.17g", s / n }')
within ou-variance "$v" "$var" "$(awk -v v=$var -v g=$g 'BEGIN { print v * sqrt(2 * g / 250000) }')" 5
gk=$(awk '/^#INEFFICIENCY/ { print $2 }' ou.txt)
echo "OU inefficiency: estimated $gk, exact $g"
near ou-inefficiency "$gk" "$g" "$(awk -v g=$g 'BEGIN { print 0.15 * g }')"
ok ou-keys sh -c "grep -qx '#WINDOW 2 4' ou.txt && grep -qx '#ENERGY kcal/mol' ou.txt && grep -qx '#REPLICAS 50' ou.txt && grep -q '^#CORRTIME ' ou.txt && grep -qx '#PMF 0\*x' ou.txt"

# ---- umbrella MD on the butane-like torsion, through WHAM --------------------
# 13 windows, 20 replicas each, Brownian dynamics in degrees; the WHAM PMF
# against the exact bin average of W, and its bootstrap errors (over 20
# seeds the mean of (deviation / sd)^2 was 0.94 and the largest deviation
# 0.04 to 0.1 kcal/mol).
TOR="-p torsion -r -180:180:p -g 13 -k 0.002 -R 20 -N 2000 -n 20000 -e 20 -D 1000 -H 0.005 -u deg"
t_pipe torsion-wham 0 "md-gpu $TOR -s 21 | histogram -b 36 | bias-build | wham-gpu -B 50 | pmf > tor.txt"
# cover: RMSD, max deviation after the best shift, bins within 2 sd, and
# the mean (deviation / sd)^2 against the exact bin average of W
read -r rms mx in2 nb z2 <<EOF
$(awk 'function W(q) { q *= 3.141592653589793 / 180; return 0.6 * (1 + cos(q)) + 1.4 * (1 + cos(3 * q)) }
	BEGIN { n = 0; kt = 0.0019872042586408316 * 300 }
	!/^#/ && NF { x[n] = $1; F[n] = $2; sd[n] = $3; n++ }
	END {
		h = 360 / n
		for (b = 0; b < n; b++) {
			a = x[b] - h / 2; s = exp(-W(a) / kt) + exp(-W(a + h) / kt)
			for (j = 1; j < 40; j++) s += (j % 2 ? 4 : 2) * exp(-W(a + j * h / 40) / kt)
			R[b] = -kt * log(s / 120); sh += F[b] - R[b]
		}
		sh /= n
		for (b = 0; b < n; b++) {
			d = F[b] - R[b] - sh; r2 += d * d; if (d < 0) d = -d; if (d > mx) mx = d
			if (d <= 2 * sd[b]) in2++; if (sd[b] > 0) { z2 += d * d / sd[b] ^ 2; nz++ }
		}
		printf "%.4g %.4g %d %d %.3g\n", sqrt(r2 / n), mx, in2, n, z2 / nz
	}' tor.txt)
EOF
echo "torsion WHAM: RMSD $rms, max $mx kcal/mol; $in2 of $nb bins within 2 sd; mean (dev/sd)^2 $z2"
le torsion-rmsd "$rms" 0.05
le torsion-max "$mx" 0.1
le torsion-cover "$(awk -v n=$nb 'BEGIN { print int(0.85 * n) }')" "$in2"
le torsion-sd-scale "$z2" 2.5
t torsion-rmsd-tool 0 "rmsd -p '0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))' tor.txt > tor.rmsd"
le torsion-rmsd-formula "$(awk '$1 == "RMSD" { print $2 }' tor.rmsd)" 0.1

# ---- forces: the built-ins against libmatheval's derivative of their text ---
# Brownian runs with the same random numbers: the analytic force and the
# symbolic derivative of the POTENTIAL key's formula give the same path.
for P in "dw:2 -r -2:2" "torsion:0.3,0.2,1.1 -r -180:180:p -D 100" "mb:0.05 -r -1.5:1.2 -r -0.2:2 -x -0.5,1.4 -D 0.1"; do
	name=force-$(echo "$P" | cut -d: -f1)
	t $name 0 "md-gpu -p $P -E kT -R 50 -n 2000 -H 0.0005 -T -s 8 > $name.a"
	f=$(awk '/^#POTENTIAL/ { sub(/^#POTENTIAL /, ""); print; exit }' $name.a)
	t $name-formula 0 "md-gpu -p '$f' ${P#* } -E kT -R 50 -n 2000 -H 0.0005 -T -s 8 > $name.b"
	rows $name.a > $name.ra; rows $name.b > $name.rb
	numcmp_files $name-same-path $name.ra $name.rb 1e-6 1e-9
done
# Mueller-Brown at seed 003's minimum A: U = -146.6995 (Test F)
t mb-minimum 0 "md-gpu -p mb -r -1.5:1.2 -r -0.2:2 -x -0.558224,1.441726 -E kT -i verlet -V 0 -H 1e-6 -n 1 -T > mbmin.txt"
near mb-minimum-energy "$(rows mbmin.txt | awk '{ print $5 }')" -146.6995 0.0001

# ---- NVE energy conservation (formula forces, asinh and acoth) ---------------
t nve-energy 0 "md-gpu -p 'asinh(x)^2+0.1*acoth(x+3)' -r -5:5 -x 1 -V 0 -E kT -i verlet -H 0.001 -n 100000 -e 5000 -l nve.log > /dev/null"
ok nve-energy-log sh -c "grep -qx '#KIND energies' nve.log && test \$(grep -vc '^#' nve.log) = 20"
le nve-energy-drift "$(rows nve.log | awk 'NR == 1 { e0 = $5 } { d = $5 - e0; if (d < 0) d = -d; if (d > m) m = d } END { printf "%.3g", m / e0 }')" 1e-5

# ---- the DCD file, read by mdtraj --------------------------------------------
t dcd-run 0 "md-gpu -p mb:0.1 -r -1.5:1.2 -r -0.2:2 -x -0.55,1.44 -E kT -i baoab -H 0.001 -R 7 -n 300 -e 100 -o traj.dcd -T -s 3 > dcdframes.txt"
if /usr/bin/python3 -c 'import mdtraj' 2> /dev/null; then
	t dcd-mdtraj 0 "/usr/bin/python3 -c '
from mdtraj.formats import DCDTrajectoryFile
with DCDTrajectoryFile(\"traj.dcd\") as f:
    xyz, lengths, angles = f.read()
for frame in xyz:
    for a in frame:
        print(\"%.9g %.9g %.9g\" % tuple(a))
print(xyz.shape, lengths)
' > dcd.txt"
	ok dcd-shape grep -qx '(3, 7, 3) None' dcd.txt
	rows dcdframes.txt | awk '{ printf "%.9g %.9g 0\n", $1, $2 }' > want.txt
	grep -v '^(' dcd.txt > got.txt
	numcmp_files dcd-coordinates got.txt want.txt 1e-7 1e-7
else
	skip dcd-mdtraj "no mdtraj for /usr/bin/python3 (python3-mdtraj)"
fi
t_pipe dcd-not-a-file 74 "md-gpu -p dw -r -2:2 -o /proc/self/fd/1 -n 10 | cat"

# ---- reproducibility ---------------------------------------------------------
R="-p dw:2 -r -2:2 -E kT -R 300 -n 500 -e 250 -i baoab"
t repro-a 0 "md-gpu $R -s 11 > ra.fek"
t repro-b 0 "FEK_THREADS=1 md-gpu $R -s 11 > rb.fek"
t repro-c 0 "md-gpu $R -s 12 > rc.fek"
same_file repro-same-seed-threads ra.fek rb.fek
ok repro-other-seed sh -c '! cmp -s ra.fek rc.fek'

# ---- devices ------------------------------------------------------------------
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then
	skip device-gpu-absent "a GPU is present (tests/gpu-md.sh covers -d gpu)"
else
	t device-gpu-absent 69 'md-gpu -d gpu -p dw -r -2:2 -n 10'
	t device-env-gpu-absent 69 'FEK_DEVICE=gpu md-gpu -p dw -r -2:2 -n 10'
fi
t device-cpu 0 'md-gpu -d cpu -p dw -r -2:2 -n 10 -s 2 -T > dc.txt'
t device-auto-env 0 'FEK_DEVICE=cpu md-gpu -p dw -r -2:2 -n 10 -s 2 -T > da.txt'
grep -v '^#PROV' dc.txt > dc.np; grep -v '^#PROV' da.txt > da.np
same_file device-cpu-same da.np dc.np

# ---- bad input -----------------------------------------------------------------
t_usage usage-no-potential 'md-gpu -r -2:2'
t_usage usage-no-axis 'md-gpu -p dw'
t_usage usage-bad-formula "md-gpu -p 'x^' -r -2:2"
t_usage usage-unknown-variable "md-gpu -p 'x*q' -r -2:2"
t_usage usage-mb-1d 'md-gpu -p mb -r -2:2'
t_usage usage-dw-params 'md-gpu -p dw:1,2 -r -2:2'
t_usage usage-torsion-params 'md-gpu -p torsion:a -r -180:180:p'
t_usage usage-integrator 'md-gpu -p dw -r -2:2 -i leapfrog'
t_usage usage-dt 'md-gpu -p dw -r -2:2 -H 0'
t_usage usage-range 'md-gpu -p dw -r 2:-2'
t_usage usage-x-count 'md-gpu -p dw -r -2:2 -r -2:2 -x 1'
t_usage usage-grid-spring 'md-gpu -p dw -r -2:2 -g 3'
t_usage usage-windows-milestones 'md-gpu -p dw -r -2:2 -g 3 -k 1 -M 0,1'
t_usage usage-umbrella-kT 'md-gpu -p dw -r -2:2 -g 3 -k 1 -E kT'
t_usage usage-milestones-order 'md-gpu -p dw -r -2:2 -M 1,0'
t_usage usage-milestone-outside 'md-gpu -p dw -r -2:2 -M 0,3'
t_usage usage-one-milestone 'md-gpu -p dw -r -2:2 -M 0'
t_usage usage-voronoi-spring 'md-gpu -p dw -r -2:2 -A anchors.txt'
t_usage usage-j-range 'md-gpu -p dw -r -2:2 -M 0,1 -j 3'
t_usage usage-dcd-umbrella 'md-gpu -p dw -r -2:2 -g 3 -k 1 -o x.dcd'
t_usage usage-bridge-run 'md-gpu -p dw -r -2:2 -B'
t_usage usage-pairs-alone 'md-gpu -p dw -r -2:2 -I pairs.txt'
t_usage usage-every 'md-gpu -p dw -r -2:2 -g 3 -k 1 -n 10 -e 20'
t anchors-missing 66 'md-gpu -p dw -r -2:2 -A nosuchfile -k 1'
printf -- '-1\nzero\n' > badanchors.txt
t anchors-bad 65 'md-gpu -p dw -r -2:2 -A badanchors.txt -k 1'
ok anchors-bad-msg grep -q 'badanchors.txt: line 2: field 1' anchors-bad.err
printf '0 1\n1 99\n' > badpairs.txt
t pairs-bad 65 'md-gpu -p dw -r -2:2 -A anchors.txt -I badpairs.txt -k 1'
t windows-missing 66 'md-gpu -p dw -r -2:2 -w nosuchfile'
t diverges 1 "md-gpu -p 'log(x+1)' -r -2:2 -x 0 -E kT -H 0.01 -n 1000 -R 20 -s 1"
ok diverges-msg grep -q 'no longer finite' diverges.err
t start-not-finite 1 "md-gpu -p 'sqrt(x)' -r -1:1 -x -0.5 -E kT -n 10"
ok start-not-finite-msg grep -q 'not finite at the start point' start-not-finite.err

# ---- the pipelines (in scratch copies, smaller) --------------------------------
mkdir -p pl1 pl2
cp "$TOP/pipelines/milestoning-1d/Makefile" pl1/
cp "$TOP/pipelines/wham-dynamics/Makefile" pl2/
cp "$TOP/pipelines/common.mk" .	# their ../common.mk
if have gnuplot; then
	t pipeline-milestoning 0 "make -s -C pl1 TOOLS=$BIN SCRIPTS=$TOP/scripts R=10000 BRUTE=1000 BOOT=100 --no-print-directory"
	last=$(_t_lastline pipeline-milestoning.out)
	echo "pipelines/milestoning-1d: $last"
	ok pipeline-milestoning-last sh -c "echo '$last' | grep -Eq '^MFPT [0-9.]+ \+- [0-9.]+$'"
	read -r _ m _ se <<EOF2
$last
EOF2
	within pipeline-milestoning-mfpt "$m" $MB_EXACT "$se" 3
	ok pipeline-milestoning-plots test -s pl1/out/milestones.png -a -s pl1/out/ktau.png
	t pipeline-wham-dynamics 0 "make -s -C pl2 TOOLS=$BIN R=20 --no-print-directory"
	last=$(_t_lastline pipeline-wham-dynamics.out)
	echo "pipelines/wham-dynamics: $last"
	ok pipeline-wham-dynamics-last sh -c "echo '$last' | grep -Eq '^RMSD [0-9.e-]+$'"
	le pipeline-wham-dynamics-rmsd "$(echo "$last" | awk '{ print $2 }')" 0.1
else
	skip pipelines "no gnuplot (scripts/install-deps demo)"
fi
