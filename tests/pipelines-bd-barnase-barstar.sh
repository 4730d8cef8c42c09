# tests/pipelines-bd-barnase-barstar.sh - make check runs pipelines/bd-barnase-barstar's check-small
# (tests/lib-pipeline.sh; what it checks: that Makefile's header).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-pipeline.sh"
if ! have apbs || [ ! -d /usr/share/apbs/examples/pbsam-barn_bars ]; then
	skip pipeline-bd-barnase-barstar "no apbs or apbs-data (scripts/install-deps check)"
	exit 0
fi
pipeline_check_small bd-barnase-barstar
