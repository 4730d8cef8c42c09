# lattice.awk - a .gro of N waters for pipelines/water-widom when N is
# more than the template holds: the template's first molecule (its atoms
# up to the next one named as its first, columns 11-15), copied without
# rotation onto a simple cubic lattice of m^3 sites, m the least with
# m^3 >= N, in a cube that N molecules of molar mass 18.01528 g/mol fill
# at RHO kg/m^3.  Site i of the N taken is lattice site floor(i m^3 / N),
# so the empty sites are spread through the box, not left in one slab.
# All molecules start parallel (the liquid's dipoles are then aligned):
# a start for md-gpu's equilibration, which melts it in a few ps; with m
# = 15 for 2880 molecules at 830 kg/m^3 the sites are 0.31 nm apart.
#
#   awk -v n=N -v rho=RHO -f lattice.awk template.gro > out.gro
NR == 1 { title = $0; next }
NR == 2 { total = $1; next }
NR <= total + 2 {
	name = substr($0, 11, 5)
	if (NR == 3) first = name
	else if (name == first) done = 1
	if (done) next
	na++
	an[na] = substr($0, 6, 10)
	x[na] = substr($0, 21, 8) + 0; y[na] = substr($0, 29, 8) + 0
	z[na] = substr($0, 37, 8) + 0
	next
}
END {
	if (n < 1 || na < 1) {
		print "lattice.awk: no molecule or no N" > "/dev/stderr"; exit 1
	}
	v = n * 18.01528e-3 / (rho * 6.02214076e23) * 1e27
	l = v ^ (1 / 3)
	for (m = 1; m * m * m < n; m++)
		;
	a = l / m
	printf "%s: %d molecules on a %d^3 lattice at %g kg/m^3\n%5d\n", title, n, m, rho, n * na
	k = 0
	for (i = 0; i < n; i++) {
		s = int(i * m * m * m / n)
		cx = (int(s / (m * m)) + 0.5) * a
		cy = (int(s / m) % m + 0.5) * a
		cz = (s % m + 0.5) * a
		for (j = 1; j <= na; j++) {
			k++
			printf "%5d%s%5d%8.3f%8.3f%8.3f\n", (i + 1) % 100000, an[j], k % 100000,
			    cx + x[j] - x[1], cy + y[j] - y[1], cz + z[j] - z[1]
		}
	}
	printf "%10.5f%10.5f%10.5f\n", l, l, l
}
