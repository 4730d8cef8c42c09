/*
 * expr_cuda.c - formulas of GNU libmatheval 1.1 syntax translated into
 * CUDA C, so that the PMF of sample-gen runs on the device (NVRTC, see
 * kernels/wham/sample.cu).  A small recursive-descent parser of the same
 * grammar as libmatheval's yacc parser (precedence + - < * / < unary - <
 * ^, all left-associative) builds a tree; the tree is printed as CUDA C
 * with every number to 17 digits, and evaluated here on the host to check
 * the translation against libmatheval itself before it is used.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr_cuda.h"

enum node_kind { N_NUM, N_VAR, N_NEG, N_BIN, N_FUNC };

struct node {
	enum node_kind kind;
	int op;			/* N_BIN: + - * / ^; N_FUNC: index in funcs */
	double num;		/* N_NUM */
	int dim;		/* N_VAR */
	struct node *a, *b;
};

/* libmatheval 1.1.11's functions, with their meaning in CUDA C (the
 * argument is %s; printed with the argument twice where it repeats). */
static const struct {
	const char *name;
	const char *cuda;
} funcs[] = {
	{ "exp", "exp(%s)" }, { "log", "log(%s)" }, { "sqrt", "sqrt(%s)" },
	{ "sin", "sin(%s)" }, { "cos", "cos(%s)" }, { "tan", "tan(%s)" },
	{ "cot", "(1.0/tan(%s))" }, { "sec", "(1.0/cos(%s))" },
	{ "csc", "(1.0/sin(%s))" }, { "asin", "asin(%s)" },
	{ "acos", "acos(%s)" }, { "atan", "atan(%s)" },
	{ "acot", "atan(1.0/(%s))" }, { "asec", "acos(1.0/(%s))" },
	{ "acsc", "asin(1.0/(%s))" }, { "sinh", "sinh(%s)" },
	{ "cosh", "cosh(%s)" }, { "tanh", "tanh(%s)" },
	{ "coth", "(1.0/tanh(%s))" }, { "sech", "(1.0/cosh(%s))" },
	{ "csch", "(1.0/sinh(%s))" }, { "asinh", "asinh(%s)" },
	{ "acosh", "acosh(%s)" }, { "atanh", "atanh(%s)" },
	{ "acoth", "atanh(1.0/(%s))" }, { "asech", "acosh(1.0/(%s))" },
	{ "acsch", "asinh(1.0/(%s))" }, { "abs", "fabs(%s)" },
	{ "step", "fek_step(%s)" }, { "delta", "fek_delta(%s)" },
	{ "nandelta", "fek_nandelta(%s)" }, { "erf", "erf(%s)" },
};
#define NFUNCS (int)(sizeof funcs / sizeof funcs[0])

/* libmatheval's constants (the values of <math.h>'s M_ macros). */
static const struct {
	const char *name;
	double value;
} consts[] = {
	{ "e", 2.7182818284590452354 }, { "log2e", 1.4426950408889634074 },
	{ "log10e", 0.43429448190325182765 }, { "ln2", 0.69314718055994530942 },
	{ "ln10", 2.30258509299404568402 }, { "pi", 3.14159265358979323846 },
	{ "pi_2", 1.57079632679489661923 }, { "pi_4", 0.78539816339744830962 },
	{ "1_pi", 0.31830988618379067154 }, { "2_pi", 0.63661977236758134308 },
	{ "2_sqrtpi", 1.12837916709551257390 },
	{ "sqrt2", 1.41421356237309504880 },
	{ "sqrt1_2", 0.70710678118654752440 },
};
#define NCONSTS (int)(sizeof consts / sizeof consts[0])

enum tok { T_END, T_NUM, T_VAR, T_FUNC, T_OP, T_LP, T_RP, T_BAD };

struct parser {
	const char *s;		/* the rest of the text */
	int ndim;
	enum tok tok;		/* current token */
	int op;			/* T_OP: the character; T_FUNC: index */
	double num;		/* T_NUM (numbers and constants) */
	int dim;		/* T_VAR */
	struct node *pool;
	int npool, cap;
	int bad;
};

/* Length of a number at s: ({d}+|{d}+.{d}*|{d}*.{d}+)([Ee][+-]?{d}+)? */
static int
number_length(const char *s)
{
	int n = 0, digits = 0, e;

	while (isdigit((unsigned char)s[n]))
		n++, digits++;
	if (s[n] == '.') {
		n++;
		while (isdigit((unsigned char)s[n]))
			n++, digits++;
	}
	if (digits == 0)
		return 0;
	if (s[n] == 'e' || s[n] == 'E') {
		e = n + 1;
		if (s[e] == '+' || s[e] == '-')
			e++;
		if (isdigit((unsigned char)s[e])) {
			while (isdigit((unsigned char)s[e]))
				e++;
			n = e;
		}
	}
	return n;
}

static int
ident_length(const char *s)
{
	int n = 0;

	if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n;
}

/* Coordinate of a variable name (as core/expr.c's var_dim), or -1. */
static int
variable_dim(const char *name, int len, int ndim)
{
	static const char *xyz[] = { "x", "y", "z" };
	long k = 0;
	int i;

	if (ndim <= 3)
		for (i = 0; i < ndim; i++)
			if (len == 1 && name[0] == xyz[i][0])
				return i;
	if (len >= 2 && name[0] == 'x' && name[1] >= '1' && name[1] <= '9') {
		for (i = 1; i < len; i++) {
			if (!isdigit((unsigned char)name[i]) || k > 1000000)
				return -1;
			k = k * 10 + (name[i] - '0');
		}
		if (k >= 1 && k <= ndim)
			return (int)k - 1;
	}
	return -1;
}

/* The next token, by flex's rule: the longest match, and on a tie the
 * constant or function before the variable. */
static void
next(struct parser *p)
{
	const char *s = p->s;
	int nlen, ilen, best = 0, kind = -1, which = -1, i, len;

	while (*s == ' ' || *s == '\t')
		s++;
	p->s = s;
	if (*s == '\0' || *s == '\n') {
		p->tok = T_END;
		return;
	}
	if (strchr("+-*/^", *s)) {
		p->tok = T_OP;
		p->op = *s;
		p->s = s + 1;
		return;
	}
	if (*s == '(' || *s == ')') {
		p->tok = *s == '(' ? T_LP : T_RP;
		p->s = s + 1;
		return;
	}
	nlen = number_length(s);
	ilen = ident_length(s);
	if (nlen > best)
		best = nlen, kind = T_NUM, which = -1;
	for (i = 0; i < NCONSTS; i++) {
		len = (int)strlen(consts[i].name);
		if (strncmp(s, consts[i].name, len) == 0 && len > best)
			best = len, kind = T_NUM, which = i;
	}
	for (i = 0; i < NFUNCS; i++) {
		len = (int)strlen(funcs[i].name);
		if (strncmp(s, funcs[i].name, len) == 0 && len > best)
			best = len, kind = T_FUNC, which = i;
	}
	if (ilen > best)
		best = ilen, kind = T_VAR;
	if (best == 0) {
		p->tok = T_BAD;
		return;
	}
	p->s = s + best;
	p->tok = kind;
	if (kind == T_NUM)
		p->num = which >= 0 ? consts[which].value : strtod(s, NULL);
	else if (kind == T_FUNC)
		p->op = which;
	else {
		p->dim = variable_dim(s, best, p->ndim);
		if (p->dim < 0)
			p->tok = T_BAD;
	}
}

static struct node *
new_node(struct parser *p, enum node_kind kind)
{
	struct node *n;

	if (p->npool == p->cap) {
		p->bad = 1;
		return NULL;
	}
	n = &p->pool[p->npool++];
	memset(n, 0, sizeof *n);
	n->kind = kind;
	return n;
}

static int
precedence(int op)
{
	return op == '+' || op == '-' ? 1 : op == '*' || op == '/' ? 2 :
	    op == '^' ? 4 : 0;
}
#define PREC_NEG 3

static struct node *parse_expr(struct parser *p, int minp);

static struct node *
parse_primary(struct parser *p)
{
	struct node *n = NULL;

	if (p->bad)
		return NULL;
	switch (p->tok) {
	case T_OP:
		if (p->op != '-')
			break;
		next(p);
		if ((n = new_node(p, N_NEG)) == NULL)
			return NULL;
		n->a = parse_expr(p, PREC_NEG);
		return p->bad ? NULL : n;
	case T_NUM:
		if ((n = new_node(p, N_NUM)) == NULL)
			return NULL;
		n->num = p->num;
		next(p);
		return n;
	case T_VAR:
		if ((n = new_node(p, N_VAR)) == NULL)
			return NULL;
		n->dim = p->dim;
		next(p);
		return n;
	case T_FUNC:
		if ((n = new_node(p, N_FUNC)) == NULL)
			return NULL;
		n->op = p->op;
		next(p);
		if (p->tok != T_LP)
			break;
		next(p);
		n->a = parse_expr(p, 1);
		if (p->bad || p->tok != T_RP)
			break;
		next(p);
		return n;
	case T_LP:
		next(p);
		n = parse_expr(p, 1);
		if (p->bad || p->tok != T_RP)
			break;
		next(p);
		return n;
	default:
		break;
	}
	p->bad = 1;
	return NULL;
}

static struct node *
parse_expr(struct parser *p, int minp)
{
	struct node *lhs, *n;
	int prec, op;

	lhs = parse_primary(p);
	while (!p->bad && p->tok == T_OP &&
	    (prec = precedence(op = p->op)) >= minp) {
		next(p);
		if ((n = new_node(p, N_BIN)) == NULL)
			return NULL;
		n->op = op;
		n->a = lhs;
		n->b = parse_expr(p, prec + 1);
		lhs = n;
	}
	return p->bad ? NULL : lhs;
}

/* A growing string. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len) {
			b->len += n;
			return;
		}
		b->cap = 2 * b->cap + n + 64;
		b->s = realloc(b->s, b->cap);
		if (b->s == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
	}
}

static void
emit(struct sbuf *b, const struct node *n)
{
	struct sbuf arg = { NULL, 0, 0 };

	switch (n->kind) {
	case N_NUM:
		if (isfinite(n->num))
			sb_printf(b, "(%.17g)", n->num);
		else	/* a literal beyond the double range */
			sb_printf(b, "(1.0/0.0)");
		break;
	case N_VAR:
		sb_printf(b, "x[%d]", n->dim);
		break;
	case N_NEG:
		sb_printf(b, "(-");
		emit(b, n->a);
		sb_printf(b, ")");
		break;
	case N_BIN:
		if (n->op == '^') {
			/* small integer powers by multiplication */
			if (n->b->kind == N_NUM && n->b->num == floor(n->b->num)
			    && fabs(n->b->num) <= 8) {
				sb_printf(b, "fek_powi(");
				emit(b, n->a);
				sb_printf(b, ", %d)", (int)n->b->num);
			} else {
				sb_printf(b, "pow(");
				emit(b, n->a);
				sb_printf(b, ", ");
				emit(b, n->b);
				sb_printf(b, ")");
			}
			break;
		}
		sb_printf(b, "(");
		emit(b, n->a);
		sb_printf(b, " %c ", n->op);
		emit(b, n->b);
		sb_printf(b, ")");
		break;
	case N_FUNC:
		emit(&arg, n->a);
		sb_printf(b, funcs[n->op].cuda, arg.s);
		free(arg.s);
		break;
	}
}

/* The host twin of fek_powi in kernels/wham/sample.cu. */
static double
powi(double a, int k)
{
	double r = 1, m = k < 0 ? 1 / a : a;
	int i;

	if (k == 0)
		return pow(a, 0.0);
	for (i = 0; i < abs(k); i++)
		r *= m;
	return r;
}

static double
eval(const struct node *n, const double *x)
{
	double a;

	switch (n->kind) {
	case N_NUM:
		return n->num;
	case N_VAR:
		return x[n->dim];
	case N_NEG:
		return -eval(n->a, x);
	case N_BIN:
		a = eval(n->a, x);
		switch (n->op) {
		case '+': return a + eval(n->b, x);
		case '-': return a - eval(n->b, x);
		case '*': return a * eval(n->b, x);
		case '/': return a / eval(n->b, x);
		default:
			if (n->b->kind == N_NUM && n->b->num ==
			    floor(n->b->num) && fabs(n->b->num) <= 8)
				return powi(a, (int)n->b->num);
			return pow(a, eval(n->b, x));
		}
	case N_FUNC:
		a = eval(n->a, x);
		switch (n->op) {
		case 0: return exp(a);
		case 1: return log(a);
		case 2: return sqrt(a);
		case 3: return sin(a);
		case 4: return cos(a);
		case 5: return tan(a);
		case 6: return 1.0 / tan(a);
		case 7: return 1.0 / cos(a);
		case 8: return 1.0 / sin(a);
		case 9: return asin(a);
		case 10: return acos(a);
		case 11: return atan(a);
		case 12: return atan(1.0 / a);
		case 13: return acos(1.0 / a);
		case 14: return asin(1.0 / a);
		case 15: return sinh(a);
		case 16: return cosh(a);
		case 17: return tanh(a);
		case 18: return 1.0 / tanh(a);
		case 19: return 1.0 / cosh(a);
		case 20: return 1.0 / sinh(a);
		case 21: return asinh(a);
		case 22: return acosh(a);
		case 23: return atanh(a);
		case 24: return atanh(1.0 / a);
		case 25: return acosh(1.0 / a);
		case 26: return asinh(1.0 / a);
		case 27: return fabs(a);
		case 28: return a < 0 ? 0 : 1;
		case 29: return a == 0 ? HUGE_VAL : 0;
		case 30: return a == 0 ? NAN : 0;
		default: return erf(a);
		}
	}
	return NAN;
}

/* Same value, up to rounding: both NaN, the same infinity, or within
 * 1e-9 relative. */
static int
agree(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (isinf(a) || isinf(b))
		return a == b;
	return fabs(a - b) <= 1e-9 * (1 + fmax(fabs(a), fabs(b)));
}

char *
fek_expr_cuda(const char *text, int ndim, fek_expr *ref,
    const struct fek_grid *dom)
{
	struct parser p;
	struct node *root;
	struct sbuf out = { NULL, 0, 0 };
	unsigned long long lcg = 0x853c49e6748fea9bULL;
	double x[FEK_MAXDIM], want, got;
	int i, d;

	memset(&p, 0, sizeof p);
	p.s = text;
	p.ndim = ndim;
	p.cap = 2 * (int)strlen(text) + 8;
	p.pool = fek_alloc(p.cap, sizeof *p.pool);
	next(&p);
	root = parse_expr(&p, 1);
	if (root == NULL || p.bad || p.tok != T_END) {
		free(p.pool);
		fek_seterr(FEK_EX_USAGE, "'%s': not a formula the CUDA "
		    "translation can parse", text);
		return NULL;
	}
	/* 256 points: the corners' neighbourhood and the interior */
	for (i = 0; i < 256; i++) {
		for (d = 0; d < ndim; d++) {
			double u;

			lcg = lcg * 6364136223846793005ULL +
			    1442695040888963407ULL;
			u = (double)(lcg >> 11) / 9007199254740992.0;
			if (i < 2)
				u = i;
			x[d] = dom->ax[d].lo + (dom->ax[d].hi - dom->ax[d].lo) *
			    u;
		}
		want = fek_expr_eval(ref, x);
		got = eval(root, x);
		if (!agree(want, got)) {
			free(p.pool);
			fek_seterr(FEK_EX_SOFTWARE, "'%s': the CUDA "
			    "translation gives %.17g at a point where "
			    "libmatheval gives %.17g", text, got, want);
			return NULL;
		}
	}
	emit(&out, root);
	free(p.pool);
	return out.s;
}
