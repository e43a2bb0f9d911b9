# A relocatable object with gorc records in format version 1, as the
# plugin wrote them before version 2: gorc_unwind alone (each range
# begins with its int32 start field, states are head bytes), no
# gorc_unwind_index, and a 12-byte note descriptor with version 1.  The
# tools must refuse it with a message, never read it as version 2.
	.text
	.globl	v1func
	.type	v1func, @function
v1func:
.L0:	.cfi_startproc
	pushq	%rbp
.L1:	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	xorl	%eax, %eax
	popq	%rbp
.L2:	.cfi_def_cfa_offset 8
	.cfi_restore 6
	ret
	.cfi_endproc
.L3:
	.size	v1func, .-v1func

	.section	gorc_unwind,"ao",@progbits,.L0
	.long	.L0-.			# range start
	.uleb128 .L1-.L0
	.byte	0x49, 0x7c		# cfa=sp+16 bp=[cfa-16]
	.uleb128 .L2-.L1
	.byte	0x21			# cfa=sp+8 bp=same
	.uleb128 .L3-.L2
	.byte	0			# end

	.section	.note.gorc,"aGR",@note,gorc.module.v1,comdat
	.p2align 2
	.long	5, 12, 1		# namesz, descsz, type
	.string	"gorc"
	.p2align 2
	.long	1			# version
	.hidden	__start_gorc_unwind
	.hidden	__stop_gorc_unwind
	.long	__start_gorc_unwind - .
	.long	__stop_gorc_unwind - .
	.section	.note.GNU-stack,"",@progbits
