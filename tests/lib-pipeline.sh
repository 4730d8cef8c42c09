# tests/lib-pipeline.sh - make check runs each pipeline's check-small
# (pipelines/NAME/Makefile: the whole chain on the CPU at a small size,
# its result checked against a tolerance, and where the work splits the
# same chain in two shards through GNU parallel over tests/ssh-shim, byte
# for byte).  The pipeline runs in a scratch copy of the tree (its own
# directory and common.mk copied; bin, scripts, tests and testdata linked),
# so its outputs never land in the source tree.
#
#   pipeline_check_small NAME [MAKE-VARIABLES...]
#
# A pass needs exit 0 and the last line "check-small: ok: ..."; exit 69
# (a program the pipeline needs is missing) is a skip.  The run's wall
# time is printed, for bench/RESULTS.md's cost table.
# pipeline_copy NAME: the scratch copy, fek/pipelines/NAME (the tree's
# bin, scripts, tests, testdata and man linked beside it)
pipeline_copy() {
	mkdir -p fek/pipelines
	for d in bin scripts tests testdata man; do
		ln -sfn "$( [ $d = bin ] && echo "$BIN" || echo "$TOP/$d")" fek/$d
	done
	cp "$TOP/pipelines/common.mk" fek/pipelines/
	rm -rf "fek/pipelines/$1"
	cp -r "$TOP/pipelines/$1" fek/pipelines/
	rm -rf "fek/pipelines/$1/out"
}

pipeline_check_small() {
	local name=$1 rc t0 t1 last
	shift
	pipeline_copy "$name"
	t0=$(date +%s)
	timeout -k 10 "${T_TIMEOUT:-300}" make -s --no-print-directory \
	    -C "fek/pipelines/$name" check-small > "$name.out" 2> "$name.err" < /dev/null
	rc=$?
	t1=$(date +%s)
	echo "pipelines/$name: make check-small: exit $rc in $((t1 - t0)) s"
	last=$(tail -n 1 "$name.out")
	echo "pipelines/$name: $last"
	if [ "$rc" = 69 ]; then
		skip "pipeline-$name" "$(tail -n 1 "$name.err")"
		return
	fi
	if [ "$rc" != 0 ]; then
		fail "pipeline-$name" "exit $rc: $(tail -n 1 "$name.err")"
		return
	fi
	case $last in
	"check-small: ok: "*) pass "pipeline-$name" ;;
	*) fail "pipeline-$name" "last line not 'check-small: ok: ...': $last" ;;
	esac
}
