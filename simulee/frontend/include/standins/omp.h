/* Simulee: a stand-in for OpenMP's omp.h, searched after every other include folder. The
   program runs on one thread: its `#pragma omp` are ignored and omp_get_* say so. */
#ifndef SIMULEE_STAND_IN_OMP_H
#define SIMULEE_STAND_IN_OMP_H
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { int held; } omp_lock_t;
typedef struct { int depth; } omp_nest_lock_t;
typedef enum { omp_sched_static = 1, omp_sched_dynamic = 2, omp_sched_guided = 3, omp_sched_auto = 4 } omp_sched_t;

static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_threads(void) { return 1; }
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_num_procs(void) { return 1; }
static inline int omp_get_thread_limit(void) { return 1; }
static inline int omp_in_parallel(void) { return 0; }
static inline int omp_get_level(void) { return 0; }
static inline int omp_get_active_level(void) { return 0; }
static inline int omp_get_dynamic(void) { return 0; }
static inline int omp_get_nested(void) { return 0; }
static inline int omp_get_max_active_levels(void) { return 1; }
static inline int omp_get_num_devices(void) { return 0; }
static inline int omp_get_default_device(void) { return 0; }
static inline int omp_is_initial_device(void) { return 1; }
static inline void omp_set_num_threads(int threads) { (void)threads; }
static inline void omp_set_dynamic(int dynamic) { (void)dynamic; }
static inline void omp_set_nested(int nested) { (void)nested; }
static inline void omp_set_max_active_levels(int levels) { (void)levels; }
static inline void omp_set_default_device(int device) { (void)device; }
static inline void omp_set_schedule(omp_sched_t kind, int chunk) { (void)kind; (void)chunk; }
static inline void omp_get_schedule(omp_sched_t *kind, int *chunk) { *kind = omp_sched_static; *chunk = 0; }

static inline double omp_get_wtime(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}
static inline double omp_get_wtick(void) { return 1e-9; }

static inline void omp_init_lock(omp_lock_t *lock) { lock->held = 0; }
static inline void omp_destroy_lock(omp_lock_t *lock) { (void)lock; }
static inline void omp_set_lock(omp_lock_t *lock) { lock->held = 1; }
static inline void omp_unset_lock(omp_lock_t *lock) { lock->held = 0; }
static inline int omp_test_lock(omp_lock_t *lock) { return lock->held ? 0 : (lock->held = 1); }
static inline void omp_init_nest_lock(omp_nest_lock_t *lock) { lock->depth = 0; }
static inline void omp_destroy_nest_lock(omp_nest_lock_t *lock) { (void)lock; }
static inline void omp_set_nest_lock(omp_nest_lock_t *lock) { lock->depth++; }
static inline void omp_unset_nest_lock(omp_nest_lock_t *lock) { lock->depth--; }
static inline int omp_test_nest_lock(omp_nest_lock_t *lock) { return ++lock->depth; }

#ifdef __cplusplus
}
#endif
#endif
