# tests/lib-bd.sh - helpers of tests/bd.sh and tests/gpu-bd.sh (sourced
# after lib.sh): grids and PQR atoms made by awk and printf, the Bjerrum
# length from CODATA constants, a binomial-interval check.
BDCHECK=$TOP/tests/bd-check
# col NAME FILE: the value of column NAME in the first row of a text twin
col() {
	awk -v c="$1" '/^#COL/ { n++; if ($2 == c) k = n } /^#/ { next }
	    { print $k; exit }' "$2"
}
# the Bjerrum length at 298.15 K in eps 78.54 (CODATA 2018), A
LB=$(awk 'BEGIN { e = 1.602176634e-19; e0 = 8.8541878128e-12; kb = 1.380649e-23
    printf "%.12g", e * e / (4 * 3.141592653589793 * e0 * 78.54 * kb * 298.15) * 1e10 }')

# within2 NAME K LO HI EXPECTED: pass iff all are numbers and K lies within
# 2 binomial sd of EXPECTED (sd from the 95 % interval, (HI - LO) / 3.92)
within2() {
	if awk -v k="$2" -v lo="$3" -v hi="$4" -v e="$5" 'BEGIN {
		n = "^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$"
		if (k !~ n || lo !~ n || hi !~ n || e !~ n || !(hi > lo)) exit 1
		s = (hi - lo) / 3.92; d = k - e; if (d < 0) d = -d; exit !(d <= 2 * s) }'; then
		_t_record PASS "$1"
	else
		_t_record FAIL "$1" "k $2 [$3, $4], expected $5 within 2 sd"
	fi
}

# mkdx FILE N ORIGIN H EXPR: an n^3 OpenDX grid (APBS's layout), value
# EXPR of x, y, z (awk)
mkdx() {
	awk -v n="$2" -v o="$3" -v h="$4" "BEGIN {
		print \"# made by tests/bd.sh\"
		printf \"object 1 class gridpositions counts %d %d %d\\n\", n, n, n
		printf \"origin %.10g %.10g %.10g\\n\", o, o, o
		printf \"delta %.10g 0 0\\ndelta 0 %.10g 0\\ndelta 0 0 %.10g\\n\", h, h, h
		printf \"object 2 class gridconnections counts %d %d %d\\n\", n, n, n
		printf \"object 3 class array type double rank 0 items %d data follows\\n\", n * n * n
		c = 0
		for (i = 0; i < n; i++) for (j = 0; j < n; j++) for (k = 0; k < n; k++) {
			x = o + i * h; y = o + j * h; z = o + k * h
			v = $5
			printf \"%.12e%s\", v, (++c % 3 == 0) ? \"\\n\" : \" \"
		}
		if (c % 3) printf \"\\n\"
		print \"attribute \\\"dep\\\" string \\\"positions\\\"\"
	}" > "$1"
}

atom() {	# atom SERIAL X Y Z Q R
	printf 'ATOM  %5d  X   SPH     1    %8.3f%8.3f%8.3f %7.4f %6.4f\n' "$@"
}

