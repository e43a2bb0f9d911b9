/* libFuzzer target for the crash handler's symbol reader
   (include/gorc/elf_symbols.h through runtime/src/elfsym.c): the input
   is 8 bytes, an address, then an ELF file's bytes (the seeds: programs,
   objects and libraries built by the test).  gorc_elfsym_find looks the
   address and its neighbours up in the file (its section headers, its
   .symtab or .dynsym, its build ID note and .gnu_debuglink when it has
   no .symtab, followed to a debug file next to it: the input itself when
   the link names it), and gorc_elf_note_next walks the bytes as a note
   section.  Failures: crashes, sanitizer reports, and a broken promise:
   a name not NUL-terminated inside the buffer, a found symbol that does
   not contain or precede the address, a note that does not lie in the
   buffer or a walk that does not move forward.

   clang -fsanitize=fuzzer,address,undefined -Iinclude -Iruntime/include \
     -Iruntime/src testsuite/gorc.tools/fuzz/fuzz_elfsym.c runtime/src/elfsym.c  */

#include "fuzz-file.h"
#include "elfsym.h"

static void check_notes(const uint8_t *buf, size_t len)
{
  size_t pos = 0, last = 0;
  struct gorc_elf_note n;
  while (gorc_elf_note_next(buf, len, &pos, &n)) {
    if (pos <= last || pos > len)
      abort();
    if ((const uint8_t *)n.name < buf || n.desc < buf || n.desc + n.descsz > buf + len
        || (const uint8_t *)n.name + n.namesz > buf + len)
      abort();
    last = pos;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  uint64_t addr;
  if (size < 8)
    return 0;
  memcpy(&addr, data, 8);
  const char *path = fuzz_file("prog", data + 8, size - 8);
  for (int d = -1; d <= 1; d++) {
    struct gorc_elfsym sym;
    char name[64];
    memset(name, 'x', sizeof name);
    uint64_t at = addr + (uint64_t)(int64_t)d;
    if (gorc_elfsym_find(path, at, &sym, name, sizeof name) == 1) {
      if (!memchr(name, 0, sizeof name))
        abort();
      if (sym.value > at || (sym.size && at - sym.value >= sym.size))
        abort();
    }
  }
  check_notes(data + 8, size - 8);
  return 0;
}
