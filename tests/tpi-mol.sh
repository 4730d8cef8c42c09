# tests/tpi-mol.sh - tpi-gpu --top: rigid water molecules inserted into
# and deleted from frames of a molecular system (issue 27).  The known
# answer is the definition of a move's energy, u = U(N+1) - U(N) and
# U(N) - U(N-1), with U from md-gpu --top --rerun (itself checked against
# GROMACS in tests/mm-gmx.sh) on the very configurations:
# tests/tpi-mol-check writes the frame with insertion k added and with a
# molecule taken away, in full precision, and the topology's molecule
# count is changed by one.  Three water models (TIP4P/2005 of testdata/mm
# at its SRSW options, rc half the box; SPC/E: three sites, LB
# combination; OPLS-AA TIP4P: a virtual site, geometric combination)
# and three sets of options (PME with potential-shift and EnerPres; PME
# of order 6 with plain cut-offs and Ener; reaction field without the
# dispersion correction).  Then the template's geometry, the moves'
# independence of threads and runs, and bad input.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-tpi.sh"

CHECK=$TOP/tests/tpi-mol-check
[ -x "$CHECK" ] || { fail tpi-mol "$CHECK not built (make check builds it)"; exit 0; }
KT=$(awk 'BEGIN { printf "%.17g", 0.00831446261815324 * 300 }')
tpi_mol_inputs || { fail tpi-mol-inputs "the inputs could not be made"; exit 0; }
printf '#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/tip4p.itp"\n[ system ]\nTIP4P\n[ molecules ]\nSOL 216\n' > tip4p.top

# the potential (last column) of md-gpu --rerun's last row
pot() {
	md-gpu -T --top "$1" --mdp "$2" --rerun "$3" | awk '!/^#/ { p = $NF } END { print p }'
}

# exact NAME TOP MDP GRO SEED K D [F]: insertion K and deletion D of
# frame F (default 0; its id is F, the frames having no steps)
exact() {
	local n=$1 top=$2 mdp=$3 gro=$4 seed=$5 k=$6 d=$7 f=${8:-0} e0 e1 em ui ud
	count "$top" 1 > "$n.p1.top" && count "$top" -1 > "$n.m1.top" &&
	    "$CHECK" "$top" "$mdp" "$gro" "$seed" "$f" "$k" "$d" "$n.n.gro" \
	    "$n.ins.gro" "$n.del.gro" > "$n.dist" || {
		fail "$n" "tpi-mol-check failed"
		return
	}
	e0=$(pot "$top" "$mdp" "$n.n.gro")
	e1=$(pot "$n.p1.top" "$mdp" "$n.ins.gro")
	em=$(pot "$n.m1.top" "$mdp" "$n.del.gro")
	t "$n-run" 0 "tpi-gpu -T --top $top --mdp $mdp -t 300 -E -n $((k + 1)) -s $seed --screen 0 $n.n.gro > $n.raw"
	ui=$(awk -v k="$k" '/^# *KIND insertions/ { s = 1; i = 0 }
	    /^# *KIND deletions/ { s = 0 } !/^#/ && s { if (i++ == k) u = $2 }
	    END { print u }' "$n.raw")
	ud=$(awk -v d="$d" '/^# *KIND deletions/ { s = 1; i = 0 }
	    /^# *KIND insertions/ { s = 0 } !/^#/ && s { if (i++ == d) u = $2 }
	    END { print u }' "$n.raw")
	# u (kJ/mol) = beta u kT against the difference of two reruns, to
	# 1e-7 of |u| (rounding of totals of ~1e4 kJ/mol)
	near "$n-ins" "$(awk -v b="$ui" -v kt="$KT" 'BEGIN { printf "%.12g", b * kt }')" \
	    "$(awk -v a="$e1" -v b="$e0" 'BEGIN { printf "%.12g", a - b }')" \
	    "$(awk -v a="$e1" -v b="$e0" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "%.3g", 1e-7 * d + 1e-9 }')"
	near "$n-del" "$(awk -v b="$ud" -v kt="$KT" 'BEGIN { printf "%.12g", b * kt }')" \
	    "$(awk -v a="$e0" -v b="$em" 'BEGIN { printf "%.12g", a - b }')" \
	    "$(awk -v a="$e0" -v b="$em" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "%.3g", 1e-7 * d + 1e-9 }')"
}

# The exact energies are those of every move: --screen 0 (no screen; the
# screen is tested below against it).
# TIP4P/2005 (testdata/mm: the model and the SRSW options, rc = L/2)
exact tip4p2005 tip4p2005.top tip4p2005.mdp tip4p2005-267.gro 13 6 266
exact tip4p2005-rf tip4p2005.top rf.mdp tip4p2005-267.gro 4 2 0
# a frame whose box differs from the first's (an NPT run's): frame 1 is
# frame 0 scaled by 1.01 (2.02 nm); tpi-gpu, like the rerun, keeps frame
# 0's PME grid (20^3) and takes the kernel and the dispersion
# correction of frame 1's box
exact tip4p2005-box2 tip4p2005.top tip4p2005.mdp npt.gro 17 3 100 1
ok tip4p2005-box2-two-rows test "$(md-gpu -T --top tip4p2005.top --mdp tip4p2005.mdp --rerun tip4p2005-box2.n.gro | grep -vc '^#')" -eq 2

# a solute the frames lack, GROMACS's convention: the topology's last
# molecule, absent from frames that hold the others, inserted only.  Its
# u = U(N+1) - U(N) less its bonded terms (constant for a rigid copy),
# the reruns on the topology with and without it.  United-atom methane
# (TraPPE: sigma 0.373 nm, epsilon/k 148 K; one site, no geometry
# needed), and an all-atom methane (OPLS-like CT -0.24 e, HC +0.06 e, C-H
# 0.109 nm) whose rigid geometry is --config's
# potnb TOP GRO: md-gpu --rerun's potential of the last row less its
# bonded and 1-4 terms
potnb() {
	md-gpu -T --top "$1" --mdp tip4p2005.mdp --rerun "$2" | awk '
	    /^#COL / { c[$2] = ++n; next } /^#/ { next }
	    { p = $c["pot"]; split("bond angle ub pdih pidih rb idih lj14 coul14", b, " ")
	      for (i in b) p -= $c[b[i]] } END { printf "%.12g\n", p }'
}
# solute NAME TOP SEED K [CONFIG]: insertion K into the 267 waters
solute() {
	local n=$1 top=$2 seed=$3 k=$4 cfg=${5:-} e0 e1 ui
	TPI_MOL_CONFIG=$cfg "$CHECK" "$top" tip4p2005.mdp tip4p2005-267.gro \
	    "$seed" 0 "$k" 0 "$n.n.gro" "$n.ins.gro" "$n.del.gro" > "$n.dist" || {
		fail "$n" "tpi-mol-check failed"
		return
	}
	ok "$n-no-del-gro" test ! -e "$n.del.gro"
	e0=$(potnb sol0.top "$n.n.gro")
	e1=$(potnb "$top" "$n.ins.gro")
	t "$n-run" 0 "tpi-gpu -T --top $top --mdp tip4p2005.mdp ${cfg:+--config $cfg} -t 300 -E -n $((k + 1)) -s $seed --screen 0 tip4p2005-267.gro > $n.raw"
	says "$n-run" "molecule $(awk '/\[ *molecules/ { m = 1; next } m && NF { l = $1 } END { print l }' "$top") is the topology's last and not in the frames: inserted only \\(no deletions\\)"
	ok "$n-no-deletions" test "$(awk '/^# *KIND deletions/ { s = 1; next } /^# *KIND/ { s = 0 } s && !/^#/' "$n.raw" | wc -l)" = 0
	ui=$(awk -v k="$k" '/^# *KIND insertions/ { s = 1; i = 0 } !/^#/ && s { if (i++ == k) u = $2 } END { print u }' "$n.raw")
	near "$n-ins" "$(awk -v b="$ui" -v kt="$KT" 'BEGIN { printf "%.12g", b * kt }')" \
	    "$(awk -v a="$e1" -v b="$e0" 'BEGIN { printf "%.12g", a - b }')" \
	    "$(awk -v a="$e1" -v b="$e0" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "%.3g", 1e-7 * d + 1e-9 }')"
}
solute methane-ua ua.top 3 11
solute methane-ua-k2 ua.top 8 2
solute methane-aa aa.top 5 7 methane.gro
solute methane-aa-k3 aa.top 6 3 methane.gro
# the all-atom template: C-H 0.109 nm (the .gro's 4 decimals)
near methane-aa-ch "$(awk '$2 == "C" && $3 == "H1" { print $4 }' methane-aa.dist)" 0.109 1e-4
t methane-aa-no-config 65 "tpi-gpu --top aa.top --mdp tip4p2005.mdp -t 300 -n 10 tip4p2005-267.gro"
says methane-aa-no-config 'give the molecule.s geometry with --config'
head -n 5 methane.gro | sed '2s/.*/3/' > short.gro
tail -n 1 methane.gro >> short.gro
t methane-config-short 65 "tpi-gpu --top aa.top --mdp tip4p2005.mdp --config short.gro -t 300 -n 10 tip4p2005-267.gro"
says methane-config-short 'molecule MET: 5 atoms, but --config has 3'
t methane-config-bad 65 "tpi-gpu --top aa.top --mdp tip4p2005.mdp --config aa.top -t 300 -n 10 tip4p2005-267.gro"
t config-no-file 66 "tpi-gpu --top aa.top --mdp tip4p2005.mdp --config nonexistent.gro -t 300 -n 10 tip4p2005-267.gro"
t_usage config-no-top "tpi-gpu --config methane.gro --lj 1:1 tip4p2005-267.gro"
# a cell of 5 or more cells a side, where each site's rows and cells are
# cut to its cut-off sphere (lib/tpi/mol_pairs.c): the frame copied
# 2 x 2 x 2 (2136 waters in a 4 nm cube, 8 cells a side) at rc 0.9 nm;
# insertion k the first below 40 kT (|u| < 100 kJ/mol, so that 1e-7 of
# it is 1e-5 kJ/mol, less than any pair a wrongly left-out cell holds)
t big-scan 0 "tpi-gpu -T --top big.top --mdp big.mdp -t 300 -E -n 3000 -s 29 --no-deletions big.gro > big.scan"
K=$(awk '!/^#/ && $2 < 40 { print i; exit } !/^#/ { i++ }' big.scan)
if [ -n "$K" ]; then
	exact tip4p2005-big big.top big.mdp big.gro 29 "$K" 1500
else
	fail tip4p2005-big "no insertion of 3000 below 40 kT"
fi
# every move of the cut neighbourhoods against the whole ones: the same
# frame in a cell with a tilt of 1e-9 nm, which takes the untrimmed path
# (the moves then differ by the tilt's effect: 3e-6 kT, and 4e-7 of u
# for overlaps near 1e15 kT; a cell left out that held a pair within the
# cut-off costs more than 1e-3 kT)
t big-all 0 "tpi-gpu -T --top big.top --mdp big.mdp -t 300 -E -n 3000 -s 29 big.gro > big.E"
t big-tilt 0 "tpi-gpu -T --top big.top --mdp big.mdp -t 300 -E -n 3000 -s 29 tilt.gro > tilt.E"
ok big-tilt-moves test "$(grep -vc '^#' big.E)" = 5136
le big-cut-as-whole "$(paste big.E tilt.E | awk '!/^#/ { d = $2 - $5; a = $2 < 0 ? -$2 : $2
    d = d < 0 ? -d : d; if (d > 1e-5 + 1e-6 * a) n++ } END { print n + 0 }')" 0
# the inserted molecule: the settle's O-H 0.09572 and H-H 0.15139007 nm,
# M 0.01546 nm from O (Abascal and Vega 2005)
near tip4p2005-oh "$(awk '$2 == "OW" && $3 == "HW1" { print $4 }' tip4p2005.dist)" 0.09572 1e-12
near tip4p2005-hh "$(awk '$2 == "HW1" && $3 == "HW2" { print $4 }' tip4p2005.dist)" 0.15139007 1e-12
near tip4p2005-om "$(awk '$2 == "OW" && $3 == "MW" { print $4 }' tip4p2005.dist)" 0.01546 1e-8

# The screen (--screen W, default 300 kT): an insertion that brings an
# LJ site closer to a frame atom than where their pair alone reaches W kT
# counts as u = +inf.  The known answer is the same run unscreened: the
# sums and histograms the same bytes (the SCREEN and PROV lines aside),
# every move it lets through the same energy, most moves screened, and
# the screened moves' true energies all far above the histogram (more
# than W/2).  Two frames, temperatures and W: the 267 waters at 300 K
# (the default) and 470 K (W 150), the 2136 at rc 0.9 nm (W 1000).
# screen NAME TOP MDP GRO T W MINFRACTION
screen() {
	local n=$1 top=$2 mdp=$3 gro=$4 T=$5 w=$6 frac=$7 opt
	[ "$w" = 300 ] && opt= || opt="--screen $w"
	R="tpi-gpu --top $top --mdp $mdp -t $T -n 20000 -s 5"
	t "$n-off" 0 "$R -T --screen 0 $gro > $n.0"
	t "$n-on" 0 "$R -T $opt $gro > $n.w"
	ok "$n-key" grep -q "^#SCREEN $w kT\$" "$n.w"
	grep -v -e '^#PROV' -e '^#SCREEN' "$n.0" > "$n.0k"
	grep -v -e '^#PROV' -e '^#SCREEN' "$n.w" > "$n.wk"
	same_file "$n-same-sums" "$n.0k" "$n.wk"
	t "$n-off-E" 0 "$R -T -E --no-deletions --screen 0 $gro > $n.E0"
	t "$n-on-E" 0 "$R -T -E --no-deletions $opt $gro > $n.Ew"
	# moves screened (u inf) / all, those let through that differ, and
	# the least true u of the screened
	paste "$n.E0" "$n.Ew" | awk '!/^#/ { m++; if ($5 == "inf") { s++
	    if (mn == "" || $2 + 0 < mn) mn = $2 + 0 } else if ($2 != $5) d++ }
	    END { printf "%.4f %d %.17g\n", s / m, d, mn }' > "$n.st"
	read -r f d mn < "$n.st"
	ge "$n-screened" "$f" "$frac"
	le "$n-let-through-same" "$d" 0
	ge "$n-screened-far" "$mn" "$(awk -v w="$w" 'BEGIN { print w / 2 }')"
}
screen screen-300K tip4p2005.top tip4p2005.mdp tip4p2005-267.gro 300 300 0.75
screen screen-470K tip4p2005.top tip4p2005.mdp tip4p2005-267.gro 470 150 0.75
screen screen-big big.top big.mdp big.gro 300 1000 0.6
# bar-solve reads the screened moves' +inf: TPI, OS and BAR from every
# move's energy the same with the screen and without
for w in 0 300; do
	t screen-bar-$w 0 "tpi-gpu --top tip4p2005.top --mdp tip4p2005.mdp -t 300 -n 20000 -s 3 -E --screen $w tip4p2005-267.gro > sb$w.fek && bar-solve -n 0 sb$w.fek | grep -E '^(TPI|OS|BAR) ' > sb$w.txt"
done
ok screen-bar-three test "$(wc -l < sb300.txt)" = 3
same_file screen-bar-same sb0.txt sb300.txt
t_usage screen-no-top "tpi-gpu --screen 100 --lj 1:1 tip4p2005-267.gro"
t_usage screen-negative "tpi-gpu --screen -1 --top tip4p2005.top tip4p2005-267.gro"
t screen-below-bins 64 "tpi-gpu --screen 50 --top tip4p2005.top --mdp tip4p2005.mdp -t 300 -n 10 tip4p2005-267.gro"
says screen-below-bins "--screen 50: below the histogram's end \\(100 kT\\)"
# at rc 0.6 nm the cells may be 0.3 nm wide, and O-O at 1e-6 kT reaches
# out to nearly sigma (0.3159 nm)
{ grep -v -E '^(rcoulomb|rvdw|rlist) ' tip4p2005.mdp
  printf 'rlist = 0.6\nrcoulomb = 0.6\nrvdw = 0.6\n'; } > rc06.mdp
t screen-too-wide 64 "tpi-gpu --screen 1e-6 --bins -100:0:1 --top tip4p2005.top --mdp rc06.mdp -t 300 -n 10 tip4p2005-267.gro"
says screen-too-wide "--screen 1e-06: types OW_tip4p2005 and OW_tip4p2005 overlap out to"

# the GPU's pair loop (lib/tpi/mol_eval.h: the cells around each site,
# scalar) against the CPU's (mol_pairs.c: runs of cells cut to the
# sphere, vectorised), both on the host: every deletion and 200
# insertions a frame, to 1e-11 of u (tests/tpi-molv-check); PME of
# order 4 at rc = L/2, reaction field, two boxes, 8 cells a side, a
# tilted cell and a solute absent from the frames
MOLV=$TOP/tests/tpi-molv-check
# molv NAME TOP MDP FRAMES SEED [CONFIG]
molv() {
	local n=$1 out
	out=$(TPI_MOL_CONFIG=${6:-} "$MOLV" "molv-$1" "$2" "$3" "$4" "$5" 200 2>&1)
	printf '%s\n' "$out" | grep '^#'
	case $out in
	"ok molv-$n"*) pass "molv-$n" ;;
	*) fail "molv-$n" "$(printf '%s\n' "$out" | grep -v '^#' | head -n 1)" ;;
	esac
}
if [ -x "$MOLV" ]; then
	molv tip4p2005 tip4p2005.top tip4p2005.mdp tip4p2005-267.gro 13
	molv tip4p2005-rf tip4p2005.top rf.mdp tip4p2005-267.gro 4
	molv tip4p2005-box2 tip4p2005.top tip4p2005.mdp npt.gro 17
	molv big big.top big.mdp big.gro 29
	molv tilt big.top big.mdp tilt.gro 31
	molv methane-aa aa.top tip4p2005.mdp tip4p2005-267.gro 5 methane.gro
else
	fail molv "$MOLV not built (make check builds it)"
fi

GMXTOP=/usr/share/gromacs/top
if [ ! -f "$GMXTOP/spc216.gro" ] || [ ! -f "$GMXTOP/tip4p.gro" ] ||
    [ ! -f "$GMXTOP/oplsaa.ff/tip4p.itp" ]; then
	skip tpi-mol-gmx "no GROMACS data ($GMXTOP: scripts/install-deps check)"
	exit 0
fi
cp "$GMXTOP/spc216.gro" "$GMXTOP/tip4p.gro" .
cp "$TOP/testdata/mm/spce216.top" .
exact spce-pme spce216.top pme.mdp spc216.gro 7 3 5
exact spce-pme-k0 spce216.top pme.mdp spc216.gro 11 0 200
exact spce-pme6 spce216.top pme6.mdp spc216.gro 7 2 17
exact spce-rf spce216.top rf.mdp spc216.gro 3 1 0
exact tip4p-pme tip4p.top pme.mdp tip4p.gro 5 4 9
exact tip4p-pme6 tip4p.top pme6.mdp tip4p.gro 9 1 215
exact tip4p-rf tip4p.top rf.mdp tip4p.gro 2 0 100

# the inserted molecule is the settle's and the virtual site's: O-H
# 0.09572, H-H 0.15139 nm (OPLS-AA's TIP4P), O-M 0.015 nm
near tip4p-oh "$(awk '$2 == "OW" && $3 == "HW1" { print $4 }' tip4p-pme.dist)" 0.09572 1e-9
near tip4p-hh "$(awk '$2 == "HW1" && $3 == "HW2" { print $4 }' tip4p-pme.dist)" 0.15139 1e-9
near tip4p-om "$(awk '$2 == "OW" && $3 == "MW" { print $4 }' tip4p-pme.dist)" 0.015 1e-6
near spce-oh "$(awk '$2 == "OW" && $3 == "HW2" { print $4 }' spce-pme.dist)" 0.1 1e-12

# the same moves whatever the threads; -s changes them
T="tpi-gpu --top tip4p.top --mdp pme.mdp -t 300 -n 3000"
t threads1 0 "OMP_NUM_THREADS=1 $T tip4p.gro > t1.fek"
t threads2 0 "OMP_NUM_THREADS=2 $T tip4p.gro > t2.fek"
t threads-same 0 "cmp t1.fek t2.fek"
t seed2 0 "$T -s 2 tip4p.gro > s2.fek"
t seed-differs 0 "! cmp -s t1.fek s2.fek"
t barsolve 0 "bar-solve -n 0 t1.fek > bs.txt"

# bad input: one line, the documented status
t top-no-file 66 "tpi-gpu --top nonexistent.top tip4p.gro"
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then
	skip top-gpu-absent "a GPU is present (tests/gpu-tpi-mol.sh covers -d gpu)"
else
	t top-gpu-absent 69 "tpi-gpu -d gpu --top tip4p.top tip4p.gro"
	t top-gpu-env-absent 69 "FEK_DEVICE=gpu tpi-gpu --top tip4p.top tip4p.gro"
fi
t top-auto 0 "FEK_DEVICE=auto tpi-gpu -d auto --top tip4p.top --mdp pme.mdp -t 300 -n 10 tip4p.gro > auto.fek"
t_usage top-lj "tpi-gpu --top tip4p.top --lj 1:1 tip4p.gro"
t_usage mdp-alone "tpi-gpu --mdp pme.mdp tip4p.gro"
t top-count 65 "tpi-gpu --top spce216.top --mdp pme.mdp -t 300 tip4p.gro"
says top-count '864 atoms, but the topology has 648'
t top-molecule 64 "tpi-gpu --top spce216.top --molecule NA -t 300 spc216.gro"
says top-molecule 'no molecule of the topology has that residue name'
printf '[ defaults ]\n1 2 no 1 1\n[ atomtypes ]\nC 6 12.011 0 A 0.3 0.4\n[ moleculetype ]\nM 1\n[ atoms ]\n1 C 1 MET C 1 0\n2 C 1 MET C 1 0\n[ bonds ]\n1 2 1 0.15 1000\n[ system ]\nx\n[ molecules ]\nM 1\n' > flex.top
t top-flexible 65 "tpi-gpu --top flex.top -t 300 spc216.gro"
says top-flexible "atom C \\(1\\) is placed by no settle or virtual site: give the molecule's geometry with --config"
printf 'x\n3\n    1SOL     OW    1   0.000   0.000   0.000\n    1SOL    HW1    2   0.100   0.000   0.000\n    1SOL    HW2    3   0.000   0.100   0.000\n   1.0 1.0 1.0\n' > small.gro
count spce216.top -215 > one.top
t top-small-box 65 "tpi-gpu --top one.top --mdp pme.mdp -t 300 -n 1 small.gro"
says top-small-box 'less than twice the cut-off'
