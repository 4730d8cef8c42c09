# plot-pmf2d.gp - a 2-D PMF from pmf(1) text output as a coloured map.
#   gnuplot -e "in='pmf.txt'; out='pmf.png'; ttl='...'" plot-pmf2d.gp
if (!exists("ttl")) ttl = "PMF"
set terminal pngcairo size 800,680 enhanced font "DejaVu Sans,11"
set output out
set title ttl
set xlabel "x (deg)"
set ylabel "y (deg)"
set cblabel "F (kcal/mol)"
set view map
set size ratio -1
set xrange [-180:180]
set yrange [-180:180]
set datafile missing "inf"
set palette rgbformulae 33,13,10
splot in using 1:2:3 with pm3d notitle
