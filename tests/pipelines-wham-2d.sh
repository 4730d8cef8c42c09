# tests/pipelines-wham-2d.sh - make check runs pipelines/wham-2d's check-small
# (tests/lib-pipeline.sh; what it checks: that Makefile's header).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-pipeline.sh"
pipeline_check_small wham-2d
