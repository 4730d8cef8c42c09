# tests/pipelines-water-widom.sh - make check runs pipelines/water-widom's
# check-small (tests/lib-pipeline.sh; what it checks: that Makefile's
# header and its check-small target).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-pipeline.sh"
pipeline_check_small water-widom
