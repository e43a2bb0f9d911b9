/* Records that say the return address is never signed, for code that
   signs it (paciasp ... autiasp), as the plugin would write them if it
   ignored DW_CFA_GNU_window_save.  libdw keeps no signed state, so only
   gorc-check's check against the code can see it: it must report a
   mismatch at the instruction after paciasp and at autiasp.  Everything
   else agrees with the CFI.  (aarch64.exp assembles it and expects
   gorc-check to fail.)  */
	.arch armv8-a
	.text
	.align	2
	.global	f
	.type	f, %function
f:
.LFB0:
	.cfi_startproc
	hint	25 // paciasp
	.cfi_window_save
.L4:
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
.L5:
	mov	x29, sp
	bl	g
	add	x0, x0, 1
	ldp	x29, x30, [sp], 16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
.L6:
	hint	29 // autiasp
	.cfi_window_save
.L7:
	ret
.L8:
	.cfi_endproc
.LFE0:
	.size	f, .-f
	.pushsection	gorc_unwind_index,"ao",@progbits,.LFB0
	.p2align	2
	.long	.LFB0-.
	.long	.LGORCB0-.
	.popsection
	.pushsection	gorc_unwind,"ao",@progbits,.LFB0
.LGORCB0:
	/* cfa=sp+16 fp=[cfa-16] ra=[cfa-8], RA code 1 without the signed bit
	   (the plugin writes 0x05 here) */
	.uleb128	(((.L5)-(.LFB0))<<3)|4
	.byte	0x29, 0x1, 0x7c, 0x7e
	/* back to the entry state: cfa=sp+0 fp=same ra=x30 */
	.uleb128	(((.L6)-(.L5))<<3)|3
	.byte	0x2
	.uleb128	(((.L8)-(.L6))<<3)|0
	.popsection
	.section	.note.GNU-stack,"",@progbits
