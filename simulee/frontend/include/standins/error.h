/* Simulee: a stand-in for glibc's error.h, which the bundled musl lacks, searched after every
   other include folder: error() and error_at_line() print as glibc's do and exit when asked. */
#ifndef SIMULEE_STAND_IN_ERROR_H
#define SIMULEE_STAND_IN_ERROR_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline void __simulee_error_tail(int status, int errnum) {
  if (errnum)
    fprintf(stderr, ": %s", strerror(errnum));
  fputc('\n', stderr);
  if (status)
    exit(status);
}

static inline void error(int status, int errnum, const char *format, ...) {
  va_list arguments;
  fflush(stdout);
  fputs("program: ", stderr);
  va_start(arguments, format);
  vfprintf(stderr, format, arguments);
  va_end(arguments);
  __simulee_error_tail(status, errnum);
}

static inline void error_at_line(int status, int errnum, const char *file, unsigned int line, const char *format,
                                 ...) {
  va_list arguments;
  fflush(stdout);
  fprintf(stderr, "program:%s:%u: ", file, line);
  va_start(arguments, format);
  vfprintf(stderr, format, arguments);
  va_end(arguments);
  __simulee_error_tail(status, errnum);
}

#ifdef __cplusplus
}
#endif
#endif
