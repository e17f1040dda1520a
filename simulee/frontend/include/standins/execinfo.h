/* Simulee: a stand-in for glibc's execinfo.h, which the bundled musl lacks, searched after
   every other include folder: a program run under simulee exec has no backtrace to give. */
#ifndef SIMULEE_STAND_IN_EXECINFO_H
#define SIMULEE_STAND_IN_EXECINFO_H
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline int backtrace(void **buffer, int size) {
  (void)buffer;
  (void)size;
  return 0;
}

static inline char **backtrace_symbols(void *const *buffer, int size) {
  (void)buffer;
  return (char **)calloc(size > 0 ? (size_t)size : 1, sizeof(char *));
}

static inline void backtrace_symbols_fd(void *const *buffer, int size, int fd) {
  (void)buffer;
  (void)size;
  (void)fd;
}

#ifdef __cplusplus
}
#endif
#endif
