# tests/samerows.sh - scripts/fek-samerows, the pipelines' check that
# shards joined by cat hold one run's rows: the same rows cut into two
# sections (binary and text) pass; a changed key, a changed or missing
# byte of the rows, a header without END and usage errors fail.
. "$(dirname "$0")/lib.sh"

S=$TOP/scripts/fek-samerows
# one run of 6 trajectories, and the same in shards of 4 and 2 (md-gpu's
# -j ranges of milestones concatenate to one run's rows)
MS="-d cpu -p dw:2 -r -1.5:1.5 -E kT -M -1.5:1:0.25 -R 2 -H 0.001 -s 3"
md-gpu $MS -j 1:3 > one.fek
md-gpu $MS -j 1:2 > a.fek
md-gpu $MS -j 3:3 > b.fek
cat a.fek b.fek > ab.fek
t samerows-binary 0 "$S one.fek ab.fek"
t samerows-itself 0 "$S one.fek one.fek"
md-gpu $MS -j 1:3 -T > one.txt
{ md-gpu $MS -j 1:2 -T; md-gpu $MS -j 3:3 -T; } > ab.txt
t samerows-text 0 "$S one.txt ab.txt"
# failures: the other seed's rows, a key, a byte cut, a shard left out
md-gpu $MS -j 3:3 -s 4 > b4.fek
cat a.fek b4.fek > ab4.fek
t samerows-other-rows 1 "$S one.fek ab4.fek"
says samerows-other-rows 'rows differ'
md-gpu -d cpu -p dw:2 -r -1.5:1.5 -E kT -M -1.5:1:0.25 -R 2 -H 0.002 -s 3 -j 3:3 > bh.fek
cat a.fek bh.fek > abh.fek
t samerows-other-key 1 "$S one.fek abh.fek"
says samerows-other-key "section 2's keys differ"
head -c -1 ab.fek > cut.fek
t samerows-cut 1 "$S one.fek cut.fek"
t samerows-missing-shard 1 "$S one.fek a.fek"
t samerows-text-vs-binary 1 "$S one.fek ab.txt"
printf '#FEK 1\n#KIND x\n' > noend.txt
t samerows-no-end 65 "$S one.txt noend.txt"
t samerows-no-file 66 "$S one.fek nonexistent"
t samerows-usage 64 "$S one.fek"
