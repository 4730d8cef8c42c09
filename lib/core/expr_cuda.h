/*
 * expr_cuda.h - a formula of fek_expr_parse (GNU libmatheval syntax) as
 * CUDA C source, for kernels compiled at run time with NVRTC
 * (kernels/wham/sample.cu).
 */
#ifndef FEK_EXPR_CUDA_H
#define FEK_EXPR_CUDA_H

#include "stream/grid.h"

/* Translate TEXT, a formula in ndim coordinates named as fek_expr_parse
 * names them (x, y, z or x1..xn), into a CUDA C expression of the double
 * array x[0..ndim-1].  The translation is exact: libmatheval 1.1's grammar
 * (binary + - lowest, then * /, then unary minus, then ^, all
 * left-associative; no implicit products), its functions (cot, sec, ...,
 * step, delta, nandelta, erf) and constants (e, pi, ln2, ...), numbers
 * converted by strtod and printed with 17 significant digits.  (The
 * evaluator's own string form, evaluator_get_string, prints numbers with
 * six digits and folds constants, so it cannot be used.)
 *
 * The result is then checked against REF, libmatheval's evaluator of the
 * same text, at 256 points of the domain dom: any value that differs by
 * more than 1e-9 relative (or is finite in one and not the other) makes it
 * fail.  The expression uses the device helpers fek_powi, fek_step,
 * fek_delta and fek_nandelta, which kernels/core/nvrtc.cu defines.
 *
 * Returns a malloc'd string, or NULL with fek_seterr: 64 for a formula
 * that does not parse, 70 when the check fails. */
char	*fek_expr_cuda(const char *text, int ndim, fek_expr *ref,
	    const struct fek_grid *dom);

#endif
