/* The symbol reader of the crash handler and gorc-prof (elfsym.c) on
   corrupt, truncated and foreign files: "no symbol" (or, where the damage
   spared what the lookup reads, the right one), never a fault and never
   a name that is not a NUL-terminated string of the buffer.  The files
   are copies of this program with its ELF header, section headers,
   symbol table or note sections damaged: truncated at every 1/97 of the
   file, bogus offsets, huge counts (section count, extended numbering,
   symbol table size), out-of-range links and names, then random bytes
   of the headers.  Also the note walker on crafted buffers.  */
/* { dg-do run } */
/* { dg-gorc-runtime internal } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "elfsym.h"
#include "support/rt-test.h"

__attribute__((noinline, used)) int elfsym_target(int x)
{
  return x * 3 + 1;
}

static unsigned char *image;
static size_t image_size;
static uint64_t target;            /* elfsym_target+1 as the file numbers it */
static char tmp_path[64];
static int lookups, found_right;

static void read_self(void)
{
  int fd = open("/proc/self/exe", O_RDONLY);
  struct stat st;
  CHECK(fd >= 0 && fstat(fd, &st) == 0, fd);
  image_size = (size_t)st.st_size;
  image = malloc(image_size);
  CHECK(image && read(fd, image, image_size) == (ssize_t)image_size, image_size);
  close(fd);
  struct dl_find_object f;
  CHECK(_dl_find_object((void *)elfsym_target, &f) == 0, 0);
  target = (uint64_t)(uintptr_t)elfsym_target + 1 - f.dlfo_link_map->l_addr;
}

static Elf64_Ehdr *eh(unsigned char *img) { return (Elf64_Ehdr *)img; }
static Elf64_Shdr *sh(unsigned char *img, unsigned i)
{
  return (Elf64_Shdr *)(img + eh(img)->e_shoff) + i;
}

/* Index of the first section of TYPE in the intact image.  */
static unsigned section_of(uint32_t type)
{
  for (unsigned i = 0; i < eh(image)->e_shnum; i++)
    if (sh(image, i)->sh_type == type)
      return i;
  FAIL("no section of type", type);
}

/* Look up the target in IMG (LEN bytes written to a file): no symbol, or
   elfsym_target; the name a string of the buffer either way.  */
static void check_file(const unsigned char *img, size_t len, const char *what)
{
  int fd = open(tmp_path, O_WRONLY | O_TRUNC);
  CHECK(fd >= 0 && write(fd, img, len) == (ssize_t)len, len);
  close(fd);
  char name[64];
  memset(name, 'x', sizeof name);
  struct gorc_elfsym sym;
  int r = gorc_elfsym_find(tmp_path, target, &sym, name, sizeof name);
  lookups++;
  CHECK(r == 0 || r == 1, r);
  if (r) {
    CHECK(memchr(name, 0, sizeof name) != NULL, r);
    found_right += strcmp(name, "elfsym_target") == 0;
  }
  (void)what;
}

/* A copy of the image with CHANGE applied, checked.  */
static unsigned char *copy;

static unsigned char *fresh(void)
{
  memcpy(copy, image, image_size);
  return copy;
}

static void truncated(void)
{
  for (size_t k = 0; k < 97; k++)
    check_file(image, image_size * k / 97, "truncated");
  size_t shoff = eh(image)->e_shoff;
  check_file(image, shoff + 10, "truncated in the section headers");
  check_file(image, image_size - 1, "last byte cut");
}

static void bogus_offsets(void)
{
  unsigned symtab = section_of(SHT_SYMTAB), strtab = sh(image, symtab)->sh_link;
  fresh();
  eh(copy)->e_shoff = ~0ull - 8;
  check_file(copy, image_size, "e_shoff near 2^64");
  fresh();
  eh(copy)->e_shoff = image_size - 10;
  check_file(copy, image_size, "e_shoff at the end");
  fresh();
  sh(copy, symtab)->sh_offset = ~0ull - 100;
  check_file(copy, image_size, "symtab offset near 2^64");
  fresh();
  sh(copy, symtab)->sh_offset = image_size - 24;
  check_file(copy, image_size, "symtab at the end");
  fresh();
  sh(copy, symtab)->sh_link = 0xfffffff0;
  check_file(copy, image_size, "symtab link out of range");
  fresh();
  sh(copy, strtab)->sh_offset = image_size + 4096;
  check_file(copy, image_size, "strtab past the end");
  fresh();
  sh(copy, strtab)->sh_size = 3;
  check_file(copy, image_size, "strtab too short for the names");
  fresh();
  Elf64_Sym *s = (Elf64_Sym *)(copy + sh(copy, symtab)->sh_offset);
  for (size_t i = 0; i < sh(copy, symtab)->sh_size / sizeof *s; i++)
    s[i].st_name = 0xffffff00u + (uint32_t)(i & 0xff);
  check_file(copy, image_size, "every name out of range");
  fresh();
  s = (Elf64_Sym *)(copy + sh(copy, symtab)->sh_offset);
  for (size_t i = 0; i < sh(copy, symtab)->sh_size / sizeof *s; i++)
    s[i].st_size = ~0ull;
  check_file(copy, image_size, "every symbol of size 2^64-1");
  /* a note section whose notes claim more than it holds */
  for (unsigned i = 0; i < eh(image)->e_shnum; i++)
    if (sh(image, i)->sh_type == SHT_NOTE) {
      fresh();
      sh(copy, symtab)->sh_type = SHT_PROGBITS; /* no .symtab: notes are read */
      uint32_t *n = (uint32_t *)(copy + sh(copy, i)->sh_offset);
      n[0] = 0xfffffffd;
      n[1] = 0xfffffffd;
      check_file(copy, image_size, "note sizes near 2^32");
    }
}

static void huge_counts(void)
{
  unsigned symtab = section_of(SHT_SYMTAB);
  fresh();
  eh(copy)->e_shnum = 0xffff;
  check_file(copy, image_size, "e_shnum 0xffff");
  fresh();
  eh(copy)->e_shnum = 0;
  sh(copy, 0)->sh_size = 0xffffffffu;
  check_file(copy, image_size, "extended section count 2^32-1");
  fresh();
  eh(copy)->e_shstrndx = SHN_XINDEX;
  sh(copy, 0)->sh_link = 0xffffffffu;
  sh(copy, section_of(SHT_SYMTAB))->sh_type = SHT_PROGBITS;
  check_file(copy, image_size, "extended shstrndx out of range");
  fresh();
  sh(copy, symtab)->sh_size = 1ull << 62;
  check_file(copy, image_size, "symtab of 2^62 bytes");
  fresh();
  sh(copy, symtab)->sh_entsize = 7;
  check_file(copy, image_size, "symtab entries of 7 bytes");
}

static void foreign(void)
{
  fresh();
  copy[EI_CLASS] = ELFCLASS32;
  check_file(copy, image_size, "32-bit");
  fresh();
  copy[EI_DATA] = ELFDATA2MSB;
  check_file(copy, image_size, "big-endian");
  fresh();
  eh(copy)->e_shentsize = 40;
  check_file(copy, image_size, "section headers of 40 bytes");
  check_file((const unsigned char *)"#!/bin/sh\n", 10, "a script");
  char name[16];
  struct gorc_elfsym sym;
  CHECK(gorc_elfsym_find("/", target, &sym, name, sizeof name) == 0, 0);
  CHECK(gorc_elfsym_find("/dev/zero", target, &sym, name, sizeof name) == 0, 0);
  CHECK(gorc_elfsym_find("/nonexistent/x", target, &sym, name, sizeof name) == 0, 0);
  CHECK(gorc_elfsym_find("/proc/self/exe", target, &sym, name, 0) == 0, 0);
}

/* Random bytes of the ELF header and the section headers.  */
static void random_headers(void)
{
  size_t shoff = eh(image)->e_shoff, shlen = (size_t)eh(image)->e_shnum * sizeof(Elf64_Shdr);
  srand(12345);
  for (int round = 0; round < 400; round++) {
    fresh();
    for (int k = 0; k < 1 + round % 8; k++) {
      size_t at = rand() % 2 ? (size_t)rand() % sizeof(Elf64_Ehdr)
                             : shoff + (size_t)rand() % shlen;
      copy[at] = (unsigned char)rand();
    }
    check_file(copy, image_size, "random header bytes");
  }
}

static void notes(void)
{
  uint32_t buf[16];
  struct gorc_elf_note n;
  size_t pos = 0;
  memset(buf, 0, sizeof buf);
  /* two notes: "GNU" type 3 with 4 bytes, then "ab" type 7 with 0 bytes */
  buf[0] = 4; buf[1] = 4; buf[2] = 3; memcpy(&buf[3], "GNU", 4); buf[4] = 0xdeadbeef;
  buf[5] = 3; buf[6] = 0; buf[7] = 7; memcpy(&buf[8], "ab", 3);
  CHECK(gorc_elf_note_next((uint8_t *)buf, 36, &pos, &n) == 1 && n.type == 3, pos);
  CHECK(n.descsz == 4 && strcmp(n.name, "GNU") == 0 && n.desc == (uint8_t *)&buf[4], n.descsz);
  CHECK(gorc_elf_note_next((uint8_t *)buf, 36, &pos, &n) == 1 && n.type == 7, pos);
  CHECK(pos == 36 && gorc_elf_note_next((uint8_t *)buf, 36, &pos, &n) == 0, pos);
  pos = 0;
  CHECK(gorc_elf_note_next((uint8_t *)buf, 19, &pos, &n) == 0, pos); /* desc cut */
  buf[0] = 0xfffffffd;
  pos = 0;
  CHECK(gorc_elf_note_next((uint8_t *)buf, sizeof buf, &pos, &n) == 0, pos);
  buf[0] = 4;
  buf[1] = 0xfffffffd;
  pos = 0;
  CHECK(gorc_elf_note_next((uint8_t *)buf, sizeof buf, &pos, &n) == 0, pos);
  pos = 100;
  CHECK(gorc_elf_note_next((uint8_t *)buf, sizeof buf, &pos, &n) == 0, pos);
}

int main(void)
{
  read_self();
  copy = malloc(image_size);
  CHECK(copy != NULL, 0);
  /* the intact file first: the reader finds the function */
  char name[64];
  struct gorc_elfsym sym;
  CHECK(gorc_elfsym_find("/proc/self/exe", target, &sym, name, sizeof name) == 1, 0);
  CHECK(strcmp(name, "elfsym_target") == 0, 0);
  CHECK(sym.value == target - 1 && sym.size > 0, sym.size);
  /* a name longer than the buffer is cut, NUL-terminated */
  CHECK(gorc_elfsym_find("/proc/self/exe", target, &sym, name, 6) == 1, 0);
  CHECK(strcmp(name, "elfsy") == 0, 0);

  snprintf(tmp_path, sizeof tmp_path, "elfsym-corrupt.%d.tmp", (int)getpid());
  int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0, fd);
  close(fd);
  check_file(image, image_size, "intact copy");
  CHECK(found_right == 1, found_right);
  truncated();
  bogus_offsets();
  huge_counts();
  foreign();
  random_headers();
  notes();
  unlink(tmp_path);
  printf("%d lookups, %d found the function\n", lookups, found_right);
  return 0;
}
