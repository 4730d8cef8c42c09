# resize.awk - a .gro of water for pipelines/water-widom: the first N
# molecules of the input (a molecule starts at each atom named as the
# first atom is, columns 11-15),
# positions and box scaled by one factor so that N molecules of molar
# mass 18.01528 g/mol fill the box at RHO kg/m^3.  The geometry each
# molecule loses by the scaling (a few 1e-4 of its lengths) SETTLE puts
# back at md-gpu's first step.
#
#   awk -v n=N -v rho=RHO -f resize.awk in.gro > out.gro
BEGIN { na = 0 }
NR == 1 { title = $0; next }
NR == 2 { total = $1; next }
NR <= total + 2 {
	name = substr($0, 11, 5)
	if (NR == 3) first = name
	if (name == first) nm++
	if (nm <= n) line[++na] = $0
	next
}
NR == total + 3 {
	l0 = $1
	if ($2 != l0 || $3 != l0 || NF > 3) {
		print "resize.awk: the box must be a cube" > "/dev/stderr"; exit 1
	}
	if (nm < n) {
		printf "resize.awk: %d molecules, fewer than %d\n", nm, n > "/dev/stderr"; exit 1
	}
	# V = N M / (rho N_A), nm^3
	v = n * 18.01528e-3 / (rho * 6.02214076e23) * 1e27
	l = v ^ (1 / 3); s = l / l0
	printf "%s, %d molecules at %g kg/m^3\n%5d\n", title, n, rho, na
	for (i = 1; i <= na; i++) {
		p = line[i]
		printf "%s%8.3f%8.3f%8.3f\n", substr(p, 1, 20),
		    substr(p, 21, 8) * s, substr(p, 29, 8) * s, substr(p, 37, 8) * s
	}
	printf "%10.5f%10.5f%10.5f\n", l, l, l
}
