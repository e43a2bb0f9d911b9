# A module as a version 1 plugin built it (v1-note.c): a .note.gorc whose
# descriptor is version 1 (12 bytes: version, then PC-relative offsets to
# the start and end of gorc_unwind), v1 ranges in gorc_unwind (int32
# start, entries of uleb128 delta and state byte, end marker), and
# .eh_frame from the CFI directives.  No gorc_unwind_index: version 1 had
# none.  Read as version 2 the range bytes are wrong from the first one
# (01: a PUSH at the entry, CFA sp+16 where it is sp+8), so a walk through
# these functions is exact only when libgorc ignores them and follows
# .eh_frame.
	.text
	.globl	v1_frame
	.type	v1_frame, @function
# int v1_frame (int (*cb) (void)): calls CB with 48 bytes of frame
v1_frame:
.Lv1_frame:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	subq	$32, %rsp
	.cfi_def_cfa_offset 48
	call	*%rdi
	addq	$32, %rsp
	.cfi_def_cfa_offset 16
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	v1_frame, .-v1_frame

	.globl	v1_bp
	.type	v1_bp, @function
# int v1_bp (int (*cb) (void)): calls CB with an rbp frame
v1_bp:
.Lv1_bp:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq	$64, %rsp
	call	*%rdi
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	v1_bp, .-v1_bp

# Version 1 ranges: what the old plugin wrote for the code above.
	.section gorc_unwind,"a",@progbits
.Lv1_start:
	.long	.Lv1_frame - .
	.byte	1, 0x41		# +1: cfa sp+16
	.byte	4, 0xc1		# +5: cfa sp+48
	.byte	6, 0x41		# +11: cfa sp+16
	.byte	1, 0x21		# +12: cfa sp+8
	.byte	1, 0x00		# end at +13
	.long	.Lv1_bp - .
	.byte	1, 0x49, 0x7c	# +1: cfa sp+16, rbp at cfa-16
	.byte	3, 0x52		# +4: cfa rbp+16, rbp as before
	.byte	10, 0x21	# +14 (after leave): cfa sp+8, rbp same
	.byte	1, 0x00		# end at +15
.Lv1_end:

	.section .note.gorc,"a",@note
	.p2align 2
	.long	5, 12, 1
	.string	"gorc"
	.p2align 2
	.long	1
	.long	.Lv1_start - .
	.long	.Lv1_end - .

	.section .note.GNU-stack,"",@progbits
