# tests/mm-md.sh - md-gpu --top --config: dynamics of molecular systems on
# the CPU (lib/mm/run.c):
#   - 216 rigid SPC/E waters (testdata/mm/spce216.top, GROMACS's
#     spc216.gro where gromacs is installed): Langevin at 300 K keeps the
#     kinetic temperature within 3 %; velocity Verlet with SETTLE conserves
#     the energy (its spread under 5 % of the kinetic energy's) and holds
#     the O-H and H-H lengths to 1e-9 in the frames written; the frames
#     rerun (--rerun) give the log's potential energies to 1e-9; the
#     final .gro (--confout) reads back;
#   - alanine dipeptide (amber99sb-ildn, gmx pdb2gmx) in vacuum with bonds
#     to hydrogen constrained (SHAKE and RATTLE): Langevin at 300 K within
#     5 % over 20000 steps;
#   - velocity Verlet with the v-rescale thermostat (Bussi et al. 2007)
#     and with a Nose-Hoover chain (Martyna et al. 1996) from 200 K to
#     300 K: the mean T within 3 %, the conserved H within 2e-4 of the
#     energy;
#   - bad input: exit codes 64, 65, 66 and (without a GPU) 69.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-mm.sh"

GMXTOP=/usr/share/gromacs/top
if [ ! -f "$GMXTOP/spc216.gro" ]; then
	skip mm-md "no GROMACS data ($GMXTOP/spc216.gro: scripts/install-deps check)"
	exit 0
fi
cp "$GMXTOP/spc216.gro" .
cp "$TOP/testdata/mm/spce216.top" .

# ---- Langevin: the temperature ---------------------------------------------------------
cat > sd.mdp <<'EOF'
integrator = sd
dt = 0.002
tau-t = 0.5
ref-t = 300
gen-vel = yes
gen-temp = 300
coulombtype = Reaction-Field
epsilon-rf = 0
rcoulomb = 0.9
rvdw = 0.9
EOF
t sd-run 0 "md-gpu -d cpu --top spce216.top --mdp sd.mdp --config spc216.gro -n 1500 -l sd.log --thermo 10 -e 500 > sd.fek"
T=$(awk '!/^#/ && $2 >= 500 { t += $20; n++ } END { printf "%.4f", t / n }' sd.log)
echo "Langevin, 216 SPC/E: mean T $T K over steps 500-1500 (300 K)"
le sd-temperature "$(reldev "$T" 300)" 0.03
# the frames' potential energies, rerun, against the log's
t sd-rerun 0 "md-gpu -d cpu --top spce216.top --mdp sd.mdp --rerun sd.fek -T > rerun.txt"
d=$(awk 'FNR == 1 { f++ } /^#/ { next } f == 1 && $2 % 500 == 0 { u[$2] = $17 }
    f == 2 { e = $16 - u[$2]; if (e < 0) e = -e; e /= (u[$2] < 0 ? -u[$2] : u[$2]); if (e > m) m = e; n++ }
    END { printf "%.3g\n", n == 4 ? m : 1 }' sd.log rerun.txt)
le sd-rerun-same-energy "$d" 1e-9

# ---- velocity Verlet: the energy, the constraints ---------------------------------------
cat > nve.mdp <<'EOF'
integrator = md-vv
dt = 0.002
gen-vel = yes
gen-temp = 300
coulombtype = Reaction-Field
epsilon-rf = 0
rcoulomb = 0.9
rvdw = 0.9
EOF
t nve-run 0 "md-gpu -d cpu --top spce216.top --mdp nve.mdp --config spc216.gro -n 500 -l nve.log --thermo 5 -e 500 --confout out.gro -T > nve.fek"
r=$(awk '!/^#/ && $2 >= 100 { n++; k += $18; kk += $18 * $18; e += $19; ee += $19 * $19 }
    END { sk = sqrt(kk / n - (k / n) ^ 2); se = sqrt(ee / n - (e / n) ^ 2); printf "%.4g\n", se / sk }' nve.log)
echo "velocity Verlet, 216 SPC/E, 2 fs: sd(E) / sd(K) = $r"
le nve-energy-conserved "$r" 0.05
# the last frame's water geometry (dOH 0.1, dHH 0.1633 nm)
d=$(awk '/^#KIND/ { f++ } /^#/ { next } f == 2 { n++; x[n] = $1; y[n] = $2; z[n] = $3 }
    END { for (w = 0; 3 * w + 3 <= n; w++) { o = 3 * w + 1
	for (k = 1; k <= 3; k++) { a = (k == 3 ? o + 1 : o); b = (k == 1 ? o + 1 : o + 2)
	    r = sqrt((x[a] - x[b]) ^ 2 + (y[a] - y[b]) ^ 2 + (z[a] - z[b]) ^ 2)
	    want = (k == 3 ? 0.1633 : 0.1); e = r / want - 1; if (e < 0) e = -e; if (e > m) m = e } }
	printf "%.3g\n", n == 648 ? m : 1 }' nve.fek)
le nve-constraints-hold "$d" 1e-9
t nve-confout 0 "md-gpu -d cpu --top spce216.top --mdp nve.mdp --rerun out.gro > /dev/null"

# ---- velocity Verlet with v-rescale: the temperature and the conserved H --------------------
cat > vr.mdp <<'EOF'
integrator = md-vv
dt = 0.002
tcoupl = v-rescale
tau-t = 0.1
ref-t = 300
gen-vel = yes
gen-temp = 200
coulombtype = Reaction-Field
epsilon-rf = 0
rcoulomb = 0.9
rvdw = 0.9
EOF
t vr-run 0 "md-gpu -d cpu --top spce216.top --mdp vr.mdp --config spc216.gro -n 4000 -l vr.log --thermo 10 > /dev/null"
set -- $(thermostat_stats vr.log)
echo "v-rescale (tau 0.1 ps) from 200 K, 216 SPC/E: mean T $1 K over steps 1000-4000 (300 K); |dH| / |E| $2"
le vr-temperature "$(reldev "$1" 300)" 0.03
le vr-conserved "$2" 2e-4

# ---- velocity Verlet with a Nose-Hoover chain: the temperature and the conserved H ------------
sed 's/^tcoupl = v-rescale/tcoupl = nose-hoover/; s/^tau-t = 0.1/tau-t = 0.5/' vr.mdp > nh.mdp
t nh-run 0 "md-gpu -d cpu --top spce216.top --mdp nh.mdp --config spc216.gro -n 4000 -l nh.log --thermo 10 > /dev/null"
set -- $(thermostat_stats nh.log)
echo "Nose-Hoover chain (10, tau 0.5 ps) from 200 K, 216 SPC/E: mean T $1 K over steps 1000-4000 (300 K); |dH| / |E| $2"
le nh-temperature "$(reldev "$1" 300)" 0.03
le nh-conserved "$2" 2e-4
t nh-log-key 0 "grep -q '^#INTEGRATOR vv nose-hoover' nh.log"

# ---- alanine dipeptide, bonds to hydrogen constrained -------------------------------------
if have gmx; then
	t ala2-pdb2gmx 0 "$(ala2_amber a.top)"
	cat > ala.mdp <<'EOF'
integrator = sd
dt = 0.002
tau-t = 0.5
ref-t = 300
gen-vel = yes
gen-temp = 300
constraints = h-bonds
coulombtype = Cut-off
rcoulomb = 1.0
rvdw = 1.0
EOF
	t ala2-run 0 "md-gpu -d cpu --top a.top --mdp ala.mdp --config ala2.gro -n 20000 -l ala.log --thermo 10 > /dev/null"
	T=$(awk '!/^#/ && $2 >= 2000 { t += $20; n++ } END { printf "%.4f", t / n }' ala.log)
	echo "Langevin, alanine dipeptide with h-bonds constrained: mean T $T K ($(awk '/^#DOF/ { print $2 }' ala.log) degrees of freedom)"
	le ala2-temperature "$(reldev "$T" 300)" 0.05
else
	skip ala2-run "no gmx (pdb2gmx makes the topology)"
fi

# ---- bad input ------------------------------------------------------------------------------
head -n 5 spc216.gro > short.gro
tail -n 1 spc216.gro >> short.gro
sed -i '2s/.*/3/' short.gro
t atoms-mismatch 65 "md-gpu -d cpu --top spce216.top --config short.gro -n 1"
printf 'integrator = steep\n' > steep.mdp
t_usage integrator-steep "md-gpu -d cpu --top spce216.top --mdp steep.mdp --config spc216.gro -n 1"
t_usage both-modes "md-gpu --top spce216.top --config spc216.gro --rerun spc216.gro"
t_usage neither-mode "md-gpu --top spce216.top"
t_usage bad-integrator "md-gpu --top spce216.top --config spc216.gro -i leapfrog"
t_usage langevin-no-temperature "md-gpu -d cpu --top spce216.top --config spc216.gro -i langevin -n 1"
t_usage bad-tcoupl "md-gpu -d cpu --top spce216.top --config spc216.gro --tcoupl berendsen -n 1"
printf 'tcoupl = berendsen\nref-t = 300\n' > be.mdp
t_usage berendsen-vv "md-gpu -d cpu --top spce216.top --mdp be.mdp --config spc216.gro -n 1"
printf 'nh-chain-length = 11\n' > nh11.mdp
t bad-nh-chain 65 "md-gpu -d cpu --top spce216.top --mdp nh11.mdp --config spc216.gro -n 1"
if [ -z "${FEK_TEST_GPU:-}" ]; then
	t no-gpu 69 "md-gpu -d gpu --top spce216.top --config spc216.gro -n 1"
fi
t missing-config 66 "md-gpu -d cpu --top spce216.top --config no-such.gro -n 1"
