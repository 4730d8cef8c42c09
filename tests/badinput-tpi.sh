# tests/badinput-tpi.sh - tpi-gpu and its frame readers (lib/tpi/frame.c,
# lib/particles/trajin.c, config.c) on inputs that must stop with the
# documented exit code and one line, never a hang, a signal or an
# allocation sized by a count the file does not hold (issue 29, items 2,
# 3, 6 and 15):
#  - cells that are not cells (a volume that overflows to inf, 1e300 edges
#    whose widths come out NaN: once SIGSEGV), cells narrower than the
#    cutoff (a box of 0.001 or 1e-10 with rc 2.5, --rc 1e9, --lj 1:1:1e6:
#    once endless loops over image cells, or gigabytes of rows), cells
#    spanning more than 2^22 cutoffs; each exits 65 at once;
#  - counts in headers the file cannot hold: a LAMMPS dump's NUMBER OF
#    ATOMS 99999999999 (a file and a pipe), a DCD of 2^31 - 1 atoms (25 GB
#    a frame), a .gro count of 10^15, a LAMMPS data file's 10^12 atoms:
#    65, not 70 "out of memory", under a 2 GB address-space limit;
#  - integer fields that are not integers in range: a fek frame's id
#    column (1e300, 0.5), a dump's atom id (-1, 0) and TIMESTEP (-5), a
#    STEP key of -3, a step whose frame id overflows;
#  - and frames that are fine still run (the bounds are not too tight):
#    a cutoff equal to the cell's width.
. "$(dirname "$0")/lib.sh"

T_TIMEOUT=20
export OMP_NUM_THREADS=1

# frame BOX: a fek frames section of 20 particles on a 1.5 grid
frame() {
	awk -v box="$1" 'BEGIN {
		print "#FEK 1\n#KIND frames\n#ROWS 20\n#COL id f64 1\n#COL x f64 sigma\n#COL y f64 sigma\n#COL z f64 sigma"
		print "#STEP 0\n#BOX " box "\n#END"
		for (i = 0; i < 20; i++)
			print i + 1, (i % 3) * 1.5 + 0.1, int(i / 3) % 3 * 1.5 + 0.1, int(i / 9) * 1.5 + 0.1 }'
}
TPI="tpi-gpu -d cpu -n 1000 --lj 1:1 -t 1"

# ---- cells (item 2, item 15: frame.c's ncell *= nc[d] of (int)NaN) --------------
frame "1e300 1e300 1e300 0 0 0" > huge.fek
frame "1e200 1e200 1e200" > inf-volume.fek
frame "0.001 0.001 0.001" > milli.fek
frame "1e-10 1e-10 1e-10" > tiny.fek
frame "10 10 10" > ok.fek
frame "1e7 1e7 1e7" > wide.fek
frame "10 10 10 0 0 0" | sed 's/^#STEP 0/#STEP 0\n#ORIGIN 1e30 0 0/' > far.fek
frame "10 10 2.4" > flat.fek
t cell-nan-widths 65 "$TPI huge.fek"
says cell-nan-widths 'widths .* must be positive and finite'
t cell-inf-volume 65 "$TPI inf-volume.fek"
t cell-0.001 65 "$TPI milli.fek"
says cell-0.001 'cutoff 2.5 is longer than the cell.s width 0.001'
t cell-1e-10 65 "$TPI tiny.fek"
t rc-1e9 65 "$TPI --rc 1e9 ok.fek"
t lj-rc-1e6 65 "($(vmlimit 2000000) tpi-gpu -d cpu -n 1000 --lj 1:1:1e6 -t 1 ok.fek)"
t cell-wide 65 "$TPI wide.fek"
says cell-wide 'span .* more than 2\^22 cutoffs'
t cell-far-origin 65 "$TPI far.fek"
t cell-flat-width 65 "$TPI flat.fek"
says cell-flat-width 'width 2.4 along c'
# the bounds are not tight: a cutoff of the cell's width, a wide cell
# within 2^22 cutoffs
t cutoff-equal-width 0 "$TPI --bins -100:1e9:1e4 --rc 10 ok.fek > /dev/null"
frame "1e6 1e6 1e6" > wide-ok.fek
t cell-wide-ok 0 "$TPI --bins -100:1e9:1e4 wide-ok.fek > /dev/null"

# ---- header counts the file cannot hold (item 6) ------------------------------
dump() {
	printf 'ITEM: TIMESTEP\n%s\nITEM: NUMBER OF ATOMS\n%s\nITEM: BOX BOUNDS pp pp pp\n0 10\n0 10\n0 10\nITEM: ATOMS id type x y z\n' "$1" "$2"
	printf '%s 1 1.0 1.0 1.0\n' "${3:-1}"
	printf '2 1 3.0 3.0 3.0\n3 1 5.0 5.0 5.0\n'
}
dump 0 99999999999 > many.lammpstrj
LIM=$(vmlimit 2000000)
t dump-count-file 65 "($LIM $TPI many.lammpstrj)"
says dump-count-file 'NUMBER OF ATOMS: 99999999999, but the .* bytes left'
t dump-count-pipe 65 "($LIM cat many.lammpstrj | $TPI --format lammpsdump -)"
says dump-count-pipe 'ends after 3 of the 99999999999 atoms'
dump 0 3 > three.lammpstrj
t dump-fine 0 "$TPI --bins -100:1e9:1e4 three.lammpstrj > /dev/null"
# the shortest atom lines there are (a field and a blank each), the last
# without its newline: the count fits
printf 'ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n3\nITEM: BOX BOUNDS pp pp pp\n0 10\n0 10\n0 10\nITEM: ATOMS id type x y z\n1 1 1 1 1\n2 1 3 3 3\n3 1 5 5 5' > tight.lammpstrj
t dump-tight 0 "$TPI --bins -100:1e9:1e4 tight.lammpstrj > /dev/null"
dump 0 3 -1 > negid.lammpstrj
t dump-id-negative 65 "$TPI negid.lammpstrj"
dump 0 3 0 > zeroid.lammpstrj
t dump-id-zero 65 "$TPI zeroid.lammpstrj"
dump -5 3 > negstep.lammpstrj
t dump-step-negative 65 "$TPI negstep.lammpstrj"

# a DCD of 3 atoms from md-gpu, its NATOM record (bytes 268-271: after
# the 84-byte first record and the 164-byte title record, each between
# 4-byte markers, and the count's own marker) made 2^31 - 1
t dcd-write 0 "md-gpu -d cpu --lattice fcc:3 --density 0.5 --rc 2 -t 1 -n 20 -e 10 -o fr.dcd > /dev/null"
cp fr.dcd big.dcd
printf '\377\377\377\177' | dd of=big.dcd bs=1 seek=268 conv=notrunc 2> /dev/null
t dcd-natom-huge 65 "($LIM $TPI big.dcd)"
says dcd-natom-huge 'truncated'
t dcd-fine 0 "$TPI --bins -100:1e9:1e4 fr.dcd > /dev/null"

# .gro: a count of 10^15 atoms
printf 'title\n1000000000000000\n    1LJ       A    1   0.100   0.100   0.100\n1 1 1\n' > many.gro
t gro-count 65 "($LIM $TPI many.gro)"
says gro-count 'atom count: 1000000000000000, but the'
t gro-count-pipe 65 "($LIM cat many.gro | $TPI --format gro -)"
# a title's step must be a step
printf 'title step= -4\n1\n    1LJ       A    1   0.100   0.100   0.100\n3 3 3\n' > negstep.gro
t gro-step-negative 65 "$TPI --lj 1:1:1 negstep.gro"

# LAMMPS data (md-gpu --config): 10^12 atoms in the header
printf 'LAMMPS data\n\n1000000000000 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n\nAtoms # atomic\n\n1 1 1.0 1.0 1.0\n' > many.data
t data-count 65 "($LIM md-gpu -d cpu --config many.data -n 1)"
says data-count "atom count: 1000000000000, but the"
printf 'LAMMPS data\n\n1 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n\nAtoms # molecular\n\n1 -3 1 1.0 1.0 1.0\n' > negmol.data
t data-molecule-negative 65 "md-gpu -d cpu --config negmol.data -n 1"

# ---- integer fields (item 3) --------------------------------------------------
frame "10 10 10" | awk '!/^#/ && NR > 9 && !d { $1 = "1e300"; d = 1 } { print }' > id-huge.fek
t id-huge 65 "$TPI id-huge.fek"
says id-huge 'id 1e\+300: expected an integer'
frame "10 10 10" | awk '!/^#/ && NR > 9 && !d { $1 = "0.5"; d = 1 } { print }' > id-frac.fek
t id-fraction 65 "$TPI id-frac.fek"
frame "10 10 10" | sed 's/^#STEP 0/#STEP -3/' > step-neg.fek
t step-negative 65 "$TPI step-neg.fek"
frame "10 10 10" | sed 's/^#STEP 0/#STEP 9000000000000000000\n#REPLICA 2 4/' > step-big.fek
t step-id-overflow 65 "$TPI step-big.fek"
says step-id-overflow 'beyond 2\^63'

# ---- -n against memory: one partial sum per 1024 insertions (and 8 bytes
# a move with -E) must fit in half the machine's memory, checked before a
# frame is read (7e13 ended in "out of memory", 70)
t_usage n-memory "tpi-gpu -d cpu -n 70000000000000 --lj 1:1 -t 1 ok.fek"
says n-memory '^tpi-gpu: -n 70000000000000: the sums of that many insertions a frame need'
t_usage n-memory-raw "tpi-gpu -d cpu -E -n 60000000000000 --lj 1:1 -t 1 ok.fek"
says n-memory-raw 'with -E'
