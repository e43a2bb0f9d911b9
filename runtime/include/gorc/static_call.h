/* gorc static calls: calls through a marked function pointer become direct
   calls to a patchable trampoline (docs/STATIC_CALLS.md).

     #include <gorc/static_call.h>
     int (*hash_fn)(const void *, size_t) GORC_STATIC_CALL = fnv_hash;
     ...
     h = hash_fn(p, n);                        // call *trampoline*, not *hash_fn
     gorc_static_call_update(hash_fn, murmur); // patches the trampoline

   With gcc -fplugin=gorc.so -fplugin-arg-gorc-static-calls every call
   `hash_fn(...)` / `(*hash_fn)(...)` in a unit that sees the declaration
   becomes `call __gorc_sc_tramp_hash_fn`; the trampoline (8 bytes, one
   per variable, hidden) is emitted by the unit that defines the variable.
   Stores to the variable, taking its address and marking anything but a
   static-storage pointer to function are compile errors.  The variable
   stays a real pointer that always holds the current target, so code
   built without the plugin (or without the option) calls through it and
   stays in sync.

   Without the plugin GORC_STATIC_CALL expands to nothing: plain pointers
   and plain indirect calls, same results.

   NULL target: the trampoline jumps to a stub `xor %eax,%eax; ret`, so a
   call returns with rax = 0 (void functions: nothing happens; integer, bool
   and pointer results: 0).  Floating-point and struct results are
   unspecified.  Calls through the plain pointer (units built without
   the rewrite) of course crash on NULL: test the variable there.

   gorc_static_call_update(var, fn) is type-checked at compile time (fn
   must have the variable's type, be a function of the pointed-to type or
   be NULL) and is the only allowed way to change var.  It returns 0 when
   the trampoline was patched, GORC_SC_NOT_PATCHED (1) when var has no
   trampoline (its defining unit was built without the rewrite; only the
   pointer was stored), or -errno (nothing changed).  It serialises
   updates with a mutex: normal context only, not from a signal handler.  */

#ifndef GORC_STATIC_CALL_H
#define GORC_STATIC_CALL_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__has_attribute)
#if __has_attribute(gorc_static_call)
#define GORC_STATIC_CALL_PLUGIN 1
#endif
#endif

#ifdef GORC_STATIC_CALL_PLUGIN
#define GORC_STATIC_CALL __attribute__((gorc_static_call))
#else
#define GORC_STATIC_CALL
#endif

#define GORC_SC_NOT_PATCHED 1

/* The exported entry point behind gorc_static_call_update.  VAR is the
   address of the marked variable, FN the new target (or NULL).  */
int gorc_static_call_set(void *var, void (*fn)(void));

/* Statistics and test hooks: how the last update patched its trampoline
   (GORC_SC_VIA_*), and how many trampolines libgorc has patched.  */
#define GORC_SC_VIA_NONE 0     /* no trampoline (pointer stored only) */
#define GORC_SC_VIA_ALIAS 1    /* store through the second (memfd) view */
#define GORC_SC_VIA_MPROTECT 2 /* page briefly made writable */
int gorc_static_call_last_method(void);

/* Call sites patched in place (off unless enabled here or with the
   environment variable GORC_STATIC_CALL_SITES=1): each later update also
   rewrites the rel32 of every recorded `call`/`jmp` to the trampoline
   whose rel32 lies inside one aligned 8-byte word (the plugin aligns every
   call it rewrites so that it does; others keep going through the
   trampoline), so those calls reach the target directly.  The
   text page is made writable+executable for the stores and read+exec
   again.  Turned off again, later updates point patched sites back at
   the trampoline.  Returns the previous setting.  */
int gorc_static_call_patch_sites(int on);
/* How many call sites the last update rewrote in place.  */
long gorc_static_call_sites_patched(void);

#ifdef __cplusplus
}
#define gorc_static_call_update(var, fn)                                     \
  ([&]() -> int {                                                            \
    decltype(var) gorc_sc_new_ = (fn);                                       \
    return gorc_static_call_set((void *) &(var),                             \
                                (void (*)(void)) gorc_sc_new_);              \
  }())
#else
/* _Generic applies function-to-pointer decay to FN; NULL is ((void *)0).  */
#define gorc_static_call_update(var, fn)                                     \
  __extension__({                                                            \
    _Static_assert(_Generic((fn), __typeof__(var): 1, void *: 1, default: 0), \
                   "gorc_static_call_update: the new target's type differs " \
                   "from the static-call variable's");                       \
    gorc_static_call_set((void *) &(var), (void (*)(void))(fn));             \
  })
#endif

/* The trampolines, descriptors and call-site table the plugin emits are
   described in include/gorc/static_call_desc.h (docs/STATIC_CALLS.md).  */

#endif
