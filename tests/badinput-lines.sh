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
