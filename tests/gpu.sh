# tests/gpu.sh - make check-gpu: the GPU paths against the CPU reference.
# Run on the GPU machine (FEK_TEST_GPU=1, set by make check-gpu); skipped by
# make check.  In this release no tool has a GPU solver yet (wham-gpu's is
# the next issue), so this checks the CUDA build and the device probe: with
# a GPU present, -d gpu must fail with "no GPU path", not "no usable GPU".
. "$TOP/tests/lib.sh"

if [ -z "${FEK_TEST_GPU:-}" ]; then
	skip gpu "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
printf -- '-60 0.001\n0 0.001\n60 0.001\n' > w.txt
sample-gen -p '0*x' -r -180:180:p -w w.txt -n 2000 | histogram -b 30 |
    bias-build > in.fek
t gpu-probe 69 "wham-gpu -d gpu < in.fek"
ok gpu-probe-sees-device grep -q 'no GPU path' "$TMP/gpu-probe.err"
t gpu-auto-falls-back 0 "wham-gpu -T -d auto < in.fek > auto.txt"
t gpu-cpu 0 "wham-gpu -T -d cpu < in.fek > cpu.txt"
numcmp_files gpu-auto-equals-cpu auto.txt cpu.txt 0 0
