# tests/badinput-lines.sh: every text reader reads its lines with a bound
# (lib/core/input.c; fek(5): a header line at most 65535 bytes, any other
# at most 1 MiB) and refuses a NUL byte, so an endless line or /dev/zero
# ends at once in exit 65 with one line naming the file and the line,
# instead of growing until the kernel kills the tool.
. "$(dirname "$0")/lib.sh"

# a 2 MB line after a good first line, and a line with a NUL in it
{ echo '# a comment'; head -c 2000000 /dev/zero | tr '\0' 1; echo; } > long.txt
{ echo '# a comment'; printf '1 2\0003 4\n'; } > nul.txt
mkdir -p adir

long() {	# long NAME CMD: exit 65, "line 2: line longer than 1048576 bytes"
	T_TIMEOUT=60 t "$1" 65 "$2"
	says "$1" 'line 2: line longer than 1048576 bytes'
}
nul() {		# nul NAME CMD: exit 65, a NUL byte named
	T_TIMEOUT=60 t "$1" 65 "$2"
	says "$1" 'NUL byte'
}

long sample-gen-w-long "sample-gen -p '0*x' -r -180:180:p -w long.txt -n 10"
nul sample-gen-w-nul "sample-gen -p '0*x' -r -180:180:p -w nul.txt -n 10"
long histogram-m-long 'histogram -b 0:1:10 -m long.txt'
nul histogram-m-nul 'histogram -b 0:1:10 -m nul.txt'
long md-gpu-windows-long "md-gpu -p '0*x' -r -180:180:p -w long.txt -n 10"
long bar-solve-W-long 'bar-solve -W long.txt long.txt'
long rmsd-f-long "rmsd -f long.txt long.txt"
long bd-step-pqr-long 'bd-step -n 1 long.txt - long.txt - long.txt'
nul bd-step-pqr-nul 'bd-step -n 1 nul.txt - nul.txt - nul.txt'
T_TIMEOUT=60 t tpi-gpu-gro-long 65 'tpi-gpu --format gro long.txt'
says tpi-gpu-gro-long 'line longer than 1048576 bytes'

# /dev/zero, endless: refused within the first MiB, never read to the end
T_TIMEOUT=60 t histogram-m-zero 65 'histogram -b 0:1:10 -m /dev/zero'
T_TIMEOUT=60 t sample-gen-w-zero 65 "sample-gen -p '0*x' -r -180:180:p -w /dev/zero -n 10"
T_TIMEOUT=60 t bar-solve-zero 65 'bar-solve /dev/zero'
T_TIMEOUT=60 t bd-step-pqr-zero 65 'bd-step -n 1 /dev/zero - /dev/zero - /dev/zero'

# a directory: 66, the same in every reader
t bar-solve-directory 66 'bar-solve adir'
t bd-step-directory 66 'bd-step -n 1 adir - adir - adir'
t tpi-gpu-directory 66 'tpi-gpu --format gro adir'
t md-gpu-windows-directory 66 "md-gpu -p '0*x' -r -180:180:p -w adir -n 10"
t rmsd-directory 66 "rmsd -p '0*x' adir"


# qstat-mfpt reads hand-written lines a line at a time (it read its whole
# input into memory to look at it): /dev/zero is refused in the first MiB
T_TIMEOUT=60 t qstat-mfpt-zero 65 'qstat-mfpt /dev/zero'
T_TIMEOUT=60 t milestone-kmat-zero 65 'milestone-kmat /dev/zero'
long qstat-mfpt-long 'qstat-mfpt long.txt'
nul qstat-mfpt-nul 'qstat-mfpt nul.txt'
t qstat-mfpt-directory 66 'qstat-mfpt adir'
T_TIMEOUT=60 t fpt-count-zero 65 'fpt-count -a 0:1 -b 2:3 /dev/zero'
t fpt-count-directory 66 'fpt-count -a 0:1 -b 2:3 adir'

# lib/core/input.c's fek_getline against the reader it replaced (a
# character at a time, kept in tests/getline-check.c as the reference):
# the same returns, lines, errno after a read error, end-of-file and error
# indicators and place in the stream, on hand-written lines (at the bound
# and one over, NULs, CR LF, no final newline, empty lines, 1 MiB, EIO,
# a directory) and on random ones read in pieces of 1 byte to 4 KB.
CC=${CC:-cc}
if t getline-build 0 "$CC -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -O2 -I'$TOP/lib' -o gcheck '$TOP/tests/getline-check.c' '$TOP/lib/core/input.c' '$TOP/lib/core/error.c' '$TOP/lib/core/progress.c' '$TOP/lib/core/clock.c' -lm"; then
	T_TIMEOUT=120 t getline-vs-reference 0 './gcheck 20000 1 > gcheck.out'
	ok getline-no-mismatch grep -q ' 0 mismatches$' gcheck.out
fi

# The same through a tool: a text stream read by histogram, its lines at
# and past the bounds (65535 bytes a header line, 1 MiB a data line; a
# comment, so that a line the reader takes changes nothing), with NULs,
# CR LF, empty lines and no final newline.  What is taken gives the same
# bytes as the plain stream; what is not, exit 65 and the line named.
printf '%s\n' '2 1000' '5 1000' > win2
sample-gen -q -w win2 -p '(x-5)^2' -r 0:10 -n 500 -s 5 -T > plain.txt
H='histogram -b 0:10:20'
t hist-plain 0 "$H < plain.txt > plain.out"
# comment LEN: a comment line of LEN bytes (without its newline)
comment() { head -c "$(($1 - 2))" /dev/zero | tr '\0' x | sed 's/^/# /'; }
# edit N FILE: plain.txt with FILE's lines put after its line N
edit() { awk -v n="$1" -v f="$2" '{ print } NR == n { while ((getline l < f) > 0) print l }' plain.txt; }
comment 65535 > c65535; comment 65536 > c65536
comment 1048576 > c1m; comment 1048577 > c1m1
edit 1 c65535 > hdr-max.txt; edit 1 c65536 > hdr-over.txt
edit 12 c1m > data-max.txt; edit 12 c1m1 > data-over.txt
ok hist-lengths sh -c "[ \$(awk 'NR == 2 { print length }' hdr-max.txt) = 65535 ] && [ \$(awk 'NR == 13 { print length }' data-max.txt) = 1048576 ]"
t hist-header-max 0 "$H < hdr-max.txt > hdr-max.out" && same_file hist-header-max-same plain.out hdr-max.out
t hist-header-over 65 "$H < hdr-over.txt"
says hist-header-over 'line 2: line longer than 65535 bytes'
t hist-data-max 0 "$H < data-max.txt > data-max.out" && same_file hist-data-max-same plain.out data-max.out
t hist-data-over 65 "$H < data-over.txt"
says hist-data-over 'line 13: line longer than 1048576 bytes'
awk '{ printf "%s\r\n", $0 }' plain.txt > crlf.txt
t hist-crlf 0 "$H < crlf.txt > crlf.out" && same_file hist-crlf-same plain.out crlf.out
head -c -1 plain.txt > nonl.txt
t hist-no-final-newline 0 "$H < nonl.txt > nonl.out" && same_file hist-no-final-newline-same plain.out nonl.out
head -c -1 crlf.txt > crnonl.txt
t hist-cr-no-newline 0 "$H < crnonl.txt > crnonl.out" && same_file hist-cr-no-newline-same plain.out crnonl.out
awk '{ print } !/^#/ && NR % 7 == 0 { print ""; print "" }' plain.txt > empty.txt
t hist-empty-lines 0 "$H < empty.txt > empty.out" && same_file hist-empty-lines-same plain.out empty.out
awk 'NR == 20 { sub(/\./, ".\0") } { printf "%s\n", $0 }' plain.txt > nul-mid.txt
awk 'NR == 20 { printf "%s\0\n", $0; next } { print }' plain.txt > nul-end.txt
{ cat nonl.txt; printf '\0'; } > nul-last.txt
for f in nul-mid nul-end nul-last; do
	ok hist-$f-one-nul sh -c "[ \$(tr -cd '\\000' < $f.txt | wc -c) = 1 ]"
done
t hist-nul-middle 65 "$H < nul-mid.txt"
says hist-nul-middle 'line 20: a NUL byte in a text line'
t hist-nul-end 65 "$H < nul-end.txt"
says hist-nul-end 'line 20: a NUL byte in a text line'
t hist-nul-last 65 "$H < nul-last.txt"
says hist-nul-last "line $(wc -l < plain.txt): a NUL byte in a text line"
