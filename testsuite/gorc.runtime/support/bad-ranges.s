# A module of hand-written version 2 records (bad-ranges.c), no .eh_frame:
# good ranges next to bad ones.  Each function calls the callback in %rdi.
#   good_push   push/pop: its range, and before it in the index a range of
#               length 0 at the same start (an empty function there)
#   good_frame  sub/add: its range, and after it in the index a range of
#               length 0 at the same start
#   bad_body    a range whose body has a reserved op (5)
#   good_last   after the bad one
# The index is one input section, so the linker keeps its order.
	.text
	.globl	good_push, good_frame, bad_body, good_last
	.type	good_push, @function
	.type	good_frame, @function
	.type	bad_body, @function
	.type	good_last, @function
	.p2align 4
good_push:
.Lpush:
	pushq	%rbx			# +0
	call	*%rdi			# +1
	popq	%rbx			# +3
	ret				# +4
.Lpush_end:
	.size	good_push, .-good_push
	.p2align 4
good_frame:
.Lframe:
	subq	$24, %rsp		# +0 (4 bytes)
	call	*%rdi			# +4
	addq	$24, %rsp		# +6
	ret				# +10
	.size	good_frame, .-good_frame
	.p2align 4
bad_body:
.Lbad:
	pushq	%rbx
	call	*%rdi
	popq	%rbx
	ret
	.size	bad_body, .-bad_body
	.p2align 4
good_last:
.Llast:
	pushq	%rbp			# +0
	pushq	%rbx			# +1
	subq	$8, %rsp		# +2
	call	*%rdi			# +6
	addq	$8, %rsp		# +8
	popq	%rbx			# +12
	popq	%rbp			# +13
	ret				# +14
	.size	good_last, .-good_last

	.section gorc_unwind_index,"a",@progbits
	.p2align 2
.Lindex_start:
	.long	.Lpush - ., .Lb_empty - .
	.long	.Lpush - ., .Lb_push - .
	.long	.Lframe - ., .Lb_frame - .
	.long	.Lframe - ., .Lb_empty - .
	.long	.Lbad - ., .Lb_bad - .
	.long	.Llast - ., .Lb_last - .
.Lindex_end:

# Entries: uleb128 (delta << 3 | op); ops 0 END, 1 PUSH, 2 POP, 4 STATE.
	.section gorc_unwind,"a",@progbits
.Lbodies_start:
.Lb_push:
	.byte	(1 << 3) | 1		# +1: cfa sp+16
	.byte	(3 << 3) | 2		# +4: cfa sp+8
	.byte	(1 << 3) | 0		# end at +5
.Lb_frame:
	.byte	(4 << 3) | 4, 0x81	# +4: cfa sp+32
	.byte	(6 << 3) | 4, 0x21	# +10: cfa sp+8
	.byte	(1 << 3) | 0		# end at +11
.Lb_empty:
	.byte	0			# end at +0: a range of length 0
.Lb_bad:
	.byte	(1 << 3) | 5		# +1: reserved op
	.byte	(4 << 3) | 0
.Lb_last:
	.byte	(1 << 3) | 4, 0x49, 0x7c	# +1: cfa sp+16, rbp at cfa-16
	.byte	(1 << 3) | 1		# +2: cfa sp+24
	.byte	(4 << 3) | 1		# +6: cfa sp+32
	.byte	(6 << 3) | 2		# +12: cfa sp+24
	.byte	(1 << 3) | 2		# +13: cfa sp+16
	.byte	(1 << 3) | 4, 0x21	# +14: cfa sp+8, rbp same
	.byte	(1 << 3) | 0		# end at +15
.Lbodies_end:

	.section .note.gorc,"a",@note
	.p2align 2
	.long	5, 24, 1
	.string	"gorc"
	.p2align 2
	.long	2, 62
	.long	.Lindex_start - .
	.long	.Lindex_end - .
	.long	.Lbodies_start - .
	.long	.Lbodies_end - .

	.section .note.GNU-stack,"",@progbits
