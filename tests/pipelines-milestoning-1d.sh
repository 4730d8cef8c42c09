# tests/pipelines-milestoning-1d.sh - make check runs pipelines/milestoning-1d's check-small
# (tests/lib-pipeline.sh; what it checks: that Makefile's header).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-pipeline.sh"
pipeline_check_small milestoning-1d
