/*
 * replica_src.c - the text of lib/md/replica_eval.h, md-gpu's per-replica
 * engine, as a string: kernels/md/replica.cu hands it to NVRTC, so the GPU
 * compiles the same code as the CPU reference (lib/md/replica.c includes the
 * header).  The assembler's .incbin copies the file at build time (the Makefile
 * builds from the top of the tree, and the objects in lib depend on its
 * headers).
 */
__asm__(".section .rodata\n"
    "\t.globl fek_md_eval_text\n"
    "\t.type fek_md_eval_text, @object\n"
    "fek_md_eval_text:\n"
    "\t.incbin \"lib/md/replica_eval.h\"\n"
    "\t.byte 0\n"
    "\t.size fek_md_eval_text, . - fek_md_eval_text\n"
    "\t.previous\n");
