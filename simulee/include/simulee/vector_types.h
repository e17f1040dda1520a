/* CUDA vector types (char1 ... double4) with CUDA's alignments, make_* constructors, and dim3. */
#ifndef SIMULEE_VECTOR_TYPES_H
#define SIMULEE_VECTOR_TYPES_H

#define __SIMULEE_VEC1(T, N, A) \
  struct __align__(A) N##1 { T x; }; \
  typedef struct N##1 N##1; \
  __SIMULEE_HD N##1 make_##N##1(T x) { N##1 v; v.x = x; return v; }
#define __SIMULEE_VEC2(T, N, A) \
  struct __align__(A) N##2 { T x, y; }; \
  typedef struct N##2 N##2; \
  __SIMULEE_HD N##2 make_##N##2(T x, T y) { N##2 v; v.x = x; v.y = y; return v; }
#define __SIMULEE_VEC3(T, N, A) \
  struct __align__(A) N##3 { T x, y, z; }; \
  typedef struct N##3 N##3; \
  __SIMULEE_HD N##3 make_##N##3(T x, T y, T z) { N##3 v; v.x = x; v.y = y; v.z = z; return v; }
#define __SIMULEE_VEC4(T, N, A) \
  struct __align__(A) N##4 { T x, y, z, w; }; \
  typedef struct N##4 N##4; \
  __SIMULEE_HD N##4 make_##N##4(T x, T y, T z, T w) { N##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
/* Alignment of the 1-, 2-, 3- and 4-element types, as in CUDA's vector_types.h. */
#define __SIMULEE_VECS(T, N, A1, A2, A3, A4) \
  __SIMULEE_VEC1(T, N, A1) __SIMULEE_VEC2(T, N, A2) __SIMULEE_VEC3(T, N, A3) __SIMULEE_VEC4(T, N, A4)

__SIMULEE_VECS(signed char, char, 1, 2, 1, 4)
__SIMULEE_VECS(unsigned char, uchar, 1, 2, 1, 4)
__SIMULEE_VECS(short, short, 2, 4, 2, 8)
__SIMULEE_VECS(unsigned short, ushort, 2, 4, 2, 8)
__SIMULEE_VECS(int, int, 4, 8, 4, 16)
__SIMULEE_VECS(unsigned int, uint, 4, 8, 4, 16)
__SIMULEE_VECS(long, long, sizeof(long), 2 * sizeof(long), sizeof(long), 16)
__SIMULEE_VECS(unsigned long, ulong, sizeof(long), 2 * sizeof(long), sizeof(long), 16)
__SIMULEE_VECS(long long, longlong, 8, 16, 8, 16)
__SIMULEE_VECS(unsigned long long, ulonglong, 8, 16, 8, 16)
__SIMULEE_VECS(float, float, 4, 8, 4, 16)
__SIMULEE_VECS(double, double, 8, 16, 8, 16)

#undef __SIMULEE_VECS
#undef __SIMULEE_VEC1
#undef __SIMULEE_VEC2
#undef __SIMULEE_VEC3
#undef __SIMULEE_VEC4

/* Launch dimensions: unspecified components default to 1. */
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
typedef struct dim3 dim3;

#endif
