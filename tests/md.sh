# tests/md.sh - md-gpu's replica modes on the CPU (tools/md-gpu/replicas.c,
# lib/md/replica.c, lib/md/replica_eval.h) against answers from physics:
# the Boltzmann density of the double well (chi-square), the exact mean
# first-passage time of seed 003's Test C (E_b = 2, beta = D = 1, -1.5
# reflecting to +1.0 absorbing: 5.170946) by brute force, its
# per-milestone K and tau table by Milestoning, ballistic NVE crossings,
# the exact stationary variance and statistical inefficiency of the
# Euler-Maruyama Ornstein-Uhlenbeck process, umbrella MD on the
# butane-like torsion through WHAM, energy conservation, the DCD file read
# by mdtraj; reproducibility, shards, and exit codes; OpenMP's threads
# made to sleep rather than spin where the environment does not say.
#
# Statistical checks use fixed seeds and tolerances of 4 to 5 standard
# errors; the negative controls (a wrong barrier, crossings checked at the
# steps only) show that the checks can fail.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-md.sh"

# ---- threads on shared machines (lib/core/options.c, fek(7)) -----------------
# libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT when it is loaded; a
# tool started without either, with more than one thread to run, starts
# itself again with OMP_WAIT_POLICY=passive, whose threads spin 0 rounds
# (issue 29 item 17).  spins ENV...: how many times libgomp started
# (OMP_DISPLAY_ENV) for md-gpu --version in ENV, and the GOMP_SPINCOUNT
# of its last start.
# ${PRE[@]} runs before env (taskset, say).
PRE=()
spins() {
	"${PRE[@]}" env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u OMP_NUM_THREADS \
	    "$@" OMP_DISPLAY_ENV=verbose md-gpu --version 2>&1 > /dev/null |
	    awk -F"'" '/GOMP_SPINCOUNT/ { n++; s = $2 } END { print n, s }'
}
t wait-passive 0 "test '$(spins FEK_THREADS=2)' = '2 0'"
t wait-user-active 0 "test '$(spins FEK_THREADS=2 OMP_WAIT_POLICY=active | cut -d' ' -f1)' = 1"
t wait-user-spincount 0 "test '$(spins FEK_THREADS=2 GOMP_SPINCOUNT=1000)' = '1 1000'"
t wait-one-thread 0 "test '$(spins FEK_THREADS=1 | cut -d' ' -f1)' = 1"
t wait-omp-one-thread 0 "test '$(spins OMP_NUM_THREADS=1 | cut -d' ' -f1)' = 1"
if have taskset; then
	PRE=(taskset -c 0)
	t wait-one-cpu 0 "test '$(spins | cut -d' ' -f1)' = 1"
	PRE=()
fi
# the second start also tells OpenBLAS's idle threads to sleep at once
# (OPENBLAS_THREAD_TIMEOUT=4) unless that is set: the environment of the
# started tool (pmf, waiting for its input), read from /proc
blasenv() {
	{ sleep 20; } | env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$@" pmf > /dev/null 2>&1 &
	local pid=$! i
	for i in $(seq 100); do
		tr '\0' '\n' < /proc/$pid/environ 2> /dev/null | grep -q '^OMP_WAIT_POLICY=' && break
		sleep 0.1
	done
	tr '\0' '\n' < /proc/$pid/environ 2> /dev/null | grep '^OPENBLAS_THREAD_TIMEOUT='
	kill $pid 2> /dev/null
}
if [ -r /proc/self/environ ]; then
	t blas-timeout 0 "test '$(blasenv -u OPENBLAS_THREAD_TIMEOUT FEK_THREADS=2)' = OPENBLAS_THREAD_TIMEOUT=4"
	t blas-timeout-user 0 "test '$(blasenv FEK_THREADS=2 OPENBLAS_THREAD_TIMEOUT=10)' = OPENBLAS_THREAD_TIMEOUT=10"
fi
# a cgroup CPU quota (docker --cpus, systemd CPUQuota=) limits the
# threads as the affinity does: in a group granted one CPU's time a tool
# runs one thread, so it does not start again.  Where a group can be made
# (root, cgroup v1's cpu or v2's cpu.max) and more than one CPU is free.
quota_group() {
	local d
	if [ -w /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
		d=/sys/fs/cgroup/cpu/fek-test-$$
		mkdir "$d" 2> /dev/null && echo 100000 > "$d/cpu.cfs_period_us" &&
		    echo 100000 > "$d/cpu.cfs_quota_us" && echo "$d" && return
	elif [ -f /sys/fs/cgroup/cgroup.subtree_control ] &&
	    grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2> /dev/null; then
		d=/sys/fs/cgroup/fek-test-$$
		mkdir "$d" 2> /dev/null && echo "100000 100000" > "$d/cpu.max" &&
		    echo "$d" && return
	fi
	[ -n "${d:-}" ] && rmdir "$d" 2> /dev/null
	return 1
}
if [ "$(spins | cut -d' ' -f1)" = 2 ] && G=$(quota_group); then
	PRE=(sh -c "echo \$\$ > $G/cgroup.procs && exec \"\$@\"" sh)
	t wait-cpu-quota 0 "test '$(spins | cut -d' ' -f1)' = 1"
	PRE=()
	rmdir "$G" 2> /dev/null
else
	skip wait-cpu-quota "no cgroup with a CPU quota can be made here, or one CPU"
fi

# ---- equilibrium: the double well's Boltzmann density -----------------------
md_eq "" cpu 7

# ---- brute-force MFPT of seed 003's Test C -----------------------------------
md_mfpt mfpt-run "" cpu 4000 3 3

# ---- Milestoning: K and tau of Test C from exact starts ---------------------
md_ms ms-points ms-points-table "" cpu 5000 5 4 4
md_ms_voronoi "" cpu 400 9 4
md_ms_shards "" cpu 5000 5 ms-shards-union ms.txt

# ---- NVE crossings: ballistic times and the backward run --------------------
md_nve nve-run "" cpu 2000 4

# ---- umbrella: the Euler-Maruyama Ornstein-Uhlenbeck process ----------------
md_ou ou-run "" cpu 50 6 0.15

# ---- umbrella MD on the butane-like torsion, through WHAM --------------------
# 13 windows, 20 replicas each, Brownian dynamics in degrees; the WHAM PMF
# against the exact bin average of W, and its bootstrap errors (over 20
# seeds the mean of (deviation / sd)^2 was 0.94 and the largest deviation
# 0.04 to 0.1 kcal/mol).
md_torsion torsion-wham cpu 21 tor.txt
# cover: RMSD, max deviation after the best shift, bins within 2 sd, and
# the mean (deviation / sd)^2 against the exact bin average of W
read -r rms mx in2 nb z2 <<EOF
$(torsion_cover tor.txt)
EOF
echo "torsion WHAM: RMSD $rms, max $mx kcal/mol; $in2 of $nb bins within 2 sd; mean (dev/sd)^2 $z2"
le torsion-rmsd "$rms" 0.05
le torsion-max "$mx" 0.1
le torsion-cover "$(awk -v n=$nb 'BEGIN { print int(0.85 * n) }')" "$in2"
le torsion-sd-scale "$z2" 2.5
t torsion-rmsd-tool 0 "rmsd -p '0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))' tor.txt > tor.rmsd"
le torsion-rmsd-formula "$(awk '$1 == "RMSD" { print $2 }' tor.rmsd)" 0.1

# ---- forces: the built-ins against libmatheval's derivative of their text ---
md_force_paths "" cpu 50 8
# Mueller-Brown at seed 003's minimum A: U = -146.6995 (Test F)
t mb-minimum 0 "md-gpu -p mb -r -1.5:1.2 -r -0.2:2 -x -0.558224,1.441726 -E kT -i verlet -V 0 -H 1e-6 -n 1 -T > mbmin.txt"
near mb-minimum-energy "$(rows mbmin.txt | awk '{ print $5 }')" -146.6995 0.0001

# ---- NVE energy conservation (formula forces, asinh and acoth) ---------------
t nve-energy 0 "md-gpu -p 'asinh(x)^2+0.1*acoth(x+3)' -r -5:5 -x 1 -V 0 -E kT -i verlet -H 0.001 -n 100000 -e 5000 -l nve.log > /dev/null"
ok nve-energy-log sh -c "grep -qx '#KIND energies' nve.log && test \$(grep -vc '^#' nve.log) = 20"
le nve-energy-drift "$(energy_drift nve.log)" 1e-5

# ---- the DCD file, read by mdtraj --------------------------------------------
t dcd-run 0 "md-gpu -p mb:0.1 -r -1.5:1.2 -r -0.2:2 -x -0.55,1.44 -E kT -i baoab -H 0.001 -R 7 -n 300 -e 100 -o traj.dcd -T -s 3 > dcdframes.txt"
md_dcd "" traj.dcd dcdframes.txt '(3, 7, 3) None'
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

# ---- the pipelines ----------------------------------------------------------------
# pipelines/milestoning-1d and pipelines/wham-dynamics run their
# check-small in tests/pipelines-milestoning-1d.sh and
# tests/pipelines-wham-dynamics.sh (the MFPT against the exact 5.170946,
# the PMF's RMSD, shards over ssh, the plots).
