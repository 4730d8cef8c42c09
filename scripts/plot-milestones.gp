# plot-milestones.gp - free energy and cumulative MFPT along the milestones
# from qstat-mfpt's output (its kinetics section), as the seed 003 thesis
# plots them (Figs. 5.5 and 5.11): F_i against the milestone (or its
# position, when the input had MILESTONE keys), and the MFPT from the
# start to each milestone on a log scale.
#   qstat-mfpt -i 0 -f 10 k.fek > kin.txt
#   gnuplot -e "in='kin.txt'; out='kin.png'" scripts/plot-milestones.gp
# For the reverse curve run qstat-mfpt again with -i and -f swapped.
if (!exists("in")) in = "kinetics.txt"
if (!exists("out")) out = "milestones.png"
if (!exists("ttl")) ttl = "Milestoning"

# columns by name: x (position or milestone), F, mfpt_from ('?' missing)
table = "< awk '/^#KIND /{ k = ($2 == \"kinetics\"); n = 0 } " . \
    "k && /^#COL /{ c[$2] = ++n; u[$2] = $4 } " . \
    "k && !/^#/ && NF { x = (\"position\" in c) ? $c[\"position\"] : $c[\"milestone\"]; " . \
    "f = $c[\"F\"]; if (f == \"inf\") f = \"?\"; " . \
    "m = (\"mfpt_from\" in c) ? $c[\"mfpt_from\"] : \"?\"; if (m == \"inf\" || m == 0) m = \"?\"; " . \
    "print x, f, m }' '" . in . "'"
unit(name) = system("awk '/^#KIND /{ k = ($2 == \"kinetics\") } k && /^#COL / && $2 == \"" . \
    name . "\" { print $4; exit }' '" . in . "'")
xname = system("grep -q '^#COL position' '" . in . "' && echo position || echo milestone")
funit = unit("F")
tunit = unit("mfpt_from")

set terminal pngcairo size 800,900 enhanced font "DejaVu Sans,11"
set output out
set datafile missing "?"
set multiplot layout 2,1 title ttl
set xlabel xname
set ylabel "F (" . funit . ")"
set grid
plot table using 1:2 with linespoints pt 7 ps 0.6 notitle
set logscale y
set ylabel "cumulative MFPT from the start (" . tunit . ")"
plot table using 1:3 with linespoints pt 7 ps 0.6 notitle
unset multiplot
