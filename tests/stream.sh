# tests/stream.sh: the fek stream format (lib/stream/stream.c, fek(5)) as the
# tools see it: text/binary round trips, concatenation, the ROWS ? block
# form, and the strict reader's one-line errors.
. "$(dirname "$0")/lib.sh"

# The header lines of the first section of a stream (binary or text), with
# the text twin's '#' and every PROV line removed.
header() {
	LC_ALL=C awk 'NR == 1 { next } { sub(/^#/, "") }
	    /^PROV / { next } /^END$/ { exit } { print }' "$1"
}
# The data lines of a text stream (no '#' lines, no blank lines).
data() {
	grep -v '^#' "$1" | grep -v '^$'
}
# Every line of a text stream but PROV lines.
noprov() {
	grep -v '^#PROV ' "$1"
}

# ---- binary and text twins of the same samples ----------------------------
sample-gen -p '0*x' -r -2:2 -g 3 -k 1 -n 50 -s 7 > s.bin
sample-gen -p '0*x' -r -2:2 -g 3 -k 1 -n 50 -s 7 -T > s.txt
FEK_TEXT=1 sample-gen -p '0*x' -r -2:2 -g 3 -k 1 -n 50 -s 7 > s.env
ok twin-magic-binary sh -c "LC_ALL=C head -n 1 s.bin | od -An -c | grep -q '223   F   E   K       1'"
ok twin-magic-text test "$(head -n 1 s.txt)" = "#FEK 1"
noprov s.txt > s.txt.np
noprov s.env > s.env.np
same_file twin-fek-text-env s.txt.np s.env.np
header s.bin > h.bin
header s.txt > h.txt
same_file twin-same-header h.bin h.txt
# the payload of the last section: 50 little-endian f64 = 400 bytes
od -An -t f8 -v -j $(( $(stat -c %s s.bin) - 400 )) s.bin | tr -s ' ' '\n' |
    grep -v '^$' > tail.bin
data s.txt | tail -n 50 > tail.txt
numcmp_files twin-same-payload tail.bin tail.txt 1e-16 0
ok twin-payload-size test "$(wc -l < tail.bin)" -eq 50

# histogram reads both forms to the same result
t twin-hist-bin 0 'histogram -b 8 -T < s.bin > hb.txt'
t twin-hist-txt 0 'histogram -b 8 -T < s.txt > ht.txt'
noprov hb.txt > hb.np
noprov ht.txt > ht.np
same_file twin-hist-same hb.np ht.np

# ---- round trip through a pass-through tool (bias-build) ------------------
# Counts chosen so that the shortest exact spelling is known: the text
# writer must give back the very same strings after text -> binary -> text.
cat > hist.txt <<'EOF'
#FEK 1
#KIND histogram
#ROWS 5
#COL bin i64 1
#COL count f64 1
#WINDOW 0.25 2
#TEMP 300
#ENERGY kcal/mol
#AXIS x -1 1 open nm
#BINS 8
#NOTE a key no tool knows, carried through
#END
0 0.1
1 1e-300
2 12345678.901234567
5 3
7 2.5e-07
EOF
t rt-text-in 0 'bias-build -T < hist.txt > rt1.txt'
t rt-bin-mid 0 'bias-build < hist.txt > rt.bin'
t rt-text-out 0 'bias-build -T < rt.bin > rt2.txt'
noprov rt1.txt > rt1.np
noprov rt2.txt > rt2.np
same_file rt-text-bin-text rt1.np rt2.np
awk '/^#FEK/ { s++ } s == 1 && !/^#/' rt2.txt > rt-payload
data hist.txt > hist-payload
same_file rt-payload-exact hist-payload rt-payload
ok rt-unknown-key-kept grep -qx '#NOTE a key no tool knows, carried through' rt2.txt
ok rt-prov-appended test "$(grep -c '^#PROV bias-build' rt2.txt)" -ge 2

# f32 and i32 columns: read, carried with their types, written back
cat > h32.txt <<'EOF'
#FEK 1
#KIND histogram
#ROWS 3
#COL bin i32 1
#COL count f32 1
#WINDOW 0 1
#TEMP 300
#ENERGY kcal/mol
#AXIS x -1 1 open 1
#BINS 4
#END
0 0.5
2 1024.25
3 0.125
EOF
t rt32 0 'bias-build < h32.txt | bias-build -T > h32.out'
ok rt32-types sh -c "grep -qx '#COL bin i32 1' h32.out && grep -qx '#COL count f32 1' h32.out"
awk '/^#FEK/ { s++ } s == 1 && !/^#/' h32.out > h32.payload
data h32.txt > h32.want
same_file rt32-payload h32.want h32.payload
# 3 rows of 4 + 4 bytes between the END line and the next section
bias-build < h32.txt > h32.bin 2> /dev/null
end=$(LC_ALL=C grep -obUa '^END$' h32.bin | head -n 1 | cut -d: -f1)
next=$(LC_ALL=C grep -obUaP '\x93FEK 1' h32.bin | sed -n 2p | cut -d: -f1)
near rt32-row-bytes "$(( next - end - 4 ))" 24 0

# ---- concatenation is union ------------------------------------------------
P='0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))'
sample-gen -p "$P" -r -180:180:p -g 6 -k 0.002 -n 1500 -s 3 | histogram -b 24 |
    bias-build > all.bin
sample-gen -p "$P" -r -180:180:p -g 6 -k 0.002 -n 1500 -s 3 -j 1:2 |
    histogram -b 24 | bias-build > a.bin
sample-gen -p "$P" -r -180:180:p -g 6 -k 0.002 -n 1500 -s 3 -j 3:6 |
    histogram -b 24 | bias-build > b.bin
bias-build -T < a.bin > a.txt
t cat-whole 0 'wham-gpu -T < all.bin > w-all.txt'
t cat-pipe 0 'cat a.bin b.bin | wham-gpu -T > w-cat.txt'
t cat-operands 0 'wham-gpu -T a.bin b.bin > w-ops.txt'
t cat-mixed-forms 0 'cat a.txt b.bin | wham-gpu -T > w-mix.txt'
numcmp_files cat-equals-one-run w-all.txt w-cat.txt 0 0
numcmp_files cat-operands-equal w-all.txt w-ops.txt 0 0
numcmp_files cat-mixed-equal w-all.txt w-mix.txt 0 0
ok cat-six-windows grep -qx '#WINDOWS 6' w-cat.txt
# text after text: two text streams concatenated
bias-build -T < b.bin > b.txt
t cat-text-text 0 'cat a.txt b.txt | wham-gpu -T > w-tt.txt'
numcmp_files cat-text-text-equal w-all.txt w-tt.txt 0 0

# ---- ROWS ? (payload in blocks) ----------------------------------------------
# No tool writes it (every tool knows its row count when it writes), so the
# reader is checked with hand-made bytes: blocks of 2 and 1 rows, the 0
# block, then a second (text) section.
if grep -q 'rows = -1\|ROWS ?' "$TOP"/tools/*.c "$TOP"/tools/*/*.c \
    "$TOP"/lib/*/*_output.c 2> /dev/null; then
	skip rows-unknown-writer "a tool may write ROWS ?: add a writer test"
else
	skip rows-unknown-writer "no tool writes ROWS ? (all know their row counts)"
fi
D05='\000\000\000\000\000\000\340\077'	# 0.5
D15='\000\000\000\000\000\000\370\077'	# 1.5
DM05='\000\000\000\000\000\000\340\277'	# -0.5
N2='\002\000\000\000\000\000\000\000'
N1='\001\000\000\000\000\000\000\000'
N0='\000\000\000\000\000\000\000\000'
hdr='KIND samples\nROWS ?\nCOL x f64 1\nAXIS x -2 2 open 1\nWINDOW 0 1\nTEMP 300\nENERGY kcal/mol\nEND\n'
printf "\\223FEK 1\\n$hdr$N2$D05$D15$N1$DM05$N0" > blocks.bin
printf '#FEK 1\n#KIND samples\n#ROWS ?\n#COL x f64 1\n#AXIS x -2 2 open 1\n#WINDOW 1 1\n#TEMP 300\n#ENERGY kcal/mol\n#END\n1.9\n-1.9\n\n-1.5\n' > blocks2.txt
cat blocks.bin blocks2.txt > blocks-cat
t rows-unknown-read 0 'histogram -b 4 -T < blocks-cat > blocks.out'
data blocks.out > blocks.data
printf '1 1\n2 1\n3 1\n0 2\n3 1\n' > blocks.want
same_file rows-unknown-counts blocks.want blocks.data
printf "\\223FEK 1\\n$hdr$N2$D05$D15$N1$DM05" > noend.bin
t rows-unknown-no-0-block 65 'histogram -b 4 < noend.bin'
ok rows-unknown-no-0-block-msg grep -q 'truncated' rows-unknown-no-0-block.err
printf "\\223FEK 1\\n$hdr$N2$D05" > shortblock.bin
t rows-unknown-short-block 65 'histogram -b 4 < shortblock.bin'

# ---- the strict reader -------------------------------------------------------
# A good text section to break in various ways (2-D samples).
good() {
	printf '#FEK 1\n#KIND samples\n#ROWS 3\n#COL x f64 1\n#COL y f64 1\n'
	printf '#AXIS x 0 1 open 1\n#AXIS y 0 1 open 1\n#WINDOW 0.5 0.5 1 1\n'
	printf '#TEMP 300\n#ENERGY kcal/mol\n#END\n0.1 0.2\n0.3 0.4\n0.5 0.6\n'
}
good > good.txt
t strict-good 0 'histogram -b 2 -b 2 < good.txt > /dev/null'

histogram -b 2 -b 2 -T < good.txt | grep -v '^#PROV' > good.out
# CRLF line ends, tabs between columns, comments among and after rows
sed 's/$/\r/' good.txt > crlf.txt
t reader-crlf 0 'histogram -b 2 -b 2 -T < crlf.txt | grep -v "^#PROV" > crlf.out'
same_file reader-crlf-same good.out crlf.out
good | sed 's/^0.3 0.4$/0.3\t\t0.4   # a trailing comment/; s/^0.5 0.6$/# a comment row\n  0.5 0.6/' > tabs.txt
t reader-tabs-comments 0 'histogram -b 2 -b 2 -T < tabs.txt | grep -v "^#PROV" > tabs.out'
same_file reader-tabs-comments-same good.out tabs.out
sed 's/^#FEK 1$/#FEX 1/' good.txt > magic.txt
t strict-wrong-magic-text 65 'histogram -b 2 -b 2 < magic.txt'
ok strict-wrong-magic-text-msg grep -q 'magic' strict-wrong-magic-text.err
printf '\223FEX 1\nKIND samples\n' > magic.bin
t strict-wrong-magic-binary 65 'histogram -b 2 -b 2 < magic.bin'
printf 'x y\n0.1 0.2\n' > plain.txt
t strict-headerless 65 'histogram -b 2 -b 2 < plain.txt'
sed 's/^#FEK 1$/#FEK 2/' good.txt > v2.txt
t strict-version-2 65 'histogram -b 2 -b 2 < v2.txt'
ok strict-version-2-msg grep -q 'version 2' strict-version-2.err
printf '\223FEK 2\nKIND samples\nEND\n' > v2.bin
t strict-version-2-binary 65 'histogram -b 2 -b 2 < v2.bin'
good | grep -v '^#END$' > noend.txt
t strict-missing-end-text 65 'histogram -b 2 -b 2 < noend.txt'
ok strict-missing-end-text-msg grep -q 'END' strict-missing-end-text.err
printf '\223FEK 1\nKIND samples\nROWS 1\nCOL x f64 1\n' > noend2.bin
t strict-missing-end-binary 65 'histogram -b 2 < noend2.bin'
ok strict-missing-end-binary-msg grep -q 'END' strict-missing-end-binary.err

# truncated binary payload, alone and as the second section
sample-gen -p '0*x' -r -2:2 -g 2 -k 1 -n 20 > two.bin
head -c $(( $(stat -c %s two.bin) - 3 )) two.bin > trunc.bin
t strict-truncated 65 'histogram -b 4 < trunc.bin'
ok strict-truncated-msg grep -q 'section 2: truncated payload: 19 of 20 rows' strict-truncated.err
sample-gen -p '0*x' -r -2:2 -g 1 -k 1 -n 20 > one.bin
head -c $(( $(stat -c %s one.bin) - 160 )) one.bin > trunc1.bin
t strict-truncated-first 65 'histogram -b 4 < trunc1.bin'
ok strict-truncated-first-msg grep -q 'section 1: truncated payload: 0 of 20 rows' strict-truncated-first.err
# too few text rows for ROWS, and too many
good | sed '$d' > short.txt
t strict-text-short 65 'histogram -b 2 -b 2 < short.txt'
ok strict-text-short-msg grep -q '2 of 3 rows' strict-text-short.err
{ good; echo '0.7 0.8'; } > long.txt
t strict-text-long 65 'histogram -b 2 -b 2 < long.txt'

good | sed 's/^0.3 0.4$/0.3/' > cols.txt
t strict-text-too-few-columns 65 'histogram -b 2 -b 2 < cols.txt'
ok strict-text-too-few-columns-msg grep -q 'row 2 (line 13): 1 columns, expected 2' strict-text-too-few-columns.err
good | sed 's/^0.3 0.4$/0.3 0.4 0.5/' > cols3.txt
t strict-text-too-many-columns 65 'histogram -b 2 -b 2 < cols3.txt'
ok strict-text-too-many-columns-msg grep -q 'row 2' strict-text-too-many-columns.err
good | sed 's/^0.5 0.6$/0.5 nan/' > nan.txt
t strict-text-nan 65 'histogram -b 2 -b 2 < nan.txt'
ok strict-text-nan-msg grep -q 'row 3 (line 14): column 2: NaN' strict-text-nan.err
good | sed 's/^0.3 0.4$/abc 0.4/' > abc.txt
t strict-text-abc 65 'histogram -b 2 -b 2 < abc.txt'
ok strict-text-abc-msg grep -q "row 2.*'abc' is not a number" strict-text-abc.err
good | sed 's/^0.3 0.4$/0.3x 0.4/' > num-junk.txt
t strict-text-number-junk 65 'histogram -b 2 -b 2 < num-junk.txt'
# the second section of a concatenation is named
{ good; good | sed 's/^0.5 0.6$/0.5 nan/'; } > nan2.txt
t strict-second-section 65 'histogram -b 2 -b 2 < nan2.txt'
ok strict-second-section-msg grep -q 'section 2: row 3' strict-second-section.err

good | grep -v '^#KIND' > nokind.txt
t strict-missing-kind 65 'histogram -b 2 -b 2 < nokind.txt'
ok strict-missing-kind-msg grep -q 'KIND' strict-missing-kind.err
good | grep -v '^#ROWS' > norows.txt
t strict-missing-rows 65 'histogram -b 2 -b 2 < norows.txt'
ok strict-missing-rows-msg grep -q 'ROWS' strict-missing-rows.err
good | grep -v '^#COL' > nocol.txt
t strict-missing-col 65 'histogram -b 2 -b 2 < nocol.txt'
ok strict-missing-col-msg grep -q 'COL' strict-missing-col.err
good | sed 's/^#COL y f64 1$/#COL y f65 1/' > badtype.txt
t strict-bad-col-type 65 'histogram -b 2 -b 2 < badtype.txt'
good | sed 's/^#ROWS 3$/#ROWS three/' > badrows.txt
t strict-bad-rows 65 'histogram -b 2 -b 2 < badrows.txt'
good | sed 's/^#TEMP 300$/#temp 300/' > badkey.txt
t strict-bad-key 65 'histogram -b 2 -b 2 < badkey.txt'
# an i64 column holding a fraction
sed 's/^5 3$/5 3/; s/^2 12345678.901234567$/2.5 1/' hist.txt > frac.txt
t strict-i64-fraction 65 'bias-build < frac.txt'
ok strict-i64-fraction-msg grep -q 'not an i64 integer' strict-i64-fraction.err

: > empty
t strict-empty 65 'histogram -b 2 < empty'
ok strict-empty-msg grep -q 'empty' strict-empty.err
t strict-empty-stdin 65 'histogram -b 2'
t strict-no-such-file 66 'histogram -b 2 no-such-file'
ok strict-no-such-file-msg grep -q 'no-such-file' strict-no-such-file.err
