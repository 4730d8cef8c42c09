# hole.awk - a text fek frame (md-gpu -T) with one particle added at the
# point of a g^3 grid (g = 16 unless -v g=...) farthest from every
# particle (minimum image in a cubic box of side L, from the BOX key),
# with the next id, type 0, at rest: the start of an N+1 run whose test
# deletions pair with the N run's insertions in Bennett's ratio
# (mu_ex(N -> N+1), the quantity GC-TMMC's ln Pi(N+1) - ln Pi(N) gives).
/^#ROWS/ { print "#ROWS", $2 + 1; next }
/^#BOX/ { L = $2 }
/^#/ { print; next }
{ n++; x[n] = $3; y[n] = $4; z[n] = $5; if ($1 > idmax) idmax = $1; print }
END {
	if (g == 0) g = 16
	best = -1
	for (i = 0; i < g; i++) for (j = 0; j < g; j++) for (k = 0; k < g; k++) {
		px = (i + 0.5) * L / g; py = (j + 0.5) * L / g; pz = (k + 0.5) * L / g
		m = 1e300
		for (a = 1; a <= n; a++) {
			dx = px - x[a]; dx -= L * int(dx / L + (dx < 0 ? -0.5 : 0.5))
			dy = py - y[a]; dy -= L * int(dy / L + (dy < 0 ? -0.5 : 0.5))
			dz = pz - z[a]; dz -= L * int(dz / L + (dz < 0 ? -0.5 : 0.5))
			d = dx * dx + dy * dy + dz * dz
			if (d < m) m = d
		}
		if (m > best) { best = m; bx = px; by = py; bz = pz }
	}
	printf "%d 0 %.10g %.10g %.10g 0 0 0\n", idmax + 1, bx, by, bz
}
