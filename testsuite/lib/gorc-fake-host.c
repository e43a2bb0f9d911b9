/* gorc testsuite: a fake GCC that loads the plugin and calls plugin_init
   with a GCC version the plugin was not built for.  Used by the
   gorc-version-mismatch dg-final procedure (lib/gorc-dg.exp) so that the
   version check is tested without a second GCC installed.

   The harness links this with -rdynamic together with a generated file
   that defines every other symbol the plugin imports as an inert data
   blob (none is used before the version check); only error() and
   plugin_default_version_check() are real here.  The plugin is loaded
   with RTLD_LAZY, so functions it never calls need not resolve.  */

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The layouts of gcc-plugin.h / plugin-version.h (stable since GCC 4.5).  */
struct plugin_argument { char *key; char *value; };
struct plugin_name_args {
  char *base_name;
  const char *full_name;
  int argc;
  struct plugin_argument *argv;
  const char *version;
  const char *help;
};
struct plugin_gcc_version {
  const char *basever;
  const char *datestamp;
  const char *devphase;
  const char *revision;
  const char *configuration_arguments;
};

static int errors;

/* GCC's error (const char *gmsgid, ...), a C++ function: a small subset
   of GCC's pretty-printer formats.  */
void fake_error (const char *fmt, ...) __asm__ ("_Z5errorPKcz");
void
fake_error (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("fake-gcc: error: ", stderr);
  for (const char *p = fmt; *p; p++)
    {
      if (*p != '%')
        {
          fputc (*p, stderr);
          continue;
        }
      p++;
      if (*p == 'q')
        {
          fputc ('\'', stderr);
          p++;
          if (*p == 's')
            fputs (va_arg (ap, const char *), stderr);
          else if (*p == 'd' || *p == 'i')
            fprintf (stderr, "%d", va_arg (ap, int));
          fputc ('\'', stderr);
          continue;
        }
      switch (*p)
        {
        case '<': case '>': fputc ('\'', stderr); break;
        case 's': fputs (va_arg (ap, const char *), stderr); break;
        case 'd': case 'i': fprintf (stderr, "%d", va_arg (ap, int)); break;
        case 'u': fprintf (stderr, "%u", va_arg (ap, unsigned)); break;
        case '%': fputc ('%', stderr); break;
        case '\0': p--; break;
        default: fputc ('?', stderr); break;
        }
    }
  fputc ('\n', stderr);
  va_end (ap);
  errors++;
}

static int
same (const char *a, const char *b)
{
  return (a == NULL && b == NULL) || (a && b && strcmp (a, b) == 0);
}

/* As in GCC's plugin.cc.  */
int
plugin_default_version_check (struct plugin_gcc_version *gcc_version,
                              struct plugin_gcc_version *plugin_version)
{
  if (!gcc_version || !plugin_version)
    return 0;
  return same (gcc_version->basever, plugin_version->basever)
         && same (gcc_version->datestamp, plugin_version->datestamp)
         && same (gcc_version->devphase, plugin_version->devphase)
         && same (gcc_version->revision, plugin_version->revision)
         && same (gcc_version->configuration_arguments,
                  plugin_version->configuration_arguments);
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: %s PLUGIN.so BASEVER\n", argv[0]);
      return 2;
    }
  void *h = dlopen (argv[1], RTLD_LAZY | RTLD_GLOBAL);
  if (!h)
    {
      fprintf (stderr, "fake-gcc: cannot load plugin %s: %s\n", argv[1], dlerror ());
      return 2;
    }
  int (*init) (struct plugin_name_args *, struct plugin_gcc_version *)
    = (int (*) (struct plugin_name_args *, struct plugin_gcc_version *))
      dlsym (h, "plugin_init");
  if (!init || !dlsym (h, "plugin_is_GPL_compatible"))
    {
      fprintf (stderr, "fake-gcc: %s is not a GCC plugin\n", argv[1]);
      return 2;
    }
  struct plugin_name_args info = { (char *) "gorc", argv[1], 0, NULL, NULL, NULL };
  struct plugin_gcc_version v = { argv[2], "20990101", "", "", "fake" };
  int r = init (&info, &v);
  printf ("fake-gcc: plugin_init returned %d after %d error(s)\n", r, errors);
  return r != 0 && errors > 0 ? 1 : 0;
}
