# tests/gpu-sampler-exact.sh - make check-gpu: tests/sampler-exact.sh with
# sample-gen -d gpu (kernels/wham/sample.cu): each window's GPU samples against
# the exact density by quadrature (moments, chi-square, Kolmogorov-Smirnov),
# on the steep 1-D case and on windows cut by the domain's edges.  Skipped
# unless FEK_TEST_GPU is set.
if [ -z "${FEK_TEST_GPU:-}" ]; then
	. "$(dirname "$0")/lib.sh"
	skip gpu-sampler-exact "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
SAMPLER_DEV=gpu exec bash "$(dirname "$0")/sampler-exact.sh"
