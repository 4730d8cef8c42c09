# resize.awk - a .gro of N waters for pipelines/water-widom, from a
# template .gro of water (a molecule starts at each atom named as the
# first atom is, columns 11-15), in a cube that N molecules of molar mass
# 18.01528 g/mol fill at RHO kg/m^3:
#  - the template holds N or more: its first N molecules, positions and
#    box scaled by one factor (the geometry each molecule loses, a few
#    1e-4 of its lengths, SETTLE puts back at md-gpu's first step);
#  - it holds fewer: its first molecule copied without rotation onto a
#    simple cubic lattice of m^3 sites, m the least with m^3 >= N, site i
#    of the N taken being lattice site floor(i m^3 / N), so that the
#    empty sites are spread through the box, not left in one slab.  The
#    molecules start parallel (their dipoles aligned): a start for
#    md-gpu's equilibration, which melts it in a few ps; 2880 molecules
#    at 830 kg/m^3 sit 0.31 nm apart.
#
#   awk -v n=N -v rho=RHO -f resize.awk in.gro > out.gro
BEGIN { na = 0 }
NR == 1 { title = $0; next }
NR == 2 { total = $1; next }
NR <= total + 2 {
	name = substr($0, 11, 5)
	if (NR == 3) first = name
	if (name == first) nm++
	if (nm == 1) {		# the first molecule, for a lattice
		n1++
		an[n1] = substr($0, 6, 10)
		x[n1] = substr($0, 21, 8) + 0; y[n1] = substr($0, 29, 8) + 0
		z[n1] = substr($0, 37, 8) + 0
	}
	if (nm <= n) line[++na] = $0
	next
}
NR == total + 3 {
	l0 = $1
	if ($2 != l0 || $3 != l0 || NF > 3) {
		print "resize.awk: the box must be a cube" > "/dev/stderr"; exit 1
	}
	if (n < 1 || nm < 1) {
		print "resize.awk: no molecule or no N" > "/dev/stderr"; exit 1
	}
	# V = N M / (rho N_A), nm^3
	v = n * 18.01528e-3 / (rho * 6.02214076e23) * 1e27
	l = v ^ (1 / 3)
	if (nm >= n)
		scaled(l / l0)
	else
		lattice(l)
	printf "%10.5f%10.5f%10.5f\n", l, l, l
}

function scaled(s,    i, p) {
	printf "%s, %d molecules at %g kg/m^3\n%5d\n", title, n, rho, na
	for (i = 1; i <= na; i++) {
		p = line[i]
		printf "%s%8.3f%8.3f%8.3f\n", substr(p, 1, 20),
		    substr(p, 21, 8) * s, substr(p, 29, 8) * s, substr(p, 37, 8) * s
	}
}

function lattice(l,    m, a, i, j, k, s, cx, cy, cz) {
	for (m = 1; m * m * m < n; m++)
		;
	a = l / m
	printf "%s: %d molecules on a %d^3 lattice at %g kg/m^3\n%5d\n", title, n, m, rho, n * n1
	k = 0
	for (i = 0; i < n; i++) {
		s = int(i * m * m * m / n)
		cx = (int(s / (m * m)) + 0.5) * a
		cy = (int(s / m) % m + 0.5) * a
		cz = (s % m + 0.5) * a
		for (j = 1; j <= n1; j++) {
			k++
			printf "%5d%s%5d%8.3f%8.3f%8.3f\n", (i + 1) % 100000, an[j], k % 100000,
			    cx + x[j] - x[1], cy + y[j] - y[1], cz + z[j] - z[1]
		}
	}
}
