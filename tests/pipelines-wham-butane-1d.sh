# tests/pipelines-wham-butane-1d.sh - make check runs pipelines/wham-butane-1d's check-small
# (tests/lib-pipeline.sh; what it checks: that Makefile's header).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-pipeline.sh"
pipeline_check_small wham-butane-1d
