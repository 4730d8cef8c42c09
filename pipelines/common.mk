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
