# plot-bar-trace.gp - a bar-solve(1) convergence trace (its -c file) as the
# seed's Figs. 1-6 (Daly et al. 2012): each estimate of beta mu_ex with its
# error bar against the moves accumulated so far (log scale), and, when the
# trace has BAR, Bennett's beta C in a second panel.
#
#   gnuplot -e "in='trace.txt'; out='trace.png'" scripts/plot-bar-trace.gp
#
# Optional: ttl='title'; x='n_del' (the abscissa column, default n_ins).
# Columns are found by name in the trace's #COL lines (fek(5) kind
# convergence), so any set of estimators plots.
if (!exists("out")) out = "trace.png"
if (!exists("ttl")) ttl = "convergence"
if (!exists("x")) x = "n_ins"
col(name) = int(system(sprintf("awk '/^#COL/ { n++; if ($2 == \"%s\") { print n; exit } } /^#END/ { print 0; exit }' '%s'", name, in)))
xc = col(x)
if (xc == 0) { print "plot-bar-trace.gp: no column ".x." in ".in; exit status 1 }
cc = col("beta_C")
set terminal pngcairo size 800,(cc > 0 ? 900 : 520) enhanced font "DejaVu Sans,11"
set output out
set datafile commentschars "#"
set logscale x
set format x "10^{%L}"
set key top right
set multiplot layout (cc > 0 ? 2 : 1),1 title ttl
set ylabel "{/Symbol b}{/Symbol m}_{ex} (kT)"
set xlabel (x eq "n_ins" ? "insertions" : x eq "n_del" ? "deletions" : x)
cmd = ""
do for [m in "tpi del os bar exp_f exp_r"] {
	c = col(m)
	if (c > 0) {
		cmd = cmd.(strlen(cmd) ? ", " : "plot ").sprintf("in using %d:%d:%d with yerrorlines pointsize 0.6 title '%s'", xc, c, c + 1, m)
	}
}
if (strlen(cmd) == 0) { print "plot-bar-trace.gp: no estimator columns in ".in; exit status 1 }
eval(cmd)
if (cc > 0) {
	set ylabel "{/Symbol b}C (kT)"
	plot in using xc:cc with linespoints pointsize 0.6 title "beta C"
}
unset multiplot
