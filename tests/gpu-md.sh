# tests/gpu-md.sh - make check-gpu: md-gpu -d gpu (kernels/md/replica.cu) against
# the answers of tests/md.sh and against the CPU reference.  Skipped unless
# FEK_TEST_GPU is set.
#
# The GPU and the CPU draw different random numbers, so they are compared
# statistically: chi-square of the double well's density, the exact MFPT,
# the Milestoning table of seed 003's Test C, two-sample tests of GPU
# against CPU, the exact Euler-Maruyama OU variance, torsion umbrella MD
# through WHAM.  Exact checks: deterministic NVE runs (formula forces by
# dual numbers) equal the CPU's; a built-in and its formula give the same
# path from the same random numbers; seeds and -j shards reproduce the
# bytes; the DCD holds the frames.  Fresh seeds each run (FEK_TEST_SEED
# fixes them); tolerances 4 to 5 standard errors.
#
# FEK_TEST_GPU_AS=cpu runs every check with -d cpu instead: a check of
# this script where there is no GPU.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-md.sh"

if [ -z "${FEK_TEST_GPU:-}" ]; then
	skip gpu-md "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
G=${FEK_TEST_GPU_AS:-gpu}
# the CPU dry run uses a tenth of the largest replica counts
K=1
[ "$G" = gpu ] || K=10
export FEK_CACHE_DIR=$TMP/cache
SEED=${FEK_TEST_SEED:-$(( $(date +%s) % 1000000 ))}
S2=$((SEED + 7919))
echo "gpu-md: device $G, seeds $SEED and $S2 (FEK_TEST_SEED=$SEED repeats them)"

# chi2_two A B LO HI NB: two-sample chi-square of column 1 of two text
# streams with equal counts, bins with a + b >= 10 (the rest pooled)
chi2_two() {
	awk -v lo="$3" -v hi="$4" -v nb="$5" 'FNR == 1 { f++ }
	!/^#/ && NF { b = int(($1 - lo) / (hi - lo) * nb); if (b < 0) b = -1; if (b >= nb) b = nb; c[f, b]++ }
	END {
		for (b = -1; b <= nb; b++) {
			a = c[1, b]; d = c[2, b]
			if (a + d >= 10) { chi += (a - d) ^ 2 / (a + d); k++ } else { pa += a; pd += d }
		}
		if (pa + pd > 0) { chi += (pa - pd) ^ 2 / (pa + pd); k++ }
		printf "%.6g %d\n", chi, k - 1
	}' "$1" "$2"
}
# ztwo A B: the largest |z| between the K_up and tau of two record files
ztwo() {
	ktau "$1" > ka.txt; ktau "$2" > kb.txt
	paste ka.txt kb.txt | awk '{ z = ($3 - $9) / sqrt($4 ^ 2 + $10 ^ 2); if (z < 0) z = -z; if (z > m) m = z
		z = ($5 - $11) / sqrt($6 ^ 2 + $12 ^ 2); if (z < 0) z = -z; if (z > m) m = z }
		END { printf "%.3g\n", m }'
}

# ---- compilation, the cache, reproducibility ---------------------------------
R="-p dw:2 -r -2:2 -E kT -R 1000 -n 400 -e 200 -i baoab"
t gpu-run 0 "md-gpu -d $G -v $R -s $SEED > g1.fek"
t gpu-cache 0 "md-gpu -d $G -v $R -s $SEED > g2.fek"
if [ "$G" = gpu ]; then
	ok gpu-run-compiles grep -q 'kernels compiled in' gpu-run.err
	ok gpu-cache-hit grep -q 'kernels read from the cache' gpu-cache.err
fi
same_file gpu-same-seed g1.fek g2.fek
t gpu-other-seed 0 "md-gpu -d $G $R -s $S2 > g3.fek"
ok gpu-other-seed-differs sh -c '! cmp -s g1.fek g3.fek'

# ---- equilibrium ----------------------------------------------------------------
EQ="-p dw:1 -r -3:3 -E kT -x -1 -R 4000 -N 5000 -n 25000 -e 5000 -T"
md_eq gpu- $G $SEED
t gpu-eq-f64 0 "FEK_MD_NORMALS=f64 md-gpu -d $G $EQ -i brownian -H 0.001 -s $SEED > eq64.txt"
chi_ok gpu-eq-f64-chi2 "$(chi2_dw 1 -2 2 40 < eq64.txt)"
t gpu-eq-cpu 0 "md-gpu -d cpu $EQ -i brownian -H 0.001 -s $S2 > eqc.txt"
chi_ok gpu-eq-vs-cpu "$(chi2_two eqb.txt eqc.txt -2 2 40)"
# two dimensions (three Philox calls cover two steps of D = 3 ... here 2)
t gpu-eq-2d 0 "md-gpu -d $G -p dw:1 -r -3:3 -r -3:3 -E kT -x -1,1 -R 4000 -N 5000 -n 25000 -e 5000 -T -s $SEED > eq2.txt"
chi_ok gpu-eq-2d-x "$(chi2_dw 1 -2 2 40 < eq2.txt)"
chi_ok gpu-eq-2d-y "$(awk '!/^#/ && NF { print $2 }' eq2.txt | chi2_dw 1 -2 2 40)"

# ---- brute-force MFPT -------------------------------------------------------------
md_mfpt gpu-mfpt gpu- $G $((20000 / K)) $SEED 4

# ---- Milestoning ---------------------------------------------------------------------
md_ms gpu-ms gpu-ms-table gpu- $G $((20000 / K)) $SEED 4.5 3
t gpu-ms-cpu 0 "md-gpu -d cpu $MS -j 1:10 -R 5000 -s $S2 > msc.txt"
le gpu-ms-vs-cpu "$(ztwo ms.txt msc.txt)" 4.5
md_ms_shards gpu- $G 500 $SEED gpu-ms-shards
md_ms_voronoi gpu- $G 2000 $SEED 4.5
# two-dimensional Voronoi cells on the Mueller-Brown surface, Langevin
# runs with the backward check: GPU against CPU, record by record counts
printf '%s\n' '-0.56 1.44' '-0.8 0.95' '-0.82 0.62' '-0.45 0.5' '-0.05 0.47' '0.2 0.3' '0.62 0.03' > mbanchors.txt
MBM="-p mb:0.1 -r -1.5:1.2 -r -0.2:2 -E kT -A mbanchors.txt -k 200 -N 2000 -e 200 -c 20 -i baoab -f 5 -H 0.001 -n 200000 -T"
t gpu-mb-voronoi 0 "md-gpu -d $G $MBM -R 100 -s $SEED > mbg.txt"
t gpu-mb-voronoi-cpu 0 "md-gpu -d cpu $MBM -R 100 -s $S2 > mbc.txt"
# per start milestone: the valid fraction and the fraction ending above
res=$(awk 'FNR == 1 { f++ } !/^#/ && NF { n[f, $1]++; v[f, $1] += $4; if ($4) { nv[f, $1]++; up[f, $1] += ($2 > $1); t[f, $1] += $3; t2[f, $1] += $3 * $3 } }
	END { for (i = 0; i < 6; i++) {
		p1 = v[1, i] / n[1, i]; p2 = v[2, i] / n[2, i]; q = (v[1, i] + v[2, i]) / (n[1, i] + n[2, i])
		if (q > 0 && q < 1) { z = (p1 - p2) / sqrt(q * (1 - q) * (1 / n[1, i] + 1 / n[2, i])); if (z < 0) z = -z; if (z > m) m = z }
		if (nv[1, i] > 1 && nv[2, i] > 1) {
			p1 = up[1, i] / nv[1, i]; p2 = up[2, i] / nv[2, i]; q = (up[1, i] + up[2, i]) / (nv[1, i] + nv[2, i])
			if (q > 0 && q < 1) { z = (p1 - p2) / sqrt(q * (1 - q) * (1 / nv[1, i] + 1 / nv[2, i])); if (z < 0) z = -z; if (z > m) m = z }
			a = t[1, i] / nv[1, i]; b = t[2, i] / nv[2, i]
			sa = (t2[1, i] / nv[1, i] - a * a) / nv[1, i]; sb = (t2[2, i] / nv[2, i] - b * b) / nv[2, i]
			z = (a - b) / sqrt(sa + sb); if (z < 0) z = -z; if (z > m) m = z
		}
	} printf "%.3g\n", m }' mbg.txt mbc.txt)
echo "GPU against CPU, Mueller-Brown Voronoi Milestoning: largest |z| $res"
le gpu-mb-voronoi-vs-cpu "$res" 4.5
# NVE: ballistic crossings and the backward run
md_nve gpu-nve gpu- $G $((20000 / K)) $SEED

# ---- umbrella ---------------------------------------------------------------------
md_ou gpu-ou gpu- $G 200 $SEED 0.1
# five independent runs (20 replicas a window): each within 0.1 kcal/mol
# of the exact bin average of W, and the bootstrap errors calibrated on
# average (the mean of (deviation / sd)^2 near 1; 0.94 over 20 CPU runs)
: > torsum.txt
for k in 0 1 2 3 4; do
	md_torsion gpu-torsion-wham-$k $G $((SEED + k)) tor$k.txt
	torsion_cover tor$k.txt >> torsum.txt
done
read -r rms mx z2 <<EOF
$(awk '{ if ($1 > r) r = $1; if ($2 > m) m = $2; z += $5 } END { printf "%.4g %.4g %.3g\n", r, m, z / NR }' torsum.txt)
EOF
echo "GPU torsion WHAM, 5 runs: largest RMSD $rms, largest deviation $mx kcal/mol, mean (dev/sd)^2 $z2"
le gpu-torsion-rmsd "$rms" 0.06
le gpu-torsion-max "$mx" 0.1
le gpu-torsion-sd-low 0.3 "$z2"
le gpu-torsion-sd-high "$z2" 2

# ---- forces -------------------------------------------------------------------------
# deterministic NVE with formula forces (dual numbers on the GPU, the
# symbolic derivative on the CPU): the same trajectory
F3='exp(-x^2)*sin(y)+log(z^2+1)+sqrt(x^2+1)+abs(y)^1.5+2^x+atan(x)+tanh(y)+erf(z)+cos(x)/(1+y^2)-asinh(x)+cosh(z/3)+0.1*acoth(x+5)+x^2+y^2+z^2'
NV="-p '$F3' -r -4:4 -r -4:4 -r -4:4 -x 0.5,-0.7,0.3 -V 0 -E kT -i verlet -H 0.001 -n 5000 -e 1000 -T"
t gpu-nve-formula 0 "md-gpu -d $G $NV -l nveg.log > nveg.txt"
t gpu-nve-formula-cpu 0 "md-gpu -d cpu $NV -l nvec.log > nvec.txt"
rows nveg.txt > a.rows; rows nvec.txt > b.rows
numcmp_files gpu-nve-formula-vs-cpu a.rows b.rows 1e-8 1e-10
le gpu-nve-formula-energy "$(energy_drift nveg.log)" 1e-5
md_force_paths gpu- $G 500 $SEED

# ---- frames, DCD, energy log, a million replicas -------------------------------
RD=$((10000 / K))
t gpu-dcd 0 "md-gpu -d $G -p mb:0.1 -r -1.5:1.2 -r -0.2:2 -x -0.55,1.44 -E kT -i baoab -R $RD -N 5000 -n 3000 -e 1000 -o g.dcd -l g.log -T -s $SEED > gframes.txt"
md_dcd gpu- g.dcd gframes.txt "(3, $RD, 3) None"
# the kinetic temperature of Langevin dynamics after equilibration: 300 K
# within 5 standard errors, 300 sqrt(2 / (2 R)) each
le gpu-log-temperature "$(rows g.log | awk '{ d = $6 - 300; if (d < 0) d = -d; if (d > m) m = d } END { print m }')" "$(awk -v r=$RD 'BEGIN { print 1500 / sqrt(r) }')"
MIL=$((1000000 / K / K))
t gpu-million 0 "md-gpu -d $G -v -p dw:2 -r -3:3 -E kT -x -1 -R $MIL -n 20000 -H 0.001 > million.fek"
grep 'replica-steps/s' gpu-million.err
# the transient at t = 2 from x = -1: the fraction of replicas right of
# the barrier, a million on the GPU against 100000 on the CPU
t gpu-million-text 0 "FEK_TEXT=1 md-gpu -d $G -p dw:2 -r -3:3 -E kT -x -1 -R $MIL -n 2000 -H 0.001 -s $SEED > million.txt"
t gpu-million-cpu 0 "FEK_TEXT=1 md-gpu -d cpu -p dw:2 -r -3:3 -E kT -x -1 -R $((MIL / 10)) -n 2000 -H 0.001 -s $S2 > million-cpu.txt"
read -r m se n <<EOF
$(rows million.txt | awk '{ print ($1 > 0) }' | mean_se 1)
EOF
read -r mc sec nc <<EOF
$(rows million-cpu.txt | awk '{ print ($1 > 0) }' | mean_se 1)
EOF
echo "right of the barrier at t = 2: $m +- $se ($G), $mc +- $sec (cpu)"
near gpu-million-rows "$n" $MIL 0
within gpu-million-transient "$m" "$mc" "$(awk -v a=$se -v b=$sec 'BEGIN { print sqrt(a * a + b * b) }')" 4
