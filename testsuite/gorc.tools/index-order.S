/* Four functions with version 2 records written by hand, their index
   entries in one section (so no linker reorders them): in address order
   with -DSORTED, else main, f3, f1, f2, unsorted whatever ld does.  Both
   tools must read both, every range (tools.exp).  */
	.text
	.globl	f1
	.type	f1, @function
f1:
.Lf1:	.cfi_startproc
	pushq	%rbp
.Lf1a:	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	xorl	%eax, %eax
	popq	%rbp
.Lf1b:	.cfi_def_cfa_offset 8
	.cfi_restore 6
	ret
	.cfi_endproc
.Lf1e:
	.size	f1, .-f1

	.globl	f2
	.type	f2, @function
f2:
.Lf2:	.cfi_startproc
	leal	2(%rdi), %eax
	ret
	.cfi_endproc
.Lf2e:
	.size	f2, .-f2

	.globl	f3
	.type	f3, @function
f3:
.Lf3:	.cfi_startproc
	leal	1(%rdi), %eax
	ret
	.cfi_endproc
.Lf3e:
	.size	f3, .-f3

	.globl	main
	.type	main, @function
main:
.Lm:	.cfi_startproc
	xorl	%eax, %eax
	ret
	.cfi_endproc
.Lme:
	.size	main, .-main

/* Index entries: int32 range start - here, int32 body - here.  Bodies:
   uleb128(delta << 3 | op) then operands; op 4 STATE, 0 END.  */
	.section	gorc_unwind_index,"ao",@progbits,.Lf1
	.p2align 2
#ifdef SORTED
	.long	.Lf1-., .Lb1-.
	.long	.Lf2-., .Lb2-.
	.long	.Lf3-., .Lb3-.
	.long	.Lm-., .Lbm-.
#else
	.long	.Lm-., .Lbm-.
	.long	.Lf3-., .Lb3-.
	.long	.Lf1-., .Lb1-.
	.long	.Lf2-., .Lb2-.
#endif
	.section	gorc_unwind,"ao",@progbits,.Lf1
.Lb1:	.uleb128 ((.Lf1a-.Lf1)<<3)|4
	.byte	0x49, 0x7c		/* cfa=sp+16 bp=[cfa-16] */
	.uleb128 ((.Lf1b-.Lf1a)<<3)|4
	.byte	0x21			/* cfa=sp+8 bp=same */
	.uleb128 ((.Lf1e-.Lf1b)<<3)|0	/* end */
.Lb2:	.uleb128 ((.Lf2e-.Lf2)<<3)|0
.Lb3:	.uleb128 ((.Lf3e-.Lf3)<<3)|0
.Lbm:	.uleb128 ((.Lme-.Lm)<<3)|0

	.section	.note.gorc,"aGR",@note,gorc.module.v2,comdat
	.p2align 2
	.long	5, 24, 1		/* namesz, descsz, type */
	.string	"gorc"
	.p2align 2
	.long	2, 62			/* version, machine (EM_X86_64) */
	.hidden	__start_gorc_unwind_index
	.hidden	__stop_gorc_unwind_index
	.long	__start_gorc_unwind_index - .
	.long	__stop_gorc_unwind_index - .
	.hidden	__start_gorc_unwind
	.hidden	__stop_gorc_unwind
	.long	__start_gorc_unwind - .
	.long	__stop_gorc_unwind - .
	.section	.note.GNU-stack,"",@progbits
