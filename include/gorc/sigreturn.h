/* gorc: Linux's signal return trampolines, per machine.  A handler
   returns through one; a return address at its first instruction tells
   a walk that the frame above is a signal frame (an interrupted context
   may also stand at its system call).  Defined once, for libgorc's ports
   (runtime/src/<arch>/arch.h) and gorc-prof, which looks for them in the
   files of a profiled process.  */

#ifndef GORC_SIGRETURN_H
#define GORC_SIGRETURN_H

/* x86-64: glibc's __restore_rt (SA_RESTORER), mov $15, %rax; syscall.  */
#define GORC_SIGRETURN_X86_64 { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 }
#define GORC_SIGRETURN_X86_64_LEN 9
#define GORC_SIGRETURN_X86_64_SYSCALL_OFF 7

/* aarch64: the vDSO's __kernel_rt_sigreturn (glibc sets no SA_RESTORER),
   mov x8, #139 (rt_sigreturn); svc #0.  */
#define GORC_SIGRETURN_AARCH64 { 0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4 }
#define GORC_SIGRETURN_AARCH64_LEN 8
#define GORC_SIGRETURN_AARCH64_SYSCALL_OFF 4

#endif
