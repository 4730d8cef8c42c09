# tests/fanout.sh - scripts/fek-fanout, the pipelines' fan-out: shards
# run by GNU parallel on this machine and over ssh (tests/ssh-shim as
# parallel's --ssh: the ssh command line, run here), the fields and the
# shard number substituted, the variables passed, a failing shard's
# status returned, one shard a GPU by CUDA_VISIBLE_DEVICES, and usage
# errors.  The pipelines' own fan-out checks are their check-small
# targets (tests/pipelines-NAME.sh).
. "$(dirname "$0")/lib.sh"

F=$TOP/scripts/fek-fanout
t_usage fanout-no-args "$F"
t fanout-bad-launch 64 "$F -L pbs /dev/null true"
says fanout-bad-launch 'pbs: not local or slurm'
t fanout-bad-gpus 64 "$F -g x /dev/null true"
t fanout-no-file 66 "$F nonexistent 'true'"
says fanout-no-file 'nonexistent: cannot read'
: > empty
t fanout-empty 66 "$F empty 'true'"
if ! have parallel; then
	skip fanout "no GNU parallel (scripts/install-deps check)"
	exit 0
fi
printf '0 0 4\n1 4 4\n2 8 2\n' > ranges
# each shard writes its own file; joined by cat in order
want() { printf 'shard %s first %s count %s n %s x %s\n' 1 0 4 1 7 2 4 4 2 7 3 8 2 3 7; }
want > want.txt
t fanout-local 0 "FEK_X=7 $F ranges 'echo shard {#} first {2} count {3} n \$(({1} + 1)) x \$FEK_X > part.{1}' && cat part.0 part.1 part.2 > local.txt"
t fanout-local-bytes 0 "cmp local.txt want.txt"
rm -f part.*
# over ssh: two hosts, a job a host at a time, every shard through the shim
export FEK_SSH_LOG=$TMP/ssh.log
mkdir sub
t fanout-ssh 0 "cd sub && FEK_X=7 PARALLEL_FLAGS='--ssh $TOP/tests/ssh-shim -S 1/nodeA,1/nodeB' $F ../ranges 'echo shard {#} first {2} count {3} n \$(({1} + 1)) x \$FEK_X > part.{1}' && cat part.0 part.1 part.2 > ../ssh.txt"
t fanout-ssh-bytes 0 "cmp ssh.txt want.txt"
t fanout-ssh-used 0 "test \$(grep -c -E '^node[AB] ' ssh.log) -ge 3"
t fanout-ssh-both 0 "grep -q '^nodeA ' ssh.log && grep -q '^nodeB ' ssh.log"
unset FEK_SSH_LOG
# parallel names the directory relative to $HOME where it lies under it,
# and sshd starts in $HOME: the shards land here whatever HOME is (a
# home above this directory, or none, as on some CI runners)
rm -f sub/part.*
t fanout-ssh-under-home 0 "cd sub && HOME=$TMP PARALLEL_FLAGS='--ssh $TOP/tests/ssh-shim -S 1/nodeA,1/nodeB' $F ../ranges 'echo shard {#} first {2} count {3} n \$(({1} + 1)) x 7 > part.{1}' && cat part.0 part.1 part.2 | cmp - ../want.txt"
rm -f sub/part.*
t fanout-ssh-no-home 0 "cd sub && env -u HOME PARALLEL_FLAGS='--ssh $TOP/tests/ssh-shim -S 1/nodeA,1/nodeB' $F ../ranges 'echo shard {#} first {2} count {3} n \$(({1} + 1)) x 7 > part.{1}' && cat part.0 part.1 part.2 | cmp - ../want.txt"
t fanout-ssh-no-home-quiet 0 "test ! -s $TMP/fanout-ssh-no-home.err"
# a CI runner's environment may have no SHELL; sshd gives the remote
# side the login shell whatever the caller has
rm -f sub/part.*
t fanout-ssh-no-shell 0 "cd sub && env -u SHELL PARALLEL_FLAGS='--ssh $TOP/tests/ssh-shim -S 1/nodeA,1/nodeB' $F ../ranges 'echo shard {#} first {2} count {3} n \$(({1} + 1)) x 7 > part.{1}' && cat part.0 part.1 part.2 | cmp - ../want.txt"
# a failing shard: its status, and a message naming it
t fanout-fail 3 "$F ranges 'test {1} != 1 || exit 3'"
says fanout-fail 'fek-fanout: a shard failed: test 1 != 1'
# GPUs: slots 1..4 on two cards -> devices 0 1 0 1, never more than one
# shard a card at a time (-j = the cards)
printf '%s\n' 0 1 2 3 > four
t fanout-gpus 0 "$F -g 2 four 'echo \$CUDA_VISIBLE_DEVICES > dev.{1}' && cat dev.0 dev.1 dev.2 dev.3 | sort | uniq -c | awk '{ printf \"%s:%s \", \$2, \$1 }' > devs.txt"
t fanout-gpus-both 0 "test \"\$(cat devs.txt)\" = '0:2 1:2 '"
# the join runs once, after every shard
t fanout-join 0 "$F -J 'cat part.0 part.1 part.2 > joined.txt' ranges 'echo shard {#} first {2} count {3} n \$(({1} + 1)) x 7 > part.{1}'"
t fanout-join-bytes 0 "cmp joined.txt want.txt"
rm -f joined.txt
t fanout-join-not-after-failure 3 "$F -J 'touch joined.txt' ranges 'test {1} != 1 || exit 3'"
t fanout-join-not-run 0 "test ! -e joined.txt"
# over ssh the login list's slots hold: 1/nodeA,1/nodeB runs two shards
# at a time (job slots 1 and 2 only), not all four at once
t fanout-ssh-slots 0 "PARALLEL_FLAGS='--ssh $TOP/tests/ssh-shim -S 1/nodeA,1/nodeB' $F four 'echo {%} > slot.{1}' && test \"\$(cat slot.0 slot.1 slot.2 slot.3 | sort -u | tr '\n' ' ')\" = '1 2 '"
t_usage fanout-bad-option "$F -x four true"
