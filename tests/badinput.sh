# tests/badinput.sh: every WHAM tool against bad options and bad input:
# exit status (DESIGN.md: 64 usage, 65 data, 66 no input, 74 write error)
# and the one-line "tool: fact" message that t requires.
. "$(dirname "$0")/lib.sh"

P='0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))'
TOOLS='sample-gen histogram bias-build wham-gpu pmf rmsd'

# Good inputs of every kind, binary.
echo '0 1' > win.txt
sample-gen -p "$P" -r -180:180:p -g 7 -k 0.001 -n 300 > samples.bin
histogram -b 12 < samples.bin > hist.bin
bias-build < hist.bin > bias.bin
wham-gpu < bias.bin > prob.bin
pmf -B < prob.bin > pmf.bin
pmf < prob.bin > pmf.txt
# prob.bin up to the end of its first (prob) section: 12 rows of 8 bytes
end=$(LC_ALL=C grep -obUa '^END$' prob.bin | head -n 1 | cut -d: -f1)
head -c $((end + 4 + 12 * 8)) prob.bin > prob1.bin

# input TOOL: the command line and good input file of TOOL
cmd_of() {
	case $1 in
	sample-gen) echo "sample-gen -p '$P' -r -180:180:p -w" ;;
	histogram) echo 'histogram -b 12' ;;
	bias-build) echo 'bias-build' ;;
	wham-gpu) echo 'wham-gpu' ;;
	pmf) echo 'pmf' ;;
	rmsd) echo "rmsd -p '$P'" ;;
	esac
}
input_of() {
	case $1 in
	sample-gen) echo win.txt ;;
	histogram) echo samples.bin ;;
	bias-build) echo hist.bin ;;
	wham-gpu) echo bias.bin ;;
	pmf) echo prob1.bin ;;
	rmsd) echo pmf.bin ;;
	esac
}
# nan_last FILE OUT: FILE with its last 8 bytes (an f64 cell) set to NaN.
nan_last() {
	cp "$1" "$2"
	printf '\000\000\000\000\000\000\370\177' |
	    dd of="$2" bs=1 seek=$(( $(stat -c %s "$1") - 8 )) conv=notrunc 2> /dev/null
}

printf '\223FEX 1\nKIND samples\nROWS 0\nCOL x f64 1\nEND\n' > magic.bin
printf '#FEX 1\n#KIND samples\n#ROWS 0\n#COL x f64 1\n#END\n' > magic.txt
: > empty

for tool in $TOOLS; do
	c=$(cmd_of $tool)
	in=$(input_of $tool)
	t $tool-good 0 "$c $in > /dev/null"
	t_usage $tool-unknown-option "$tool --no-such-option"
	t_usage $tool-unknown-short-option "$tool -Z"
	t $tool-version 0 "$tool --version > $tool.version"
	ok $tool-version-text grep -qx "$tool (fek) [0-9][0-9.]*" $tool.version
	t $tool-version-full 74 "$tool --version > /dev/full"
	t $tool-write-error 74 "$c $in > /dev/full"
	t $tool-missing-file 66 "$c no-such-file"
	ok $tool-missing-file-names-it grep -q 'no-such-file' $tool-missing-file.err
	if [ $tool = sample-gen ]; then
		# sample-gen reads no stream: its input is the windows file
		printf '# only comments\n' > win-empty.txt
		t $tool-empty-input 65 "$c win-empty.txt"
		printf '0 1\n0\n' > win-trunc.txt
		t $tool-truncated 65 "$c win-trunc.txt"
		printf '\223FEK 1\n' > win-bin.txt
		t $tool-wrong-magic 65 "$c win-bin.txt"
		printf '0 1\nnan 1\n' > win-nan.txt
		t $tool-nan 65 "$c win-nan.txt"
		printf '0 0 1 1\n' > win-2d.txt
		t $tool-wrong-dimension 65 "$c win-2d.txt"
		t_usage $tool-wrong-dimension-formula "sample-gen -p 'x+y' -r -1:1 -w win.txt"
		continue
	fi
	t $tool-empty-input 65 "$c < empty"
	t $tool-empty-file 65 "$c empty"
	t $tool-wrong-magic 65 "$c < magic.bin"
	ok $tool-wrong-magic-msg grep -q 'magic' $tool-wrong-magic.err
	if [ $tool != rmsd ]; then
		t $tool-wrong-magic-text 65 "$c < magic.txt"
	fi
	head -c $(( $(stat -c %s $in) - 3 )) $in > $tool.trunc
	t $tool-truncated 65 "$c < $tool.trunc"
	ok $tool-truncated-msg grep -q 'truncated' $tool-truncated.err
	# histogram streams end in an i32 count, which cannot hold a NaN;
	# bias-build also reads (and skips, checking) logbias sections
	[ $tool = bias-build ] && in=bias.bin
	nan_last $in $tool.nan
	t $tool-nan 65 "$c < $tool.nan"
	ok $tool-nan-msg grep -q -i 'nan' $tool-nan.err
done

# wrong dimension, tool by tool
t_usage histogram-wrong-dimension 'histogram -b 12 -b 12 < samples.bin'
sample-gen -p '0*x+0*y' -r -180:180:p -r -1:1 -g 2 -k 0.002 -n 300 | histogram -b 12 -b 4 | bias-build > bias2d.bin
t wham-gpu-wrong-dimension 65 'cat bias.bin bias2d.bin | wham-gpu'
bias-build -T < hist.bin | awk '/^#FEK/ { s++ } s == 1 && /^#WINDOW/ { $0 = "#WINDOW 0 0 1 1" } { print }' > hist2w.txt
t bias-build-wrong-dimension 65 'bias-build < hist2w.txt'
t_usage pmf-wrong-dimension 'pmf -m 2 < prob1.bin'
t_usage rmsd-wrong-dimension "rmsd -p 'x+y' pmf.bin"
t_usage pmf-wrong-dimension-z 'pmf -z 1,2 < prob1.bin'

# the wrong kind of stream for the tool
t histogram-wrong-kind 65 'histogram -b 12 < hist.bin'
t bias-build-wrong-kind 65 'bias-build < samples.bin'
t wham-gpu-wrong-kind 65 'wham-gpu < samples.bin'
t pmf-wrong-kind 65 'pmf < bias.bin'
t rmsd-wrong-kind 65 "rmsd -p '$P' prob1.bin"

# a binary section whose ROWS its data cannot have: from a file, a short
# payload found before anything is allocated (65); through a pipe the
# reading stops at the first missing chunk or at the allocation (70),
# never a loop: 2^61 rows of 8 bytes made the read size wrap to 0
for rows in 2305843009213693952 99999999999; do
	for tool in bias-build wham-gpu; do
		in=hist.bin
		[ $tool = wham-gpu ] && in=bias.bin
		LC_ALL=C sed "0,/^ROWS [0-9]*\$/s//ROWS $rows/" $in > $tool-rows$rows.bin
		t $tool-rows-$rows 65 "$tool $tool-rows$rows.bin"
		ok $tool-rows-$rows-msg grep -q "section 1: truncated payload: [0-9]* of $rows rows" $tool-rows-$rows.err
		t $tool-rows-$rows-redirect 65 "$tool < $tool-rows$rows.bin"
	done
done
# through a pipe nothing can be checked before the data come, so no
# reader sizes anything by ROWS: the buffers grow with the rows, and a
# histogram has at most one row per bin (fek(5))
for rows in 2305843009213693952 99999999999; do
	t wham-gpu-rows-pipe-$rows 65 "cat wham-gpu-rows$rows.bin | wham-gpu"
	says wham-gpu-rows-pipe-$rows "ROWS $rows: more rows than the grid's 12 bins"
	t bias-build-rows-pipe-$rows 65 "cat bias-build-rows$rows.bin | bias-build"
	says bias-build-rows-pipe-$rows "truncated payload: [0-9]+ of $rows rows"
done
LC_ALL=C sed "0,/^ROWS [0-9]*\$/s//ROWS 99999999999/" prob1.bin > prob-rows.bin
t pmf-rows-pipe 65 "cat prob-rows.bin | pmf"
says pmf-rows-pipe "truncated payload: 12 of 99999999999 rows"

# integer columns hold integers in their type's range (fek(5)): inf,
# 1e999, 1e11 or a fraction in a bin column is bad data, in the text twin
# as in binary, and a writer never puts a value it cannot hold
bias-build -T < hist.bin > bias.txt
for v in inf -inf 1e999 99999999999 2147483648 -2147483649 1.5; do
	awk -v v=$v '/^#KIND/ { k = $2 } k == "histogram" && !/^#/ && !done { $1 = v; done = 1 } { print }' bias.txt > bias-int$v.txt
	t wham-gpu-int-$v 65 "wham-gpu bias-int$v.txt"
	says wham-gpu-int-$v "column 1: '.*' is not an i32 integer"
	t bias-build-int-$v 65 "histogram -T -b 12 < samples.bin | awk -v v=$v '/^#KIND/ { k = 1 } k && !/^#/ && !d { \$1 = v; d = 1 } { print }' | bias-build"
done
awk '/^#KIND/ { k = $2 } k == "histogram" && !/^#/ && !done { $1 = -2147483648; done = 1 } { print }' bias.txt > bias-intmin.txt
t wham-gpu-int-min-parses 65 "wham-gpu bias-intmin.txt"
says wham-gpu-int-min-parses 'bin -2147483648'

# a ln c so large that a double beside it cannot move by --tol: refused
# before the solver, which went round its million iterations on it
for v in 1e30 1e300 -1e30 1e9; do
	awk -v v=$v '/^#KIND/ { k = $2; n = 0 } k == "logbias" && !/^#/ { if (++n == 3 && !done) { $0 = v; done = 1 } } { print }' bias.txt > bias-lnc$v.txt
	T_TIMEOUT=60 t wham-gpu-lnc-$v 65 "wham-gpu bias-lnc$v.txt"
	says wham-gpu-lnc-$v 'ln c .*cannot be resolved to --tol'
done
awk '/^#KIND/ { k = $2; n = 0 } k == "logbias" && !/^#/ { if (++n == 3 && !done) { $0 = -1e8; done = 1 } } { print }' bias.txt > bias-lnc-1e8.txt
t wham-gpu-lnc-1e8 0 'wham-gpu bias-lnc-1e8.txt > /dev/null'
t wham-gpu-lnc-1e9-tol 0 'wham-gpu --tol 1 bias-lnc1e9.txt > /dev/null'

# pmf -z: a point is finite coordinates
for z in nan inf -inf; do
	t_usage pmf-z-$z "pmf -z $z < prob1.bin"
done

# every line is read with a bound (fek(5): a header line is at most 65535
# bytes, any other at most 1 MiB), so an endless line ends in 65 at once
# rather than in the memory of the machine; a NUL byte is not text
t histogram-endless-header 65 "{ printf '#FEK 1\n#KIND samples\n'; cat /dev/zero; } | histogram -b 10"
says histogram-endless-header 'line longer than 65535 bytes'
t histogram-endless-row 65 "{ sample-gen -T -p '0*x' -r -180:180:p -g 1 -k 0.002 -n 3; cat /dev/zero | tr '\\\\0' 1; } | histogram -b 10"
says histogram-endless-row 'line longer than 1048576 bytes'
sample-gen -T -p '0*x' -r -180:180:p -g 1 -k 0.002 -n 3 | sed '$d' > nulrow.txt
printf '1\0002\n' >> nulrow.txt
t pmf-nul-row 65 'histogram -b 10 < nulrow.txt'
says pmf-nul-row 'NUL byte'

# a directory where a file is expected cannot be opened: 66 in every tool
mkdir -p adir
for tool in bias-build wham-gpu pmf; do
	t $tool-directory 66 "$tool adir"
	t $tool-directory-stdin 66 "$tool < adir"
done
t histogram-m-directory 66 "histogram -b 0:1:10 -m adir"
t sample-gen-w-directory 66 "sample-gen -p '0*x' -r -180:180:p -w adir -n 10"
