/* Simulee: what glibc's <stdlib.h> declares beyond the C standard (through <sys/types.h>,
   <sys/select.h> and <alloca.h>: struct timeval, fd_set, alloca), which programs built with
   gcc on glibc come to rely on and musl's <stdlib.h> leaves out. Included first into every C
   and C++ host source simulee-cc, simulee-c++ and simulee-nvcc compile. */
#ifndef SIMULEE_GLIBC_TRANSITIVE_H
#define SIMULEE_GLIBC_TRANSITIVE_H
#if !defined(__STRICT_ANSI__) || defined(_GNU_SOURCE) || defined(_DEFAULT_SOURCE)
#include <sys/types.h>
#include <sys/select.h>
#include <alloca.h>
#endif
#endif
