# tests/wham-precond.sh - L-BFGS on a window grid with the grid's model
# Hessian (lib/wham/precond.c) against L-BFGS scaled by the diagonal alone
# (FEK_WHAM_PRECOND=0, the solver before it): the same solution to the
# tolerance, far fewer sweeps where the windows are narrow against the
# grid (the Hessian is then a Laplacian on the window grid), the same bytes
# on one thread and two, and the bootstrap on top of it.  Grids: 2-D with
# unequal window counts (41 on an open axis, 24 on a periodic one: the
# axes' order matters to the model), 3-D 6 x 5 x 4, and the 2-D grid with
# wide windows, where the diagonal already does well.
. "$(dirname "$0")/lib.sh"

# sweeps LOG: the sweeps of wham-gpu -v's last "converged" line
sweeps() { sed -n 's/.*(solver lbfgs, \([0-9]*\) sweeps.*/\1/p' "$1" | tail -n 1; }
# lnp FILE: the prob section's ln p column of a text output
lnp() { awk '/^#FEK/ { s++ } s == 1 && !/^#/ && NF { print $NF }' "$1"; }

P2='cos(x)+0.5*cos(y-1)+0.3*cos(x+y)'
# windows sigma = sqrt(kT/k) about 1.5 bins: x bins 0.125, y bins 2 pi / 48
awk 'BEGIN { pi = atan2(0, -1); for (i = 0; i <= 40; i++) for (j = 0; j < 24; j++)
	printf "%.10g %.10g 16 16\n", 0.25 * i, -pi + 2 * pi * j / 24 }' > narrow.win
awk 'BEGIN { pi = atan2(0, -1); for (i = 0; i <= 40; i++) for (j = 0; j < 24; j++)
	printf "%.10g %.10g 0.4 0.4\n", 0.25 * i, -pi + 2 * pi * j / 24 }' > wide.win
R2="-r 0:10 -r -3.141592653589793:3.141592653589793:p -b 80 -b 48 -t 300 -s 7 -d cpu"
t_pipe pc-gen 0 "sample-gen -q -p '$P2' $R2 -w narrow.win -n 1000 -P > narrow.fek && sample-gen -q -p '$P2' $R2 -w wide.win -n 1000 -P > wide.fek"

for c in narrow wide; do
	t pc-$c 0 "wham-gpu -v -c -T $c.fek > $c.pc.txt"
	t pc-$c-diag 0 "FEK_WHAM_PRECOND=0 wham-gpu -v -c -T $c.fek > $c.diag.txt"
	lnp $c.pc.txt > $c.pc.lnp
	lnp $c.diag.txt > $c.diag.lnp
	# both converged to max |d ln f| < 1e-7 kT: ln p to about that
	numcmp_files pc-$c-same $c.diag.lnp $c.pc.lnp 1e-5 0
done
# narrow windows: the diagonal needs many sweeps, the model few
ge pc-narrow-diag-slow "$(sweeps pc-narrow-diag.err)" 80
le pc-narrow-fast "$(sweeps pc-narrow.err)" 25
# wide windows: never more than the diagonal
le pc-wide-no-worse "$(sweeps pc-wide.err)" "$(sweeps pc-wide-diag.err)"
t_pipe pc-narrow-rmsd 0 "wham-gpu -c narrow.fek | pmf -u kT | rmsd -u kT -E kcal -p '$P2' -c 4kT --fail-above 0.1"

# 3-D, 6 x 5 x 4 windows, x and y open, z periodic
awk 'BEGIN { pi = atan2(0, -1); for (i = 0; i < 6; i++) for (j = 0; j < 5; j++) for (k = 0; k < 4; k++)
	printf "%g %g %.10g 6 6 1.5\n", 0.4 * i, 0.4 * j, -pi + 2 * pi * k / 4 }' > w3.win
t_pipe pc-3d-gen 0 "sample-gen -q -p 'cos(3*x)+y^2+0.5*cos(z)' -r 0:2 -r 0:1.6 -r -3.141592653589793:3.141592653589793:p -b 20 -b 16 -b 12 -w w3.win -n 400 -t 300 -s 3 -d cpu -P > w3.fek"
t pc-3d 0 "wham-gpu -v -c --solver lbfgs -T w3.fek > w3.pc.txt"
t pc-3d-diag 0 "FEK_WHAM_PRECOND=0 wham-gpu -v -c --solver lbfgs -T w3.fek > w3.diag.txt"
lnp w3.pc.txt > w3.pc.lnp
lnp w3.diag.txt > w3.diag.lnp
numcmp_files pc-3d-same w3.diag.lnp w3.pc.lnp 1e-5 0
le pc-3d-no-worse "$(sweeps pc-3d.err)" "$(sweeps pc-3d-diag.err)"

# the same bytes on one thread and on two (the model's sums in a fixed order)
t pc-threads 0 'OMP_NUM_THREADS=1 wham-gpu -c -T narrow.fek | grep -v "^#PROV" > th1.txt && OMP_NUM_THREADS=2 wham-gpu -c -T narrow.fek | grep -v "^#PROV" > th2.txt'
same_file pc-threads-same th1.txt th2.txt

# the bootstrap's trials solve with it too (per-window histograms)
t_pipe pc-bootstrap 0 "sample-gen -q -p '$P2' $R2 -w wide.win -n 300 | wham-gpu -c -B 3 -s 5 -T > boot.txt"
ok pc-bootstrap-sd grep -q '^#COL sd_lnp' boot.txt
