/* musl's <assert.h>, with __assert_fail declared as glibc declares it (an unsigned line,
   noexcept in C++). CCCL re-declares it so when NDEBUG is defined (cuda/std/__cccl/assert.h),
   which clashes with musl's own declaration; the two agree on how it is called. Searched
   before musl's folder (frontend._bundled_system_folders); like musl's, read every time it is
   included, so that NDEBUG decides each time. */
#define __assert_fail __simulee_musl_assert_fail
#include_next <assert.h>
#undef __assert_fail

#ifdef __cplusplus
extern "C" void __assert_fail(const char *, const char *, unsigned int, const char *) noexcept
    __attribute__((__noreturn__));
#else
_Noreturn void __assert_fail(const char *, const char *, unsigned int, const char *);
#endif
