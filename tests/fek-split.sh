# tests/fek-split.sh - scripts/fek-split, which cuts a fek(5) stream into
# shards of whole sections (pipelines/lj-widom's SHARDS): md-gpu frames,
# binary and text twin and both mixed, in ranges as common.mk's
# shard_ranges writes them, concatenated back to the same bytes; tpi-gpu
# on the shards joined by cat gives one run's output (#PROV aside); a
# binary section of ROWS ? in blocks; bad ranges, streams cut short or
# malformed, usage.
. "$(dirname "$0")/lib.sh"

S=$TOP/scripts/fek-split
if ! have python3; then
	skip fek-split "no python3"
	exit 0
fi
# 10 frames of 256 LJ particles (tpi-gpu(1)'s example state)
md-gpu -d cpu --lattice fcc:4 --density 0.5 -t 1.5 -i baoab --rc 3 --tail \
	-N 200 -n 1000 -e 100 -s 3 > frames.fek 2> /dev/null
md-gpu -d cpu --lattice fcc:4 --density 0.5 -t 1.5 -i baoab --rc 3 --tail \
	-N 200 -n 1000 -e 100 -s 3 -T > frames.txt 2> /dev/null
ranges() { awk -v n=$1 -v s=$2 'BEGIN { c = int((n + s - 1) / s); for (k = 0; k * c < n; k++) print k, k * c, (n - k * c < c ? n - k * c : c) }'; }
ranges 10 3 > r3
t split-binary 0 "$S r3 frames.fek 'b.{1}.fek' && cat b.0.fek b.1.fek b.2.fek | cmp - frames.fek"
t split-binary-sizes 0 "test -s b.0.fek && test -s b.2.fek && test \$(wc -c < b.2.fek) -lt \$(wc -c < b.0.fek)"
t split-text 0 "$S r3 frames.txt 't.{1}.txt' && cat t.0.txt t.1.txt t.2.txt | cmp - frames.txt"
t split-text-frames 0 "test \$(grep -c '^#FEK' t.0.txt) = 4 && test \$(grep -c '^#FEK' t.2.txt) = 2"
# mixed: the binary frames then the text ones, 20 sections in 2 shards
cat frames.fek frames.txt > mixed
ranges 20 2 > r2
t split-mixed 0 "$S r2 mixed 'm.{1}' && cat m.0 m.1 | cmp - mixed && cmp m.0 frames.fek && cmp m.1 frames.txt"
# what the pipeline needs: tpi-gpu over the shards, joined, is one run
t split-tpi 0 "for k in 0 1 2; do tpi-gpu -d cpu -n 2000 -T b.\$k.fek > tpi.\$k || exit 1; done; cat tpi.0 tpi.1 tpi.2 | grep -v '^#PROV' > shards.txt && tpi-gpu -d cpu -n 2000 -T frames.fek | grep -v '^#PROV' | cmp - shards.txt"
# a binary section in blocks (ROWS ?): 2 rows, 1 row, the end; then one of ROWS 1
{
	printf '\223FEK 1\nKIND samples\nROWS ?\nCOL x f64\nCOL n i32\nEND\n'
	printf '\002\0\0\0\0\0\0\0'; head -c 24 /dev/zero
	printf '\001\0\0\0\0\0\0\0'; printf '\nEND\n#FEK 1\n'
	printf '\0\0\0\0\0\0\0\0'
} > blocks.fek
{ cat blocks.fek; printf '\223FEK 1\nKIND samples\nROWS 1\nCOL x f64\nEND\n\nEND\n#FE'; } > two.fek
printf '0 0 1\n1 1 1\n' > r11
t split-blocks 0 "$S r11 two.fek 'x.{1}' && cmp x.0 blocks.fek && cat x.0 x.1 | cmp - two.fek"
# bad input
printf '0 0 4\n1 4 5\n' > r9
t split-uncovered 65 "$S r9 frames.fek 'u.{1}'"
says split-uncovered 'section 9 is in no range'
ranges 12 2 > r12
t split-beyond 65 "$S r12 frames.fek 'v.{1}'"
says split-beyond '10 sections, the ranges cover 12'
head -c 10000 frames.fek > short.fek
ranges 1 1 > r1
t split-short 65 "$S r1 short.fek 'w.{1}'"
says split-short 'section 1: payload cut short'
head -c 200 frames.fek | head -n 5 > nohead.fek
t split-no-end 65 "$S r1 nohead.fek 'w.{1}'"
says split-no-end 'header without END'
printf 'hello\n' > junk
t split-junk 65 "$S r1 junk 'w.{1}'"
says split-junk 'not the start of a section'
: > empty
t split-empty 65 "$S r1 empty 'w.{1}'"
printf '0 0 x\n' > rbad
t split-bad-ranges 64 "$S rbad frames.fek 'w.{1}'"
printf '0 0 4\n1 3 4\n' > rtwice
t split-twice 64 "$S rtwice frames.fek 'w.{1}'"
says split-twice 'section 3 already in shard 0'
t split-no-brace 64 "$S r3 frames.fek w.fek"
t split-usage 64 "$S r3 frames.fek"
t split-no-file 66 "$S r3 nonexistent 'w.{1}'"
t split-no-ranges 66 "$S nonexistent frames.fek 'w.{1}'"
t split-unwritable 74 "$S r3 frames.fek 'nodir/w.{1}'"
