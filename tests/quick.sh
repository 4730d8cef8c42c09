# tests/quick.sh - make check-quick: one representative check of each
# tool against a known answer, in well under a minute on two cores, for
# the edit-test loop (make check runs everything, this file included):
#  - sample-gen | histogram | bias-build | wham-gpu | pmf, then rmsd: the
#    thesis's 1-D torsion PMF within 0.1 kcal/mol (Potgieter 2014,
#    section 5.1; tests/pipeline.sh has the full set);
#  - md-gpu -M | milestone-kmat | qstat-mfpt: Milestoning of seed 003's
#    Test C, the MFPT against the exact 5.170946 within 4 standard errors
#    of qstat-mfpt's bootstrap (tests/md.sh, tests/milestone.sh);
#  - md-gpu --lattice | tpi-gpu | bar-solve: the LJ fluid at T* = 2.0,
#    rho* = 0.7 (256 particles, rc 3 sigma with the tail), beta mu_ex by
#    BAR within 3 sd + 0.1 of the equations of state (tests/tpi.sh);
#  - bd-step | bd-rate: uncharged spheres, k = 4 pi D R (Smoluchowski)
#    inside bd-rate's 95 % interval widened by 2 (tests/bd.sh).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-md.sh"
. "$TOP/tests/lib-bd.sh"

# ---- WHAM ----------------------------------------------------------------------
P='0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))'
awk 'BEGIN { for (c = -180; c <= 180; c += 60) print c, 0.001 }' > win1.txt
t_pipe wham-chain 0 "sample-gen -p '$P' -r -180:180:p -w win1.txt -n 5000 -t 300 -s 1 | histogram -b 20 | bias-build | wham-gpu | pmf > pmf1.txt"
t wham-rmsd 0 "rmsd -c 6kT -p '$P' pmf1.txt > r1.out"
le wham-rmsd-0.1 "$(awk '$1 == "RMSD" { print $2 }' r1.out)" 0.1

# ---- Milestoning ---------------------------------------------------------------
t_pipe ms-chain 0 "md-gpu -d cpu $MS -R 2000 -s 3 -j 1:10 | milestone-kmat | qstat-mfpt -q -B 100 -s 3 -i 0 -f 10 -u kT > mfpt.txt"
read -r m se <<EOF2
$(awk '/^#KIND mfpt/ { k = 1; next } /^#/ { next } k && NF { print $3, $6; exit }' mfpt.txt)
EOF2
echo "Milestoning, Test C: MFPT ${m:-none} +- ${se:-none} (exact $MB_EXACT)"
within ms-mfpt "${m:-none}" "$MB_EXACT" "${se:-1}" 4

# ---- test-particle insertion -----------------------------------------------------
MDL="md-gpu -i baoab -t 2.0 --rc 3 --tail -s 5"
t tpi-frames 0 "$MDL --lattice fcc:4 --density 0.7 -n 2000 -e 0 --checkpoint eq.fek && $MDL --restart eq.fek -n 4000 -e 100 > frames.fek"
t tpi-insert 0 "tpi-gpu -d cpu -n 10000 frames.fek > ins.fek"
t bar 0 "bar-solve -m bar ins.fek > bar.txt"
read -r b bse <<EOF2
$(awk '$1 == "BAR" { print $2, $3 }' bar.txt)
EOF2
echo "LJ T* = 2.0, rho* = 0.7, N = 256: BAR ${b:-none} +- ${bse:-none} (equations of state 0.987588)"
near tpi-bar "${b:-none}" 0.987588 "$(awk -v s="${bse:-1}" 'BEGIN { print 3 * s + 0.1 }')"

# ---- Brownian dynamics -------------------------------------------------------------
atom 1 0 0 0 0 0 > n.pqr
echo "1 1" > one.rxn
N=4000
t_pipe bd-chain 0 "bd-step -d cpu --diff 0.01:0 --rdiff 0:0 --bsphere 50 --qsphere 100 --contacts 1 --dt 0.05:100 --dt-range 20:100 -n $N --rxn-dist 20 n.pqr - n.pqr - one.rxn | bd-rate -T --dist 20 > smol.txt"
read -r k klo khi < <(awk '!/^#/ && $1 == 20 { print $10, $11, $12 }' smol.txt)
KS=$(awk 'BEGIN { printf "%.6g", 4 * 3.141592653589793 * 0.01 * 20 * 6.02214076e8 }')	# A^3/ps -> M^-1 s^-1
echo "uncharged spheres: k ${k:-none} [${klo:-}, ${khi:-}] M^-1 s^-1 (4 pi D R $KS)"
within2 bd-smoluchowski "${k:-none}" "${klo:-0}" "${khi:-0}" "$KS"
