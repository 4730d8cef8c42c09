# pipelines/common.mk - the preamble every pipeline's Makefile includes:
# recipes in bash, the built tools (TOOLS, default the tree's bin/) first
# on PATH, and the plotting and helper scripts (SCRIPTS).  Each pipeline
# is run from the top as `make -C pipelines/NAME`; TOOLS=... runs it with
# other builds of the tools.
SHELL = /bin/bash
FEK_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)
TOOLS ?= $(FEK_TOP)/bin
SCRIPTS ?= $(FEK_TOP)/scripts
export PATH := $(TOOLS):$(PATH)

# Fan-out (scripts/fek-fanout; fek(7), FAN-OUT): where a pipeline's work
# splits (windows, frames, milestones, trajectory ranges), SHARDS=N cuts
# it into N shards, run as LAUNCH says: local (GNU parallel, on this
# machine or over ssh with PARALLEL_FLAGS='--sshloginfile FILE') or slurm
# (one sbatch --array job; SBATCH_FLAGS for partition, time, --gres);
# GPUS=N places the shards one a GPU.  The shards are joined by cat: the
# joined stream holds the one-machine run's rows byte for byte, a section
# a shard (scripts/fek-samerows checks it), and what is computed from it
# is the one-machine run's, byte for byte (PROV lines aside).
SHARDS ?= 1
LAUNCH ?= local
GPUS ?= 0
PARALLEL_FLAGS ?=
SBATCH_FLAGS ?=
export LAUNCH GPUS PARALLEL_FLAGS SBATCH_FLAGS
FANOUT = $(SCRIPTS)/fek-fanout
# $(call shard_ranges,N,SHARDS): the lines "k first count" (k from 0) that
# cut N items into at most SHARDS contiguous ranges, for FANOUT's ARGS
shard_ranges = awk -v n=$(1) -v s=$(2) 'BEGIN { c = int((n + s - 1) / s); \
    for (k = 0; k * c < n; k++) print k, k * c, (n - k * c < c ? n - k * c : c) }'

# $(call fan_out,N,CMD): CMD's output for items 1 to N (CMD takes -j
# FIRST:LAST) into $@: one run, or with SHARDS > 1 shards over the items
# by $(FANOUT), each into its own file, joined by cat in order (the
# recipe says in a line of its own what it runs).
define fan_out
	@if [ $(SHARDS) = 1 ]; then $(2) > $@.tmp; else \
	  $(call shard_ranges,$(1),$(SHARDS)) | \
	    awk '{ print $$1, $$2 + 1 ":" $$2 + $$3 }' > $@.shards && \
	  $(FANOUT) -J "cat $$(awk '{ printf "%s ", "$(basename $@)." $$1 "$(suffix $@)" }' \
	      $@.shards) > $@.tmp" $@.shards \
	    "$(2) -j {2} > $(basename $@).{1}$(suffix $@)" && \
	  rm -f $$(awk '{ print "$(basename $@)." $$1 "$(suffix $@)" }' \
	      $@.shards) $@.shards; \
	fi && mv $@.tmp $@
endef

# check-small's pieces: the shards over two "hosts" of tests/ssh-shim
# (ssh for GNU parallel's --ssh, run here), and $(call same_noprov,A,B),
# a shell test that A and B are the same bytes but for their PROV lines
# (#PROV in text, PROV in a binary header)
SHIM_FLAGS = --ssh $(FEK_TOP)/tests/ssh-shim -S 1/nodeA,1/nodeB
same_noprov = cmp -s <(grep -avE '^\#?PROV ' $(1)) <(grep -avE '^\#?PROV ' $(2))

# The plots: GNUPLOT names the program; where it is not a command, a plot
# recipe that starts with $(NOPLOT) prints one line and succeeds.
GNUPLOT ?= gnuplot
NOPLOT = command -v $(GNUPLOT) > /dev/null || { echo "$(@F): gnuplot not installed, plot skipped"; exit 0; }

# $(call widom_check_small,FILES): the test-insertion pipelines'
# check-small (lj-widom, water-widom) up to their own verdicts: the chain
# at $(SMALL) into $(CS)/1 without gnuplot, its last lines the
# BETA_MU_EX result and the two plots' skip notes; the plots; then
# tpi-gpu's stage again in two shards over tests/ssh-shim from FILES of
# the first run (times kept), the same bytes as one run (#PROV aside),
# on both of the shim's hosts.  The recipe's next lines judge the result.
define widom_check_small
	@rm -rf $(CS) && mkdir -p $(CS)/1 $(CS)/2
	@$(MAKE) --no-print-directory -s $(SMALL) OUT=$(CS)/1 GNUPLOT=no-gnuplot-$$$$ all > $(CS)/1.log 2>&1 || \
	    { echo "check-small: the small chain failed: $$(tail -1 $(CS)/1.log)"; exit 1; }
	@tail -3 $(CS)/1.log | awk 'NR == 1 && /^BETA_MU_EX / { ok++ } \
	    NR == 2 && $$0 == "overlap.png: gnuplot not installed, plot skipped" { ok++ } \
	    NR == 3 && $$0 == "convergence.png: gnuplot not installed, plot skipped" { ok++ } \
	    END { exit ok != 3 }' || \
	    { echo "check-small: not the result line and then the two skipped plots: $(CS)/1.log"; exit 1; }
	@$(MAKE) --no-print-directory -s $(SMALL) OUT=$(CS)/1 plots > $(CS)/plots.log 2>&1 || \
	    { echo "check-small: the plots failed: $$(tail -1 $(CS)/plots.log)"; exit 1; }
	@(cd $(CS)/1 && cp -p $(1) ../2/) && \
	FEK_SSH_LOG=$(abspath $(CS))/ssh.log $(MAKE) --no-print-directory -s $(SMALL) OUT=$(CS)/2 SHARDS=2 \
	    PARALLEL_FLAGS='$(SHIM_FLAGS)' $(CS)/2/tpi.txt > $(CS)/2.log 2>&1 || \
	    { echo "check-small: SHARDS=2 failed: $$(tail -1 $(CS)/2.log)"; exit 1; }
	@$(call same_noprov,$(CS)/1/tpi.txt,$(CS)/2/tpi.txt) || \
	    { echo "check-small: SHARDS=2 differs from SHARDS=1 (#PROV aside): $(CS)/2/tpi.txt"; exit 1; }
	@grep -q '^nodeA ' $(CS)/ssh.log && grep -q '^nodeB ' $(CS)/ssh.log || \
	    { echo "check-small: the shards did not run on both nodeA and nodeB of the ssh shim: $(CS)/ssh.log"; exit 1; }
endef
