/* Hand-written CFI for the oracle: every DW_CFA opcode gorc interprets,
   the augmentations zR, zPLR, zLR, zS and "".  Never run.  (64-bit
   records are in synthetic.c only: ld makes no .eh_frame_hdr search
   table for an object that has one.)
   Each row is separated by filler so that rows have distinct addresses;
   the .skip sizes make gas use advance_loc, advance_loc1, 2 and 4.  */

	.text

	.globl	asm_cfi_opcodes
	.type	asm_cfi_opcodes, @function
asm_cfi_opcodes:
	.cfi_startproc
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	.skip	3, 0x90
	.cfi_remember_state
	.skip	100, 0x90
	.cfi_restore %rbp
	.cfi_def_cfa %rsp, 16
	.skip	300, 0x90
	.cfi_remember_state
	.cfi_def_cfa_offset 32
	.skip	2, 0x90
	.cfi_restore_state
	.skip	2, 0x90
	.cfi_restore_state
	.skip	70000, 0x90
	.cfi_same_value %rbp
	.skip	2, 0x90
	.cfi_register %rbp, %rax
	.skip	2, 0x90
	.cfi_val_offset %rbp, -16
	.skip	2, 0x90
	.cfi_undefined %rbp
	.skip	2, 0x90
	/* DW_CFA_expression rbp, {DW_OP_breg3 +8}: rbp saved at rbx + 8 */
	.cfi_escape 0x10, 0x06, 0x02, 0x73, 0x08
	.skip	2, 0x90
	/* DW_CFA_expression rbp, {DW_OP_breg3 +8; DW_OP_deref}: other */
	.cfi_escape 0x10, 0x06, 0x03, 0x73, 0x08, 0x06
	.skip	2, 0x90
	/* DW_CFA_GNU_args_size 16 */
	.cfi_escape 0x2e, 0x10
	.skip	2, 0x90
	/* DW_CFA_def_cfa_expression {DW_OP_breg7 +16; DW_OP_deref} */
	.cfi_escape 0x0f, 0x03, 0x77, 0x10, 0x06
	.skip	2, 0x90
	/* DW_CFA_def_cfa_expression {DW_OP_breg7 +16}: not a load: undefined */
	.cfi_escape 0x0f, 0x02, 0x77, 0x10
	.skip	2, 0x90
	.cfi_def_cfa %r12, 24
	.skip	2, 0x90
	/* DW_CFA_def_cfa_sf rsp, -2 (* -8 = 16) */
	.cfi_escape 0x12, 0x07, 0x7e
	.skip	2, 0x90
	/* DW_CFA_def_cfa_offset_sf -3 (* -8 = 24) */
	.cfi_escape 0x13, 0x7d
	.skip	2, 0x90
	/* DW_CFA_offset_extended_sf rbp, -4 (* -8 = +32) */
	.cfi_escape 0x11, 0x06, 0x7c
	.skip	2, 0x90
	/* DW_CFA_GNU_negative_offset_extended rbp, 2 (-(2 * -8) = +16) */
	.cfi_escape 0x2f, 0x06, 0x02
	.skip	2, 0x90
	/* DW_CFA_offset_extended rbp, 3 (* -8 = -24) */
	.cfi_escape 0x05, 0x06, 0x03
	.skip	2, 0x90
	/* DW_CFA_restore_extended rbp */
	.cfi_escape 0x06, 0x06
	.skip	2, 0x90
	/* DW_CFA_val_expression rbp, {DW_OP_breg7 0} */
	.cfi_escape 0x16, 0x06, 0x02, 0x77, 0x00
	.skip	2, 0x90
	/* DW_CFA_val_offset rip, 1: not at CFA-8 */
	.cfi_escape 0x14, 0x10, 0x01
	.skip	2, 0x90
	.cfi_offset %rip, -8
	.skip	2, 0x90
	/* DW_CFA_val_offset_sf rbp, -2 */
	.cfi_escape 0x15, 0x06, 0x7e
	.skip	2, 0x90
	.cfi_offset %rip, -16
	.skip	2, 0x90
	.cfi_offset %rip, -8
	.cfi_def_cfa %rbp, 16
	.cfi_offset %rbp, -16
	.skip	2, 0x90
	/* a nop, and an offset on a column gorc does not track */
	.cfi_escape 0x00
	.cfi_offset %rbx, -24
	.skip	2, 0x90
	/* DW_CFA_expression rbp, {DW_OP_breg6 0} as after realignment */
	.cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00
	.skip	2, 0x90
	.cfi_def_cfa_offset 0x80000000
	.skip	2, 0x90
	.cfi_def_cfa_offset 16
	.cfi_undefined %rip
	.skip	2, 0x90
	.cfi_same_value %rip
	.skip	2, 0x90
	ret
	.cfi_endproc
	.size	asm_cfi_opcodes, .-asm_cfi_opcodes

	.globl	asm_cfi_signal
	.type	asm_cfi_signal, @function
asm_cfi_signal:
	.cfi_startproc
	.cfi_signal_frame
	nop
	sub	$8, %rsp
	.cfi_adjust_cfa_offset 8
	add	$8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size	asm_cfi_signal, .-asm_cfi_signal

	.globl	asm_cfi_personality
	.type	asm_cfi_personality, @function
asm_cfi_personality:
	.cfi_startproc
	.cfi_personality 0x9b, pers_ref
	.cfi_lsda 0x1b, lsda
	push	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	pop	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	asm_cfi_personality, .-asm_cfi_personality

	/* zLR (LSDA without personality) */
	.globl	asm_cfi_outermost
	.type	asm_cfi_outermost, @function
asm_cfi_outermost:
	.cfi_startproc
	.cfi_lsda 0x1b, lsda
	.cfi_undefined %rip
	xor	%ebp, %ebp
	nop
	.cfi_def_cfa %rsp, 0
	hlt
	.cfi_endproc
	.size	asm_cfi_outermost, .-asm_cfi_outermost

	/* Functions described by the raw records below.  */
	.globl	raw_fn1
	.type	raw_fn1, @function
raw_fn1:
	.skip	16, 0x90
	ret
	.size	raw_fn1, .-raw_fn1
	.globl	raw_fn2
	.type	raw_fn2, @function
raw_fn2:
	.skip	300, 0x90
	ret
	.size	raw_fn2, .-raw_fn2
	.globl	raw_fn3
	.type	raw_fn3, @function
raw_fn3:
	.skip	16, 0x90
	ret
	.size	raw_fn3, .-raw_fn3
	.skip	16, 0x90

	.section .rodata
lsda:	.byte	0xff, 0xff, 0x01, 0x00
	.data
	.p2align 3
pers_ref:
	.quad	0

/* Raw records the assembler does not make (the test is linked -no-pie so
   absolute and datarel pointers hold link-time addresses).  */
	.section .eh_frame,"a",@unwind
	.p2align 3
	/* CIE version 3, "zR", FDE pointers pcrel|sdata8 */
.Lcie1:
	.long	.Lcie1_end - .Lcie1_id
.Lcie1_id:
	.long	0
	.byte	3
	.asciz	"zR"
	.uleb128 1
	.sleb128 -8
	.uleb128 16
	.uleb128 1
	.byte	0x1c
	.byte	0x0c, 0x07, 0x08	/* def_cfa rsp, 8 */
	.byte	0x90, 0x01		/* offset rip, 1 */
.Lcie1_end:
	/* its FDE, with DW_CFA_set_loc */
	.long	.Lfde1_end - .Lfde1_id
.Lfde1_id:
	.long	.Lfde1_id - .Lcie1
	.quad	raw_fn1 - .
	.quad	17
	.uleb128 0
	.byte	0x01			/* set_loc raw_fn1 + 4 */
	.quad	raw_fn1 + 4 - .
	.byte	0x0e, 0x10		/* def_cfa_offset 16 */
	.byte	0x41			/* advance_loc 1 */
	.byte	0x86, 0x02		/* offset rbp, 2 */
	.byte	0x01			/* set_loc raw_fn1 + 9 */
	.quad	raw_fn1 + 9 - .
	.byte	0xc6			/* restore rbp */
	.byte	0x0e, 0x08		/* def_cfa_offset 8 */
.Lfde1_end:

	/* 32-bit CIE, version 1, no augmentation: absptr, 1-byte RA column */
.Lcie2:
	.long	.Lcie2_end - .Lcie2_id
.Lcie2_id:
	.long	0
	.byte	1
	.asciz	""
	.uleb128 1
	.sleb128 -8
	.byte	16
	.byte	0x0c, 0x07, 0x08
	.byte	0x90, 0x01
	.p2align 2, 0
.Lcie2_end:
	.long	.Lfde2_end - .Lfde2_id
.Lfde2_id:
	.long	.Lfde2_id - .Lcie2
	.quad	raw_fn2
	.quad	301
	.byte	0x02, 0x05		/* advance_loc1 5 */
	.byte	0x0e, 0x10
	.byte	0x03, 0x10, 0x01	/* advance_loc2 272 */
	.byte	0x0e, 0x08
	.p2align 2, 0
.Lfde2_end:

	/* CIE version 4, "zR", datarel|udata4 (absolute on x86-64), caf 2 */
.Lcie3:
	.long	.Lcie3_end - .Lcie3_id
.Lcie3_id:
	.long	0
	.byte	4
	.asciz	"zR"
	.byte	8, 0
	.uleb128 2
	.sleb128 -8
	.uleb128 16
	.uleb128 1
	.byte	0x33
	.byte	0x0c, 0x07, 0x08
	.byte	0x90, 0x01
	.p2align 2, 0
.Lcie3_end:
	.long	.Lfde3_end - .Lfde3_id
.Lfde3_id:
	.long	.Lfde3_id - .Lcie3
	.long	raw_fn3
	.long	17
	.uleb128 0
	.byte	0x41			/* advance_loc 1 (* caf 2) */
	.byte	0x0a			/* remember_state */
	.byte	0x0e, 0x20
	.byte	0x04			/* advance_loc4 3 (* 2) */
	.long	3
	.byte	0x0b			/* restore_state */
	.byte	0x42
	.byte	0x07, 0x10		/* undefined rip */
	.p2align 2, 0
.Lfde3_end:
	.section .note.GNU-stack,"",@progbits
