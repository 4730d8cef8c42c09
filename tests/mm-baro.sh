# tests/mm-baro.sh - md-gpu --top's Monte Carlo barostat (lib/mm/barostat.c)
# against the ideal gas, whose isobaric volume distribution is known
# exactly: N molecules that do not interact, moved by scaling their centres
# of mass, have p(V) ~ V^N exp(-PV / kT), so <V> = (N + 1) kT / P and
# sd(V) = sqrt(N + 1) kT / P.  100 rigid diatomics (a constraint each, no
# LJ, no charges) at 300 K and 100 bar, Langevin dynamics, a volume move
# every step: <V> within 3 % of 41.83 nm^3 and sd(V) within 15 % of 4.16
# (scaling the 200 atoms instead would give 82.8); the constraint holds in
# the last frame (a molecule moves whole); the log's V column is the box's
# volume; bad input: another barostat, no temperature, replicas (64).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-mm.sh"

ideal_gas_inputs
printf 'integrator = sd\ndt = 0.002\ntau-t = 1\nref-t = 300\ngen-vel = yes\npcoupl = MC\nref-p = 100\nnstpcouple = 1\nrcoulomb = 0.5\nrvdw = 0.5\n' > npt.mdp

t gas-run 0 "md-gpu -d cpu --top gas.top --mdp npt.mdp --config gas.gro -n 20000 -e 20000 -l npt.log --thermo 10 -T -v > npt.fek 2> npt.err"
set -- $(awk '/^#COL/ { c++; if ($2 == "V") vc = c } !/^#/ && $2 >= 2000 { n++; s += $vc; ss += $vc * $vc }
    END { m = s / n; printf "%.4f %.4f\n", m, sqrt(ss / n - m * m) }' npt.log)
want=$(awk 'BEGIN { kt = 0.00831446261815324 * 300; p = 100 / 16.60539067173847; printf "%.4f %.4f\n", 101 * kt / p, sqrt(101) * kt / p }')
echo "ideal diatomic gas, 100 molecules, 300 K, 100 bar: <V> $1, sd(V) $2 nm^3; exact $want"
le gas-mean-volume "$(echo "$1 $want" | awk '{ d = $1 / $2 - 1; print d < 0 ? -d : d }')" 0.03
le gas-volume-spread "$(echo "$2 $want" | awk '{ d = $1 / $3 - 1; print d < 0 ? -d : d }')" 0.15
t gas-moves-reported 0 "grep -q 'Monte Carlo barostat at 100 bar' npt.err"
# the constraint's length in the last frame
d=$(awk '/^#KIND/ { f++ } /^#/ { next } f == 2 { n++; x[n] = $1; y[n] = $2; z[n] = $3 }
    END { for (m = 0; 2 * m + 2 <= n; m++) { a = 2 * m + 1; b = a + 1
	r = sqrt((x[a] - x[b]) ^ 2 + (y[a] - y[b]) ^ 2 + (z[a] - z[b]) ^ 2); e = r / 0.1 - 1; if (e < 0) e = -e; if (e > w) w = e }
	printf "%.3g\n", n == 200 ? w : 1 }' npt.fek)
le gas-constraints-hold "$d" 1e-9
# the log's V is the last frame's box (step 20000 in both)
v=$(awk '/^#BOX/ { print $2 * $3 * $4 }' npt.fek | tail -n 1)
vl=$(awk '!/^#/ { v = $NF } END { print v }' npt.log)
le gas-log-volume "$(echo "$v $vl" | awk '{ d = $1 / $2 - 1; print d < 0 ? -d : d }')" 1e-6

printf 'pcoupl = Parrinello-Rahman\nref-p = 1\nref-t = 300\nintegrator = sd\n' > pr.mdp
t_usage other-barostat "md-gpu -d cpu --top gas.top --mdp pr.mdp --config gas.gro -n 1"
printf 'integrator = md-vv\npcoupl = MC\nref-p = 1\n' > nve.mdp
t_usage barostat-no-temperature "md-gpu -d cpu --top gas.top --mdp nve.mdp --config gas.gro -n 1"
t_usage barostat-replicas "md-gpu -d cpu --top gas.top --mdp npt.mdp --config gas.gro -n 1 -R 2"
