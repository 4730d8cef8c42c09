/*
 * cpp.h - internal to lib/mm: the part of the C preprocessor that GROMACS
 * topologies use (cpp.c), read as grompp reads them: logical lines, each
 * with the file and line it started on for messages.
 *
 * Errors as everywhere in libfek: -1 (or NULL) after fek_seterr, 65 with
 * "FILE:LINE: ..." for a fault in the text, 66 for a file that cannot be
 * opened or an #include that cannot be found.
 */
#ifndef FEK_MM_CPP_H
#define FEK_MM_CPP_H

struct mm_cpp;

/* Open path for reading through the preprocessor.  incdirs: directories
 * (':'-separated; NULL: none) searched for #include files after the
 * including file's own directory and before $GMXLIB, $GMXDATA/top and
 * /usr/share/gromacs/top.  defines: "-DNAME[=VALUE] ..." (NULL: none),
 * as grompp's mdp "define".  NULL on error. */
struct mm_cpp *mm_cpp_open(const char *path, const char *incdirs,
	    const char *defines);

/* The next logical line: comments (from ';') gone, lines ending in a
 * backslash joined, leading and trailing blanks trimmed, #defined names
 * replaced (whole words), never empty.  *line points into c and is valid
 * until the next call.  1, 0 at the end of the input, -1 on error. */
int	mm_cpp_next(struct mm_cpp *c, char **line);

/* The file (as opened: its path) and line on which the last logical line
 * began; the name stays valid until mm_cpp_close. */
const char *mm_cpp_file(const struct mm_cpp *c);
long	mm_cpp_line(const struct mm_cpp *c);

/* fek_seterr(65, "FILE:LINE: ...") at the last logical line; -1. */
int	mm_cpp_err(const struct mm_cpp *c, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

void	mm_cpp_close(struct mm_cpp *c);

/* a and b equal without regard to case, '-' and '_' (grompp's
 * gmx_strcasecmp_min, for names in topologies and .mdp files). */
int	mm_same_min(const char *a, const char *b);

#endif
