# tests/lib-md.sh - the checks of md-gpu's replica modes against physics,
# written once and run per device: by tests/md.sh with -d cpu and fixed
# seeds, by tests/gpu-md.sh with -d gpu, fresh seeds and (for some) more
# replicas and looser limits.  Source it after lib.sh; it sources
# lib-stat.sh.
#
# Each md_* function runs md-gpu -d DEV in $TMP and judges what it wrote.
# Its results are named P-prefixed: P is "" in md.sh and "gpu-" in
# gpu-md.sh (where a run's name differs between the two, it is an
# argument).  Known answers: the Boltzmann density of the double well, the
# exact mean first-passage time of seed 003's Test C (E_b = 2, beta = D =
# 1, -1.5 reflecting to +1.0 absorbing) and its per-milestone K and tau,
# ballistic crossing times, the exact Euler-Maruyama Ornstein-Uhlenbeck
# process, the butane-like torsion's bin averages.
. "$TOP/tests/lib-stat.sh"

MB_EXACT=5.170946
# seed 003 section 6, Test C: K_(i,i+1) and tau_i for i = 0..9
KUP="1.000000 0.849611 0.518410 0.348443 0.329130 0.391993 0.500000 0.608007 0.670870 0.651557"
TAU="0.015996 0.034900 0.037319 0.032151 0.029446 0.028847 0.028867 0.028847 0.029446 0.032151"
# Milestoning of Test C: milestones -1.5, -1.25, ..., 1 (the options of
# every run but -R, -s and -j)
MS="-p dw:2 -r -1.5:1.5 -E kT -M -1.5:1:0.25 -H 0.0001 -T"
# umbrella MD on the butane-like torsion: 13 windows, Brownian dynamics in
# degrees
TOR="-p torsion -r -180:180:p -g 13 -k 0.002 -R 20 -N 2000 -n 20000 -e 20 -D 1000 -H 0.005 -u deg"

# chi2_dw EB LO HI NB: chi-square "chi2 dof" of column 1 of a text stream
# against exp(-EB (x^2 - 1)^2) on [LO, HI] in NB bins (lib-stat.sh chi2_1d).
chi2_dw() {
	LO=$2 HI=$3 NB=$4 PERIOD=0 C=0 K=0 KT=1 \
	    WFN="function W(x) { return $1 * (x * x - 1) ^ 2 }" chi2_1d
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
# all_arrive FILE: true iff every record of FILE reached a milestone
# ($2 = 1) and is valid ($4 = 1)
all_arrive() {
	rows "$1" | awk '$2 != 1 || $4 != 1 { exit 1 }'
}
# nve_backward FILE: true iff every valid record's backward run ended at
# the other neighbour ($6 = 2 i - j) in the same time (to 0.0011), and at
# most 1% of the records are not valid
nve_backward() {
	rows "$1" | awk '$4 == 1 && ($6 != 2 * $1 - $2 || $7 - $3 > 0.0011 || $3 - $7 > 0.0011) { exit 1 }
		$4 != 1 { bad++ } END { exit bad > 0.01 * NR }'
}
# energy_drift LOG: the largest |E - E_0| / |E_0| of an energies log
energy_drift() {
	rows "$1" | awk 'NR == 1 { e0 = $5 } { d = $5 - e0; if (d < 0) d = -d; if (d > m) m = d }
		END { printf "%.3g", m / (e0 < 0 ? -e0 : e0) }'
}
# torsion_cover FILE: a WHAM PMF of the torsion (x F sd) against the exact
# bin average of W: "RMSD max bins-within-2-sd bins mean-(dev/sd)^2",
# after the best shift
torsion_cover() {
	awk 'function W(q) { q *= 3.141592653589793 / 180; return 0.6 * (1 + cos(q)) + 1.4 * (1 + cos(3 * q)) }
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
	}' "$1"
}

# md_eq P DEV SEED: the double well's Boltzmann density.  E_b = 1 (hops
# every few time units), frames 5 time units apart after 5 of
# equilibration: 4000 replicas x 5 frames of nearly independent points,
# Brownian (eqb.txt) and BAOAB (eqa.txt), chi-square against the density
# (and against a wrong barrier, which must fail), equipartition <m v^2> =
# kT for BAOAB (column 2 is v_x), the frames' keys.
md_eq() {
	local p=$1 dev=$2 seed=$3 m se n
	local eq="-p dw:1 -r -3:3 -E kT -x -1 -R 4000 -N 5000 -n 25000 -e 5000 -T -s $seed"
	t ${p}eq-brownian 0 "md-gpu -d $dev $eq -i brownian -H 0.001 > eqb.txt"
	chi_ok ${p}eq-brownian-chi2 "$(chi2_dw 1 -2 2 40 < eqb.txt)"
	chi_bad ${p}eq-brownian-wrong-barrier "$(chi2_dw 1.25 -2 2 40 < eqb.txt)"
	t ${p}eq-baoab 0 "md-gpu -d $dev $eq -i baoab -f 2 -H 0.005 > eqa.txt"
	chi_ok ${p}eq-baoab-chi2 "$(chi2_dw 1 -2 2 40 < eqa.txt)"
	read -r m se n <<EOF
$(awk '!/^#/ && NF { print $2 * $2 }' eqa.txt | mean_se 1)
EOF
	within ${p}eq-baoab-equipartition "$m" 1 "$se" 5
	ok ${p}eq-frames-keys sh -c "grep -qx '#ROWS 4000' eqb.txt && grep -qx '#STEP 30000' eqb.txt && grep -qx '#TIME 30' eqb.txt && grep -qx '#COL x f64 1' eqb.txt && grep -qx '#COL U f64 kT' eqb.txt && test \$(grep -c '^#KIND frames' eqb.txt) = 5"
}

# md_mfpt RUN P DEV R SEED K: the brute-force MFPT of Test C, R replicas
# from -1.5 (a reflecting wall, milestone 0) to the first crossing of
# +1.0 (Brownian-bridge corrected), within K standard errors of the exact
# MFPT; every replica arrives (mfpt.txt).
md_mfpt() {
	local run=$1 p=$2 dev=$3 r=$4 seed=$5 k=$6 m se n
	t $run 0 "md-gpu -d $dev -p dw:2 -r -1.5:1.5 -E kT -M -1.5,1 -j 1 -R $r -H 0.001 -T -s $seed > mfpt.txt"
	read -r m se n <<EOF
$(rows mfpt.txt | mean_se 3)
EOF
	echo "brute-force MFPT ($dev) $m +- $se (exact $MB_EXACT)"
	near ${p}mfpt-count "$n" "$r" 0
	within ${p}mfpt-exact "$m" $MB_EXACT "$se" "$k"
	ok ${p}mfpt-all-arrive all_arrive mfpt.txt
	ok ${p}mfpt-keys sh -c "grep -qx '#MILESTONES 2' mfpt.txt && grep -qx '#MILESTONE 0 -1.5' mfpt.txt && grep -qx '#COL t f64 1' mfpt.txt && grep -qx '#CROSSING bridge' mfpt.txt && grep -qx '#FHP -1' mfpt.txt"
}

# md_ms RUN TABLE P DEV R SEED TOL BIAS: Milestoning of Test C from exact
# starts on the points, R replicas a milestone (ms.txt): the largest |z|
# of K and tau against the table at most TOL (result TABLE); the negative
# control, crossings checked at the steps only (msb.txt), makes tau longer
# by O(sqrt(dt)) (about 6% here): the mean z of tau at least BIAS.
md_ms() {
	local run=$1 table=$2 p=$3 dev=$4 r=$5 seed=$6 tol=$7 bias=$8 z
	t $run 0 "md-gpu -d $dev $MS -R $r -s $seed -j 1:10 > ms.txt"
	z=$(zmax ms.txt)
	echo "Milestoning ($dev), points: largest |z| of K and tau against Test C: $z"
	le $table "$z" "$tol"
	t ${p}ms-steps-only 0 "md-gpu -d $dev $MS -R $r -s $seed -j 1:10 -B > msb.txt"
	le ${p}ms-steps-only-biased "$bias" "$(zmean_tau msb.txt)"
	ok ${p}ms-steps-only-key grep -qx '#CROSSING steps' msb.txt
}

# md_ms_voronoi P DEV R SEED TOL: Voronoi anchors halfway between the
# points give the same interfaces; restrained sampling (Eq. 2.90) puts the
# starts within ~0.01 of them: the table again, within TOL (msv.txt).
md_ms_voronoi() {
	local p=$1 dev=$2 r=$3 seed=$4 tol=$5
	awk 'BEGIN { for (i = 0; i < 12; i++) print -1.625 + 0.25 * i }' > anchors.txt
	t ${p}ms-voronoi 0 "md-gpu -d $dev -p dw:2 -r -1.5:1.5 -E kT -A anchors.txt -k 2000 -N 1000 -e 50 -c 10 -j 1:10 -R $r -H 0.0001 -T -s $seed > msv.txt"
	le ${p}ms-voronoi-table "$(zmax msv.txt)" "$tol"
	ok ${p}ms-voronoi-keys sh -c "grep -qx '#MILESTONE 3 3 4' msv.txt && grep -qx '#ANCHOR -1.125' msv.txt && grep -qx '#SPRING 2000' msv.txt"
}

# md_ms_shards P DEV R SEED SAME [WHOLE]: milestones 1-4 and 5-10 run apart
# give the rows of one run of 1-10 (WHOLE, the same options; without it,
# run here as ${P}ms-whole): result SAME.
md_ms_shards() {
	local p=$1 dev=$2 r=$3 seed=$4 same=$5 whole=${6:-sw.txt}
	t ${p}ms-shard-a 0 "md-gpu -d $dev $MS -R $r -s $seed -j 1:4 > sa.txt"
	t ${p}ms-shard-b 0 "md-gpu -d $dev $MS -R $r -s $seed -j 5:10 > sb.txt"
	[ -n "${6:-}" ] || t ${p}ms-whole 0 "md-gpu -d $dev $MS -R $r -s $seed -j 1:10 > $whole"
	rows sa.txt sb.txt > shards.rows
	rows "$whole" > whole.rows
	same_file $same whole.rows shards.rows
}

# md_nve RUN P DEV R SEED: NVE crossings on a flat potential, milestones
# 0..3, starts on the points with Maxwell-Boltzmann velocities (kT/m =
# 1): a run from i ends at i +- 1 after t = 1/|v|, so <1/t> = <|v|> =
# sqrt(2/pi), each way half the time; the backward run (-v) goes to the
# other neighbour in the same time, crossing its own milestone once.
md_nve() {
	local run=$1 p=$2 dev=$3 r=$4 seed=$5 m se n
	t $run 0 "md-gpu -d $dev -p '0*x' -r -1:4 -E kT -i verlet -M 0,1,2,3 -j 2:3 -R $r -H 0.001 -n 1000000 -T -s $seed > nve.txt"
	read -r m se n <<EOF
$(rows nve.txt | awk '$4 == 1 { print 1 / $3 }' | mean_se 1)
EOF
	within ${p}nve-speed "$m" 0.79788456080286536 "$se" 4
	ok ${p}nve-backward nve_backward nve.txt
	read -r m se n <<EOF
$(rows nve.txt | awk '$4 == 1 { print ($2 > $1) }' | mean_se 1)
EOF
	within ${p}nve-direction "$m" 0.5 "$se" 4
}

# md_ou RUN P DEV R SEED GTOL: the Euler-Maruyama Ornstein-Uhlenbeck
# process.  No potential, one window of spring k = 4 at 2, Brownian steps
# of mu = D dt / kT: x' = (1 - mu k) x + sqrt(2 D dt) xi exactly, so the
# stationary variance is (kT / k) / (1 - mu k / 2) and samples e steps
# apart have the statistical inefficiency g = (1 + phi) / (1 - phi), phi
# = (1 - mu k)^e.  R replicas x 5000 samples (ou.txt): the mean and the
# variance within 5 standard errors, the estimated inefficiency within
# GTOL g.
md_ou() {
	local run=$1 p=$2 dev=$3 r=$4 seed=$5 gtol=$6 m se n mu var g v gk
	echo '2 4' > w1.txt
	t $run 0 "md-gpu -d $dev -p '0*x' -r -50:50 -E kcal -t 300 -w w1.txt -R $r -D 0.05 -H 0.01 -n 50000 -e 10 -T -s $seed > ou.txt"
	read -r m se n <<EOF
$(rows ou.txt | mean_se 1)
EOF
	read -r mu var g <<EOF
$(awk 'BEGIN { kt = 0.0019872042586408316 * 300; mu = 0.05 * 0.01 / kt; phi = (1 - mu * 4) ^ 10
	printf "%.17g %.17g %.17g\n", mu, kt / 4 / (1 - mu * 4 / 2), (1 + phi) / (1 - phi) }')
EOF
	near ${p}ou-count "$n" $((r * 5000)) 0
	within ${p}ou-mean "$m" 2 "$(awk -v s=$se -v g=$g 'BEGIN { print s * sqrt(g) }')" 5
	v=$(rows ou.txt | awk '{ d = $1 - 2; s += d * d; n++ } END { printf "%.17g", s / n }')
	within ${p}ou-variance "$v" "$var" "$(awk -v v=$var -v g=$g -v n=$n 'BEGIN { print v * sqrt(2 * g / n) }')" 5
	gk=$(awk '/^#INEFFICIENCY/ { print $2 }' ou.txt)
	echo "OU inefficiency ($dev): estimated $gk, exact $g"
	near ${p}ou-inefficiency "$gk" "$g" "$(awk -v g=$g -v t=$gtol 'BEGIN { print t * g }')"
	ok ${p}ou-keys sh -c "grep -qx '#WINDOW 2 4' ou.txt && grep -qx '#ENERGY kcal/mol' ou.txt && grep -qx '#REPLICAS $r' ou.txt && grep -q '^#CORRTIME ' ou.txt && grep -qx '#PMF 0\*x' ou.txt"
}

# md_torsion NAME DEV SEED OUT: umbrella MD on the torsion ($TOR) through
# histogram, bias-build, wham-gpu (50 bootstrap samples) and pmf, into OUT.
md_torsion() {
	t_pipe $1 0 "md-gpu -d $2 $TOR -s $3 | histogram -b 36 | bias-build | wham-gpu -B 50 | pmf > $4"
}

# md_force_paths P DEV R SEED: the built-ins against libmatheval's
# derivative of their text: Brownian runs of R replicas with the same
# random numbers, the analytic force and the symbolic derivative of the
# POTENTIAL key's formula, give the same path.
md_force_paths() {
	local p=$1 dev=$2 r=$3 seed=$4 P name f
	for P in "dw:2 -r -2:2" "torsion:0.3,0.2,1.1 -r -180:180:p -D 100" "mb:0.05 -r -1.5:1.2 -r -0.2:2 -x -0.5,1.4 -D 0.1"; do
		name=${p}force-$(echo "$P" | cut -d: -f1)
		t $name 0 "md-gpu -d $dev -p $P -E kT -R $r -n 2000 -H 0.0005 -T -s $seed > $name.a"
		f=$(awk '/^#POTENTIAL/ { sub(/^#POTENTIAL /, ""); print; exit }' $name.a)
		t $name-formula 0 "md-gpu -d $dev -p '$f' ${P#* } -E kT -R $r -n 2000 -H 0.0005 -T -s $seed > $name.b"
		rows $name.a > $name.ra; rows $name.b > $name.rb
		numcmp_files $name-same-path $name.ra $name.rb 1e-6 1e-9
	done
}

# md_dcd P DCD FRAMES SHAPE: the DCD file read by mdtraj (for
# /usr/bin/python3): its shape and lengths SHAPE as Python prints them, its
# coordinates those of the text frames FRAMES (two dimensions, z = 0).
md_dcd() {
	local p=$1 dcd=$2 frames=$3 shape=$4
	if ! /usr/bin/python3 -c 'import mdtraj' 2> /dev/null; then
		skip ${p}dcd-mdtraj "no mdtraj for /usr/bin/python3 (python3-mdtraj)"
		return
	fi
	t ${p}dcd-mdtraj 0 "/usr/bin/python3 -c '
from mdtraj.formats import DCDTrajectoryFile
with DCDTrajectoryFile(\"$dcd\") as f:
    xyz, lengths, angles = f.read()
for frame in xyz:
    for a in frame:
        print(\"%.9g %.9g %.9g\" % tuple(a))
print(xyz.shape, lengths)
' > ${p}dcd.txt"
	ok ${p}dcd-shape grep -qxF "$shape" ${p}dcd.txt
	rows "$frames" | awk '{ printf "%.9g %.9g 0\n", $1, $2 }' > ${p}dcd-want.txt
	grep -v '^(' ${p}dcd.txt > ${p}dcd-got.txt
	numcmp_files ${p}dcd-coordinates ${p}dcd-got.txt ${p}dcd-want.txt 1e-7 1e-7
}
