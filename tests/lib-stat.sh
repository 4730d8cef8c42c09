# tests/lib-stat.sh - the statistics of the tests that sample densities and
# first-passage times (md.sh, gpu-md.sh through lib-md.sh; sample-gen.sh,
# gpu-sample.sh through lib-sample.sh): standard errors, moments, the
# chi-square of samples against a density integrated by Simpson's rule,
# and the assertions on them.  Source it after lib.sh.

# noprov FILE...: text streams without their #PROV lines (which name the
# commands), for comparing the outputs of different command lines.
noprov() { grep -v '^#PROV' "$@"; }
# same_noprov NAME A B: pass iff the text streams A and B are the same but
# for their #PROV lines (what is compared is left in A and B with their
# endings .np for .txt: a.txt -> a.np).
same_noprov() {
	noprov "$2" > "${2%.*}.np"
	noprov "$3" > "${3%.*}.np"
	same_file "$1" "${2%.*}.np" "${3%.*}.np"
}

# within NAME GOT WANT SE K: pass iff |GOT - WANT| <= K SE.
within() {
	near "$1" "$2" "$3" "$(awk -v s="$4" -v k="$5" 'BEGIN { printf "%.17g", s * k }')"
}

# mean_se COL: "mean standard-error n" of column COL of the data rows on
# stdin.
mean_se() {
	awk -v c="$1" '!/^#/ && NF { s += $c; s2 += $c * $c; n++ }
	END { m = s / n; printf "%.17g %.17g %d\n", m, sqrt((s2 / n - m * m) / (n - 1)), n }'
}

# moments COL: "n mean variance excess-kurtosis lag1-autocorrelation" of
# column COL of the data rows on stdin (all sections together).
moments() {
	awk -v col="$1" '!/^#/ && NF { x[n++] = $col }
	END {
		for (i = 0; i < n; i++) s += x[i]; m = s / n
		for (i = 0; i < n; i++) { d = x[i] - m; s2 += d * d; s4 += d ^ 4 }
		for (i = 1; i < n; i++) c += (x[i] - m) * (x[i - 1] - m)
		v = s2 / (n - 1)
		printf "%d %.17g %.17g %.17g %.17g\n", n, m, v, (s4 / n) / (s2 / n) ^ 2 - 3, c / s2
	}'
}

# se_mean VAR N, se_var VAR N: the standard errors of the mean and of the
# variance of N independent Gaussian samples of variance VAR.
se_mean() { awk -v v="$1" -v n="$2" 'BEGIN { print sqrt(v / n) }'; }
se_var() { awk -v v="$1" -v n="$2" 'BEGIN { print v * sqrt(2 / (n - 1)) }'; }

# chi2_1d: the samples in column 1 of the text stream on stdin against the
# density exp(-(W(x) + V(x))/KT), V = 1/2 K d^2, d = x - C (minimum image
# for a period PERIOD; 0: open), binned in NB bins on [LO, HI]; samples
# outside are left out.  Expected counts from Simpson's rule (20 panels a
# bin); bins expecting < 5 are pooled into one category.  Prints "chi2
# dof".  Variables: LO HI NB PERIOD C K KT, and the awk function W(x) in
# WFN.
chi2_1d() {
	awk -v lo="$LO" -v hi="$HI" -v nb="$NB" -v per="$PERIOD" -v c="$C" \
	    -v k="$K" -v kt="$KT" "$WFN"'
	function V(x,   d) { d = x - c; if (per) d -= per * int(d / per + (d >= 0 ? 0.5 : -0.5)); return 0.5 * k * d * d }
	function f(x) { return exp(-(W(x) + V(x)) / kt) }
	!/^#/ && NF { b = ($1 - lo) / (hi - lo) * nb; if (b < 0 || b > nb) next
		b = int(b); if (b == nb) b--; obs[b]++; n++ }
	END {
		h = (hi - lo) / nb; m = 20
		for (b = 0; b < nb; b++) {
			a = lo + b * h; s = f(a) + f(a + h)
			for (j = 1; j < m; j++) s += (j % 2 ? 4 : 2) * f(a + j * h / m)
			I[b] = s * h / m / 3; tot += I[b]
		}
		for (b = 0; b < nb; b++) {
			e = n * I[b] / tot
			if (e < 5) { pe += e; po += obs[b]; continue }
			chi += (obs[b] - e) ^ 2 / e; cat++
		}
		if (pe > 0) { chi += (po - pe) ^ 2 / pe; cat++ }
		printf "%.6g %d\n", chi, cat - 1
	}'
}

# chi_ok NAME "chi2 dof": pass iff chi2 <= dof + 5 sqrt(2 dof).
chi_ok() {
	set -- "$1" $2
	le "$1" "$2" "$(awk -v d="$3" 'BEGIN { print d + 5 * sqrt(2 * d) }')"
}
# chi_bad NAME "chi2 dof": pass iff chi2 >= dof + 10 sqrt(2 dof) (a
# negative control: samples against a wrong density).
chi_bad() {
	set -- "$1" $2
	le "$1" "$(awk -v d="$3" 'BEGIN { print d + 10 * sqrt(2 * d) }')" "$2"
}
# chi_rejects NAME "chi2 dof": pass iff chi2 > dof + 5 sqrt(2 dof).
chi_rejects() {
	ok "$1" awk -v r="$2" 'BEGIN { split(r, a, " ");
	    exit !(a[1] > a[2] + 5 * sqrt(2 * a[2])) }'
}
