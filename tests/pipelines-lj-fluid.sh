# tests/pipelines-lj-fluid.sh - make check runs pipelines/lj-fluid's check-small
# (tests/lib-pipeline.sh; what it checks: that Makefile's header).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-pipeline.sh"
pipeline_check_small lj-fluid
