# tests/slurm.sh - the fan-out under Slurm, live (scripts/fek-slurm, run
# by scripts/fek-fanout -L slurm and the pipelines' LAUNCH=slurm): the
# shards as one job array give the bytes GNU parallel gives here, the
# join runs after every shard, a failing shard stops the run with its
# status and one line naming it (the join not run), SBATCH_FLAGS and GPUS
# reach sbatch, and a sample-gen | histogram | bias-build | wham-gpu | pmf
# chain sharded over windows through a Makefile on pipelines/common.mk
# (make LAUNCH=slurm SHARDS=3) matches the unsharded chain byte for byte,
# and so do pipelines/wham-butane-1d and wham-2d (windows),
# milestoning-1d (milestones), lj-widom (frames) and bd-barnase-barstar
# (trajectories) in two shards under LAUNCH=slurm, PROV aside.
#
# The cluster: scripts/slurm-local's one-node Slurm, started here when
# this runs as root with slurm-wlm and munge installed (scripts/install-
# deps cluster) and stopped at the end if this started it; or one already
# up, when it is slurm-local's, or any other when FEK_SLURM_TEST=1 (then
# jobs go where SBATCH_FLAGS, if set, says).  Otherwise skipped, one
# line.
. "$(dirname "$0")/lib.sh"

F=$TOP/scripts/fek-fanout
S=$TOP/scripts/fek-slurm
L=$TOP/scripts/slurm-local

# usage, before any Slurm is needed
t_usage slurm-no-args "$S"
t_usage slurm-bad-option "$S -x a b"
t slurm-no-file 66 "$S nonexistent true"
says slurm-no-file 'nonexistent: cannot read'
: > empty
t slurm-empty 66 "$S empty true"
t slurm-bad-gpus 64 "GPUS=x $S empty true"
t_usage slurm-local-usage "$L restart"

if ! have sbatch; then
	skip slurm "no Slurm here (scripts/install-deps cluster)"
	exit 0
fi
started=0
# a controller that answers is one this script did not start (whatever
# its node's state just now)
if timeout 30 sinfo -h > /dev/null 2>&1; then
	if [ "${FEK_SLURM_TEST:-0}" != 1 ] && ! head -n 1 /etc/slurm/slurm.conf 2> /dev/null | grep -q 'scripts/slurm-local'; then
		skip slurm "a Slurm that is not scripts/slurm-local's is up: FEK_SLURM_TEST=1 to submit to it"
		exit 0
	fi
	for _ in 1 2 3 4 5; do "$L" status > /dev/null 2>&1 && break; sleep 2; done
	if ! why=$("$L" status 2>&1); then
		skip slurm "$why"
		exit 0
	fi
elif [ "$(id -u)" != 0 ]; then
	skip slurm "no Slurm node up, and not root to start scripts/slurm-local"
	exit 0
elif ! why=$("$L" start 2>&1); then
	skip slurm "scripts/slurm-local cannot start one: $why"
	exit 0
else
	started=1
fi
# (the script's status kept for lib.sh's _t_exit)
[ "$started" = 1 ] && trap 'rc=$?; "$L" stop; (exit $rc); _t_exit' EXIT
# SBATCH_FLAGS: where a cluster needs them (FEK_SLURM_TEST=1), kept
export SBATCH_FLAGS=${SBATCH_FLAGS:-} GPUS=0

# the bytes: fields with the shell's characters, an empty and a missing
# field, {} and {#}, substituted as GNU parallel does (-L local)
printf '%s\n' 'a b c' "x\$HOME 'q' *" 'e  f' 'g' > args
TPL='printf "[%s]" {1} {2} {3} {} {#} > part.{#}; echo $FEK_X >> part.{#}'
JOIN='cat part.1 part.2 part.3 part.4 > joined'
export FEK_X=fek-x
if have parallel; then
	t slurm-local-run 0 "$F -L local -J '$JOIN' args '$TPL' && mv joined local.txt && rm part.*"
	t slurm-run 0 "$F -L slurm -J '$JOIN' args '$TPL' && mv joined slurm.txt"
	same_file slurm-bytes-as-parallel local.txt slurm.txt
	# a template with no replacement string gets " {}", as parallel
	printf 'u v\n' > one
	t slurm-append-local 0 "$F -L local one 'printf \"<%s>\"' > append-local.txt"
	t slurm-append 0 "$F -L slurm one 'printf \"<%s>\"' > append-slurm.txt"
	same_file slurm-append-bytes append-local.txt append-slurm.txt
else
	skip slurm-bytes-as-parallel "no GNU parallel"
fi
# the known answer, written out: fields quoted, {} every field, {#} from
# 1, a field the line lacks nothing at all (not '')
printf '%s\n' '[a][b][c][a][b][c][1]fek-x' "[x\$HOME]['q'][*][x\$HOME]['q'][*][2]fek-x" \
    '[e][][f][e][][f][3]fek-x' '[g][g][4]fek-x' > want.txt
t slurm-known 0 "$F -L slurm -J '$JOIN' args '$TPL'"
same_file slurm-known-bytes joined want.txt
# success leaves no directory of logs
t slurm-tidy 0 "test ! -e .fek-slurm"

# the join runs once, after every shard: it sees all their files, and
# starts after the last one ended
printf '%s\n' 0 1 2 > three
t slurm-join 0 "$F -L slurm -J 'ls part3.* | wc -l > seen; date +%s.%N > join.t' three 'sleep 1; echo {1} > part3.{1}; date +%s.%N > end.{1}'"
ok slurm-join-saw-all test "$(tr -d ' ' < seen)" = 3
last=$(sort -g end.* | tail -n 1)
le slurm-join-after-shards "$last" "$(cat join.t)"

# a failing shard: its status, one line naming it (number and ARGS line),
# the join not run, the other jobs gone
printf '0 0 4\n1 4 4\n2 8 2\n' > ranges
t slurm-fail 3 "$F -L slurm -J 'touch joined.fail' ranges 'test {1} != 1 || exit 3'"
says slurm-fail '^fek-slurm: shard 2 of 3 failed \(exit 3\): ranges line 2: 1 4 4 \(logs: \.fek-slurm/ranges\.'
sleep 2
ok slurm-fail-no-join test ! -e joined.fail
ok slurm-fail-jobs-gone test -z "$(squeue -h -n fek:ranges,fek:ranges:join -o %i)"
# its stderr's last lines come before that line
t_pipe slurm-fail-stderr 0 "! $F -L slurm ranges 'echo shard {#} says why >&2; test {1} != 2 || exit 4' 2> fail.err"
ok slurm-fail-stderr-tail test "$(head -n 1 fail.err)" = 'shard 3 says why'
ok slurm-fail-stderr-line grep -q '^fek-slurm: shard 3 of 3 failed (exit 4)' fail.err
# ended by Slurm (scancel, as at a time limit): 128 + SIGTERM
# (its stderr: slurmstepd's lines, then fek-slurm's)
"$F" -L slurm ranges 'test {1} != 0 || scancel ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}; sleep 5' 2> cancel.err
ok slurm-cancelled test $? = 143
ok slurm-cancelled-says grep -q '^fek-slurm: shard 1 of 3 failed (exit 143): ranges line 1: 0 0 4' cancel.err
ok slurm-cancelled-slurmstepd grep -q 'CANCELLED' cancel.err
# killed (the task's shell by SIGKILL, as for memory): 128 + 9, from
# Slurm's record, the join not run
t slurm-killed 137 "$F -L slurm -J 'touch joined.killed' ranges 'test {1} != 2 || kill -9 \$PPID; sleep 2'"
says slurm-killed '^fek-slurm: shard 3 of 3 failed \(exit 137\): ranges line 3: 2 8 2'
ok slurm-killed-no-join test ! -e joined.killed
# a failing join
t slurm-join-fails 5 "$F -L slurm -J 'exit 5' ranges true"
says slurm-join-fails 'the join failed \(exit 5\): exit 5'
rm -rf .fek-slurm

# SBATCH_FLAGS reach both jobs; sbatch's refusal is one line, 69
t slurm-flags 0 "SBATCH_FLAGS='$SBATCH_FLAGS --job-name=fek-test-name' $F -L slurm -J 'echo join \$SLURM_JOB_NAME' three 'echo {1} \$SLURM_JOB_NAME' > names"
ok slurm-flags-tasks test "$(grep -c '^[012] fek-test-name$' names)" = 3
ok slurm-flags-join grep -qx 'join fek-test-name' names
t slurm-bad-partition 69 "SBATCH_FLAGS='$SBATCH_FLAGS -p no-such-partition' $F -L slurm three true"
says slurm-bad-partition '^fek-slurm: sbatch refused the array: .*partition'
# GPUS=1: each task asks --gres=gpu:1, which a node with no GPUs refuses;
# a --gres in SBATCH_FLAGS is left alone
if [ "$(sinfo -h -o %G | sort -u)" = '(null)' ]; then
	t slurm-gpus 69 "GPUS=1 $F -L slurm three true"
	says slurm-gpus 'gres'
	t slurm-gpus-flags 0 "GPUS=1 SBATCH_FLAGS='$SBATCH_FLAGS --gres=none' $F -L slurm three true"
else
	skip slurm-gpus "the cluster has GPUs"
fi

# a real chain through a pipeline's Makefile on pipelines/common.mk: the
# samples of 9 windows (sample-gen -j first:last) in SHARDS shards, joined
# by cat, then binned and solved; the same bytes as one sample-gen over
# every window (#PROV aside: it names -j)
awk 'BEGIN { for (c = -180; c <= 180; c += 45) print c, 0.001 }' > win.txt
echo "include $TOP/pipelines/common.mk" > Makefile
cat >> Makefile << 'EOF'
P = 0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))
GEN = sample-gen -p '$(P)' -r -180:180:p -w win.txt -n 2000 -t 300 -s 3
out/pmf.txt: win.txt
	mkdir -p out
ifeq ($(SHARDS),1)
	$(GEN) > out/s.fek
else
	$(call shard_ranges,$$(grep -c . win.txt),$(SHARDS)) > out/shards
	$(FANOUT) -J "cat $$(printf 'out/s.%s.fek ' $$(cut -d' ' -f1 out/shards))> out/s.fek" \
	    out/shards "$(GEN) -j \$$((1 + {2})):\$$(({2} + {3})) > out/s.{1}.fek"
endif
	histogram -b 24 < out/s.fek | bias-build | wham-gpu | pmf > $@.tmp && mv $@.tmp $@
EOF
noprov() { LC_ALL=C grep -av '^#\{0,1\}PROV ' "$1"; }
t slurm-chain-one 0 "make -s out/pmf.txt && mv out out1"
t slurm-chain 0 "make -s LAUNCH=slurm SHARDS=3 out/pmf.txt"
ok slurm-chain-shards test "$(wc -l < out/shards)" = 3
ok slurm-chain-sharded grep -aq 'sample-gen .* -j 4:6' out/s.fek
noprov out1/s.fek > one.fek
noprov out/s.fek > slurm.fek
same_file slurm-chain-samples one.fek slurm.fek
noprov out1/pmf.txt > one.pmf
noprov out/pmf.txt > slurm.pmf
same_file slurm-chain-pmf one.pmf slurm.pmf
# and a PMF near the formula that made the samples (2000 a window: 0.2
# kcal/mol is a few times the counting error)
t slurm-chain-rmsd 0 "rmsd -c 6kT -p '0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))' out/pmf.txt > rmsd.out"
le slurm-chain-rmsd-0.2 "$(awk '$1 == "RMSD" { print $2 }' rmsd.out)" 0.2

# the pipelines themselves (scratch copies, tests/lib-pipeline.sh) in two
# shards through LAUNCH=slurm against one run: wham-butane-1d over
# windows (the samples and the PMF), lj-widom over frames (tpi-gpu's
# output), milestoning-1d over milestones (at
# R = 4000 a milestone: the kernel and the kinetics; the records come a
# section a shard); PROV aside
. "$TOP/tests/lib-pipeline.sh"
pipeline_copy wham-butane-1d
pipeline_copy milestoning-1d
PB="make -s --no-print-directory -C fek/pipelines/wham-butane-1d"
PM="make -s --no-print-directory -C fek/pipelines/milestoning-1d R=4000 BOOT=50"
t slurm-butane-one 0 "$PB O=$TMP/b1 $TMP/b1/pmf.txt > /dev/null"
t slurm-butane 0 "$PB O=$TMP/b2 SHARDS=2 LAUNCH=slurm $TMP/b2/pmf.txt > /dev/null"
ok slurm-butane-sharded grep -aq -- '-j 5:7' b2/samples.fek
# same_runs NAME ONE TWO FILE...: each FILE the same in the folders ONE
# and TWO, PROV aside (results NAME-FILE)
same_runs() {
	local name=$1 one=$2 two=$3 f g
	shift 3
	for f in "$@"; do
		g=$(echo "$f" | tr / _)
		noprov $one/$f > $one.$g.np
		noprov $two/$f > $two.$g.np
		same_file $name-$g $one.$g.np $two.$g.np
	done
}
same_runs slurm-butane b1 b2 samples.fek pmf.txt
t slurm-milestoning-one 0 "$PM O=$TMP/m1 $TMP/m1/kinetics.txt > /dev/null"
t slurm-milestoning 0 "$PM O=$TMP/m2 SHARDS=2 LAUNCH=slurm $TMP/m2/kinetics.txt > /dev/null"
same_runs slurm-milestoning m1 m2 kernel.fek kinetics.txt
t slurm-milestoning-records 0 "$TOP/scripts/fek-samerows m1/records.fek m2/records.fek"
# lj-widom over frames (tpi-gpu a shard; scripts/fek-split), the frames
# of one MD run copied (times kept) so that only tpi-gpu runs again
pipeline_copy lj-widom
PL="make -s --no-print-directory -C fek/pipelines/lj-widom LATTICE=fcc:4 MELT=200 EQUIL=400 EVERY=50 FRAMES=6 INS=2000"
t slurm-ljwidom-one 0 "$PL OUT=$TMP/l1 $TMP/l1/tpi.txt > /dev/null"
t slurm-ljwidom 0 "mkdir -p l2 && cp -p l1/melt.fek l1/equil.fek l1/frames.fek l2/ && $PL OUT=$TMP/l2 SHARDS=2 LAUNCH=slurm $TMP/l2/tpi.txt > /dev/null"
ok slurm-ljwidom-sharded test -s l2/frames.1.fek
same_runs slurm-ljwidom l1 l2 tpi.txt
# wham-2d over windows (scripts/wham-2d-shard a shard): check-small's
# 19 x 19 windows, the histograms and the PMF
pipeline_copy wham-2d
PW="make -s --no-print-directory -C fek/pipelines/wham-2d W=19 B=30 NSAMP=5000"
t slurm-wham2d-one 0 "$PW O=$TMP/w1 SHARDS=1 result > /dev/null"
t slurm-wham2d 0 "$PW O=$TMP/w2 SHARDS=2 LAUNCH=slurm result > /dev/null"
ok slurm-wham2d-sharded test "$(grep -c '' w2/w19.shards)" = 2
same_runs slurm-wham2d w1 w2 w19-b30.hist w19-b30.pmf.txt
# bd-barnase-barstar over trajectories: check-small's size, the APBS
# grids made once (one run), copied, then the rates in two shards
if have apbs && [ -d /usr/share/apbs/examples/pbsam-barn_bars ]; then
	pipeline_copy bd-barnase-barstar
	PD="make -s --no-print-directory -C fek/pipelines/bd-barnase-barstar IONIC=0.15 N=20 DIME=65 DEVICE=cpu GNUPLOT=none"
	t slurm-bd-one 0 "$PD O=$TMP/d1 SHARDS=1 all > /dev/null"
	mkdir -p d2/0.15
	cp -p d1/*.pqr d2/ && cp -p d1/0.15/*.in d1/0.15/*.dx.gz d2/0.15/
	t slurm-bd 0 "$PD O=$TMP/d2 SHARDS=2 LAUNCH=slurm rates > /dev/null"
	ok slurm-bd-sharded grep -aq -- '-f 10 -n 10' d2/0.15/traj.fek
	t slurm-bd-traj 0 "$TOP/scripts/fek-samerows d1/0.15/traj.fek d2/0.15/traj.fek"
	same_runs slurm-bd d1 d2 0.15/rate.txt rates.txt
else
	skip slurm-bd "no apbs or apbs-data (scripts/install-deps check)"
fi
