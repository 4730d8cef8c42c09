# constraint-lengths.awk - the largest relative deviation |r - d| / d of a
# system's constraints in each frame of an md-gpu text frame stream (-T),
# for issue 16's criterion (deviations below 1e-6 relative):
#
#   awk -f scripts/bench-mm-peers/constraint-lengths.awk SYS.top FRAMES.fek
#
# SYS.top is a self-contained topology of the JAC form (ParmEd's or
# gmx grompp -pp's): the first moleculetype, once, at the head of the
# system, whose bonds (funct 1) to an atom named H* are the h-bonds
# constraints at their b0; then waters with [ settles ] (doh, dhh) filling
# the rest of the frame, O H H.  Rectangular boxes (minimum images from
# #BOX).  It prints a line a frame and the largest values over all.
FNR == 1 { file++ }
file == 1 && /^\[/ { sec = $2; if (sec == "moleculetype") mt++; next }
file == 1 && (/^;/ || NF == 0) { next }
file == 1 && mt == 1 && sec == "atoms" { nm[$1] = $5; np = $1 }
file == 1 && mt == 1 && sec == "bonds" && $3 == 1 && (nm[$1] ~ /^H/ || nm[$2] ~ /^H/) { nb++; bi[nb] = $1; bj[nb] = $2; bd[nb] = $4 }
file == 1 && mt == 2 && sec == "settles" { doh = $3; dhh = $4 }
file == 2 && /^#FEK/ { if (n > 0) done(); n = 0; next }
file == 2 && /^#BOX/ { L[1] = $2; L[2] = $3; L[3] = $4; next }
file == 2 && /^#/ { next }
file == 2 { n++; X[n] = $1; Y[n] = $2; Z[n] = $3 }
function dist(a, b,   d, s, k) {
	d[1] = X[a] - X[b]; d[2] = Y[a] - Y[b]; d[3] = Z[a] - Z[b]; s = 0
	for (k = 1; k <= 3; k++) { d[k] -= L[k] * int(d[k] / L[k] + (d[k] >= 0 ? 0.5 : -0.5)); s += d[k] * d[k] }
	return sqrt(s)
}
function ab(v) { return v < 0 ? -v : v }
function done(   k, e, m, mw, o) {
	fr++; m = 0; mw = 0
	for (k = 1; k <= nb; k++) { e = ab(dist(bi[k], bj[k]) / bd[k] - 1); if (e > m) m = e }
	for (o = np + 1; o + 2 <= n; o += 3) {
		e = ab(dist(o, o + 1) / doh - 1); if (e > mw) mw = e
		e = ab(dist(o, o + 2) / doh - 1); if (e > mw) mw = e
		e = ab(dist(o + 1, o + 2) / dhh - 1); if (e > mw) mw = e
	}
	printf "frame %d: %d h-bonds, largest |r - d| / d %.3g; %d waters, %.3g\n", fr, nb, m, (n - np) / 3, mw
	if (m > M) M = m; if (mw > MW) MW = mw
}
END { if (n > 0) done(); printf "all %d frames: h-bonds %.3g, waters %.3g\n", fr, M, MW }
