/*
 * cpp.c - the subset of the C preprocessor that grompp applies to GROMACS
 * topologies (cpp.h), after the GROMACS 2022 reference manual, "Topology
 * file" (topology file format, "#include and #define statements"):
 *
 *   #include "file" (or <file>)   the file is read in place: found beside
 *                                 the including file, then in each of the
 *                                 caller's include directories, then in
 *                                 $GMXLIB (':'-separated), $GMXDATA/top and
 *                                 /usr/share/gromacs/top
 *   #define NAME [value]          NAME is defined (with that value); a
 *                                 second #define replaces the value
 *   #undef NAME
 *   #ifdef NAME / #ifndef NAME / #else / #endif
 *                                 nested; each file closes its own
 *   #error text                   stops the reading with that text
 *
 * In ordinary lines every #defined name with a value is replaced where it
 * stands as a whole word (letters, digits and '_'), one name after another
 * in the order they were defined, as grompp's cpp does (the inserted text
 * is not scanned again for the same name).  A ';' starts a comment to the
 * end of the line; a line that then ends in a backslash goes on in the
 * next one (the backslash becomes a blank).  Other directives (#if,
 * #elif, ...) are errors.  Lines are reported with the file and line on
 * which they began.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "mm/cpp.h"

#define MAXDEPTH 32		/* files open at once (#include nesting) */
#define SYSTOP "/usr/share/gromacs/top"

struct cpp_file {
	FILE *fp;
	const char *name;		/* in c->names */
	char *dir;			/* its directory, for its #includes */
	long lineno;			/* physical lines read */
	int nif0;			/* conditionals open when it began */
};

struct cpp_def {
	char *name;
	char *value;			/* "" when none */
};

struct cpp_cond {
	int parent;			/* the enclosing text is read */
	int cond;			/* this branch is taken */
	int in_else;
	const char *file;
	long line;
};

struct mm_cpp {
	struct cpp_file f[MAXDEPTH];
	int depth;
	struct cpp_def *def;
	int ndef, capdef;
	struct cpp_cond *cond;
	int ncond, capcond;
	char **incdir;
	int nincdir;
	char **names;			/* every file opened, for messages */
	int nnames, capnames;
	char *phys;			/* a physical line */
	size_t physcap;
	char *buf, *tmp;		/* a logical line, room to edit it */
	size_t cap, tmpcap;
	const char *file;		/* where the last logical line began */
	long line;
};

/* realloc that exits 70 on failure, as fek_alloc does. */
static void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory (%zu bytes)", n);
	return p;
}

static char *
xstrndup(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* Room for n bytes in *b. */
static void
reserve(char **b, size_t *cap, size_t n)
{
	if (n <= *cap)
		return;
	while (*cap < n)
		*cap = *cap ? 2 * *cap : 256;
	*b = xrealloc(*b, *cap);
}

static int
is_word(int ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

int
mm_cpp_err(const struct mm_cpp *c, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return fek_seterr(FEK_EX_DATA, "%s:%ld: %s", c->file ? c->file : "?",
	    c->line, msg);
}

const char *
mm_cpp_file(const struct mm_cpp *c)
{
	return c->file;
}

long
mm_cpp_line(const struct mm_cpp *c)
{
	return c->line;
}

/* ---- definitions -------------------------------------------------------- */

/* The definition of name (len bytes), or NULL. */
static struct cpp_def *
def_find(struct mm_cpp *c, const char *name, size_t len)
{
	for (int i = 0; i < c->ndef; i++)
		if (strlen(c->def[i].name) == len &&
		    memcmp(c->def[i].name, name, len) == 0)
			return &c->def[i];
	return NULL;
}

/* Define name (len bytes) as value (vlen bytes), or give it that value. */
static void
def_set(struct mm_cpp *c, const char *name, size_t len, const char *value,
    size_t vlen)
{
	struct cpp_def *d = def_find(c, name, len);

	if (d != NULL) {
		free(d->value);
		d->value = xstrndup(value, vlen);
		return;
	}
	if (c->ndef == c->capdef) {
		c->capdef = c->capdef ? 2 * c->capdef : 64;
		c->def = xrealloc(c->def, c->capdef * sizeof *c->def);
	}
	c->def[c->ndef].name = xstrndup(name, len);
	c->def[c->ndef].value = xstrndup(value, vlen);
	c->ndef++;
}

static void
def_unset(struct mm_cpp *c, const char *name, size_t len)
{
	struct cpp_def *d = def_find(c, name, len);

	if (d == NULL)
		return;
	free(d->name);
	free(d->value);
	memmove(d, d + 1, (c->def + c->ndef - (d + 1)) * sizeof *d);
	c->ndef--;
}

/* "-DNAME[=VALUE] ..." into the definitions: 0, or -1 (65). */
static int
parse_defines(struct mm_cpp *c, const char *s)
{
	while (*s != '\0') {
		size_t n, k;

		s += strspn(s, " \t\r\n");
		if (*s == '\0')
			break;
		n = strcspn(s, " \t\r\n");
		if (n < 3 || s[0] != '-' || s[1] != 'D' || s[2] == '=')
			return fek_seterr(FEK_EX_DATA, "defines: '%.*s' is not "
			    "-DNAME[=VALUE]", (int)n, s);
		k = strcspn(s + 2, "=");
		if (k > n - 2)
			k = n - 2;
		if (k == n - 2)
			def_set(c, s + 2, k, "", 0);
		else
			def_set(c, s + 2, k, s + 3 + k, n - 3 - k);
		s += n;
	}
	return 0;
}

/* ---- files -------------------------------------------------------------- */

/* A copy of path that lives until mm_cpp_close, for messages. */
static const char *
keep_name(struct mm_cpp *c, const char *path)
{
	if (c->nnames == c->capnames) {
		c->capnames = c->capnames ? 2 * c->capnames : 16;
		c->names = xrealloc(c->names, c->capnames * sizeof *c->names);
	}
	c->names[c->nnames] = xstrndup(path, strlen(path));
	return c->names[c->nnames++];
}

/* Push the open file fp, found at path. */
static void
push_file(struct mm_cpp *c, FILE *fp, const char *path)
{
	struct cpp_file *f = &c->f[c->depth++];
	const char *slash = strrchr(path, '/');

	f->fp = fp;
	f->name = keep_name(c, path);
	if (slash == NULL)
		f->dir = xstrndup(".", 1);
	else if (slash == path)
		f->dir = xstrndup("/", 1);
	else
		f->dir = xstrndup(path, slash - path);
	f->lineno = 0;
	f->nif0 = c->ncond;
}

static void
pop_file(struct mm_cpp *c)
{
	struct cpp_file *f = &c->f[--c->depth];

	fclose(f->fp);
	free(f->dir);
	f->dir = NULL;
}

/* dir/name into a new string ("name" alone for "."). */
static char *
join(const char *dir, size_t dlen, const char *name)
{
	size_t nlen = strlen(name);
	char *p;

	if (dlen == 1 && dir[0] == '.')
		return xstrndup(name, nlen);
	p = xrealloc(NULL, dlen + nlen + 2);
	memcpy(p, dir, dlen);
	p[dlen] = '/';
	memcpy(p + dlen + 1, name, nlen + 1);
	return p;
}

/* Try dir/name: 1 opened (*fp, *path set), 0 not there, -1 (66) there
 * but unreadable. */
static int
try_open(const char *dir, size_t dlen, const char *name, FILE **fp,
    char **path)
{
	char *p = dir ? join(dir, dlen, name) : xstrndup(name, strlen(name));

	errno = 0;
	*fp = fopen(p, "r");
	if (*fp != NULL && fek_check_input(*fp, p) < 0) {
		fclose(*fp);
		free(p);
		return -1;
	}
	if (*fp != NULL) {
		*path = p;
		return 1;
	}
	if (errno == ENOENT || errno == ENOTDIR) {
		free(p);
		return 0;
	}
	fek_seterr(FEK_EX_NOINPUT, "%s: %s", p, strerror(errno));
	free(p);
	return -1;
}

/* Try each directory of the ':'-separated list. */
static int
try_list(const char *list, const char *name, FILE **fp, char **path)
{
	while (list != NULL && *list != '\0') {
		size_t n = strcspn(list, ":");
		int r;

		if (n > 0 && (r = try_open(list, n, name, fp, path)) != 0)
			return r;
		list += n;
		if (*list == ':')
			list++;
	}
	return 0;
}

/* The file an #include names, searched for as mm_cpp_open says.  0 with
 * *fp and *path, or -1 (66). */
static int
find_include(struct mm_cpp *c, const char *name, FILE **fp, char **path)
{
	const char *env;
	int r;

	if (name[0] == '/') {
		r = try_open(NULL, 0, name, fp, path);
		goto out;
	}
	env = c->f[c->depth - 1].dir;
	if ((r = try_open(env, strlen(env), name, fp, path)) != 0)
		goto out;
	for (int i = 0; i < c->nincdir; i++)
		if ((r = try_open(c->incdir[i], strlen(c->incdir[i]), name, fp,
		    path)) != 0)
			goto out;
	if ((r = try_list(getenv("GMXLIB"), name, fp, path)) != 0)
		goto out;
	if ((env = getenv("GMXDATA")) != NULL && *env != '\0') {
		char *top = join(env, strlen(env), "top");

		r = try_open(top, strlen(top), name, fp, path);
		free(top);
		if (r != 0)
			goto out;
	}
	r = try_open(SYSTOP, strlen(SYSTOP), name, fp, path);
out:
	if (r == 0)
		return fek_seterr(FEK_EX_NOINPUT, "%s:%ld: #include \"%s\": "
		    "not found beside %s, in the include directories, $GMXLIB, "
		    "$GMXDATA/top or %s", c->file, c->line, name, c->file,
		    SYSTOP);
	return r < 0 ? -1 : 0;
}

struct mm_cpp *
mm_cpp_open(const char *path, const char *incdirs, const char *defines)
{
	struct mm_cpp *c = fek_alloc(1, sizeof *c);
	FILE *fp;

	if (defines != NULL && parse_defines(c, defines) < 0) {
		mm_cpp_close(c);
		return NULL;
	}
	while (incdirs != NULL && *incdirs != '\0') {
		size_t n = strcspn(incdirs, ":");

		if (n > 0) {
			c->incdir = xrealloc(c->incdir, (c->nincdir + 1) *
			    sizeof *c->incdir);
			c->incdir[c->nincdir++] = xstrndup(incdirs, n);
		}
		incdirs += n;
		if (*incdirs == ':')
			incdirs++;
	}
	fp = fek_open_input(path, "r");
	if (fp == NULL) {
		mm_cpp_close(c);
		return NULL;
	}
	push_file(c, fp, path);
	return c;
}

void
mm_cpp_close(struct mm_cpp *c)
{
	if (c == NULL)
		return;
	while (c->depth > 0)
		pop_file(c);
	for (int i = 0; i < c->ndef; i++) {
		free(c->def[i].name);
		free(c->def[i].value);
	}
	free(c->def);
	free(c->cond);
	for (int i = 0; i < c->nincdir; i++)
		free(c->incdir[i]);
	free(c->incdir);
	for (int i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	free(c->phys);
	free(c->buf);
	free(c->tmp);
	free(c);
}

/* ---- lines -------------------------------------------------------------- */

/* The next logical line of the innermost file into c->buf (untrimmed at
 * the front): 1, 0 at its end, -1 on a read error. */
static int
read_logical(struct mm_cpp *c)
{
	struct cpp_file *f = &c->f[c->depth - 1];
	size_t len = 0;
	int first = 1;

	reserve(&c->buf, &c->cap, 1);
	c->buf[0] = '\0';
	for (;;) {
		ssize_t n;
		size_t k;
		int cont;

		errno = 0;
		n = fek_getline(&c->phys, &c->physcap, f->fp, FEK_LINE_MAX);
		if (n < 0 && n != FEK_LINE_EOF)
			return fek_seterr(fek_getline_code(n), "%s:%ld: %s",
			    f->name, f->lineno + 1,
			    fek_getline_why(n, FEK_LINE_MAX));
		if (n < 0) {
			if (first)
				return 0;
			break;
		}
		f->lineno++;
		if (first) {
			c->file = f->name;
			c->line = f->lineno;
			first = 0;
		}
		k = strcspn(c->phys, ";\n\r");
		while (k > 0 && isspace((unsigned char)c->phys[k - 1]))
			k--;
		cont = k > 0 && c->phys[k - 1] == '\\';
		if (cont)
			c->phys[k - 1] = ' ';
		if (len + k > FEK_LINE_MAX)
			return fek_seterr(FEK_EX_DATA, "%s:%ld: line continued "
			    "past %d bytes", f->name, f->lineno, FEK_LINE_MAX);
		reserve(&c->buf, &c->cap, len + k + 1);
		memcpy(c->buf + len, c->phys, k);
		len += k;
		c->buf[len] = '\0';
		if (!cont)
			break;
	}
	return 1;
}

/* Every defined name with a value replaced in c->buf (whole words); -1
 * when the line grows past FEK_LINE_MAX (definitions that expand into
 * each other double it at each one). */
static int
substitute(struct mm_cpp *c)
{
	for (int i = 0; i < c->ndef; i++) {
		const char *name = c->def[i].name, *val = c->def[i].value;
		size_t nl = strlen(name), vl = strlen(val), o = 0;
		const char *s = c->buf, *p;

		if (vl == 0 || strstr(s, name) == NULL)
			continue;
		reserve(&c->tmp, &c->tmpcap, 1);
		while ((p = strstr(s, name)) != NULL) {
			int whole = (p == c->buf || !is_word(p[-1])) &&
			    !is_word(p[nl]);
			size_t pre = p - s + (whole ? 0 : nl);

			if (o + pre + vl > FEK_LINE_MAX)
				return mm_cpp_err(c, "the line grows past %d "
				    "bytes with its #define substitutions",
				    FEK_LINE_MAX);
			reserve(&c->tmp, &c->tmpcap, o + pre + vl + 1);
			memcpy(c->tmp + o, s, pre);
			o += pre;
			if (whole) {
				memcpy(c->tmp + o, val, vl);
				o += vl;
			}
			s = p + nl;
		}
		reserve(&c->tmp, &c->tmpcap, o + strlen(s) + 1);
		strcpy(c->tmp + o, s);
		/* swap buffers */
		{
			char *b = c->buf;
			size_t cap = c->cap;

			c->buf = c->tmp;
			c->cap = c->tmpcap;
			c->tmp = b;
			c->tmpcap = cap;
		}
	}
	return 0;
}

/* Whether the text here is read (every enclosing branch taken). */
static int
reading(const struct mm_cpp *c)
{
	const struct cpp_cond *k;

	if (c->ncond == 0)
		return 1;
	k = &c->cond[c->ncond - 1];
	return k->parent && k->cond;
}

/* The first blank-separated word of s: its start, length in *n. */
static const char *
word(const char *s, size_t *n)
{
	s += strspn(s, " \t");
	*n = strcspn(s, " \t");
	return s;
}

/* A directive line (s after the '#'): 0, 1 when it opened a file, -1. */
static int
directive(struct mm_cpp *c, const char *s)
{
	size_t kl, nl;
	const char *kw = word(s, &kl), *arg = kw + kl, *name;
	int on = reading(c);

#define IS(w) (kl == sizeof(w) - 1 && memcmp(kw, w, kl) == 0)
	if (IS("ifdef") || IS("ifndef")) {
		struct cpp_cond *k;

		name = word(arg, &nl);
		if (on && nl == 0)
			return mm_cpp_err(c, "#%.*s without a name", (int)kl,
			    kw);
		if (c->ncond == c->capcond) {
			c->capcond = c->capcond ? 2 * c->capcond : 16;
			c->cond = xrealloc(c->cond, c->capcond *
			    sizeof *c->cond);
		}
		k = &c->cond[c->ncond++];
		k->parent = on;
		k->cond = (def_find(c, name, nl) != NULL) == IS("ifdef");
		k->in_else = 0;
		k->file = c->file;
		k->line = c->line;
		return 0;
	}
	if (IS("else") || IS("endif")) {
		struct cpp_cond *k;

		if (c->ncond <= c->f[c->depth - 1].nif0)
			return mm_cpp_err(c, "#%.*s without #ifdef or #ifndef",
			    (int)kl, kw);
		k = &c->cond[c->ncond - 1];
		if (IS("endif")) {
			c->ncond--;
			return 0;
		}
		if (k->in_else)
			return mm_cpp_err(c, "a second #else for the #ifdef "
			    "of line %ld", k->line);
		k->in_else = 1;
		k->cond = !k->cond;
		return 0;
	}
	if (!on)
		return 0;
	if (IS("define") || IS("undef")) {
		name = word(arg, &nl);
		if (nl == 0)
			return mm_cpp_err(c, "#%.*s without a name", (int)kl,
			    kw);
		if (IS("undef")) {
			def_unset(c, name, nl);
			return 0;
		}
		arg = name + nl;
		arg += strspn(arg, " \t");
		def_set(c, name, nl, arg, strlen(arg));
		return 0;
	}
	if (IS("include")) {
		char close, *file, *path;
		const char *end;
		FILE *fp;
		int r;

		arg += strspn(arg, " \t");
		close = *arg == '"' ? '"' : *arg == '<' ? '>' : '\0';
		end = close ? strchr(arg + 1, close) : NULL;
		if (end == NULL || end == arg + 1)
			return mm_cpp_err(c, "#include: expected \"file\" or "
			    "<file>, not '%s'", arg);
		if (c->depth == MAXDEPTH)
			return mm_cpp_err(c, "#include nested more than %d "
			    "deep (does a file include itself?)", MAXDEPTH);
		file = xstrndup(arg + 1, end - arg - 1);
		r = find_include(c, file, &fp, &path);
		free(file);
		if (r < 0)
			return -1;
		push_file(c, fp, path);
		free(path);
		return 1;
	}
	if (IS("error"))
		return mm_cpp_err(c, "#error %s", arg + strspn(arg, " \t"));
	return mm_cpp_err(c, "unknown or unsupported preprocessor directive "
	    "'#%.*s' (only #include, #define, #undef, #ifdef, #ifndef, "
	    "#else, #endif and #error)", (int)kl, kw);
#undef IS
}

int
mm_cpp_next(struct mm_cpp *c, char **line)
{
	for (;;) {
		char *s, *e;
		int r;

		if (c->depth == 0)
			return 0;
		r = read_logical(c);
		if (r < 0)
			return -1;
		if (r == 0) {
			struct cpp_file *f = &c->f[c->depth - 1];

			if (c->ncond > f->nif0) {
				struct cpp_cond *k = &c->cond[f->nif0];

				c->file = k->file;
				c->line = k->line;
				return mm_cpp_err(c, "#ifdef or #ifndef "
				    "without #endif in this file");
			}
			pop_file(c);
			continue;
		}
		s = c->buf + strspn(c->buf, " \t\f\v");
		if (*s == '#') {
			if (directive(c, s + 1) < 0)
				return -1;
			continue;
		}
		if (*s == '\0' || !reading(c))
			continue;
		if (c->ndef > 0) {
			if (substitute(c) < 0)
				return -1;
			s = c->buf + strspn(c->buf, " \t\f\v");
		}
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		*e = '\0';
		if (*s == '\0')
			continue;
		*line = s;
		return 1;
	}
}

int
mm_same_min(const char *a, const char *b)
{
	for (;;) {
		while (*a == '-' || *a == '_')
			a++;
		while (*b == '-' || *b == '_')
			b++;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		if (*a == '\0')
			return 1;
		a++;
		b++;
	}
}
