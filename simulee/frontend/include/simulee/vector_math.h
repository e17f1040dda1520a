/* Arithmetic on CUDA's vector types, as the CUDA samples' helper_math.h and GPUVerify's CUDA
   dialect give it: element-wise operators with vectors and scalars, compound assignment,
   make_T from a scalar or a wider or narrower vector, and dot, length, normalize, cross,
   lerp, clamp, saturate, smoothstep, reflect, floor, frac, fabs, fminf and fmaxf. Written for Simulee; it stands in
   for a missing helper_math.h and comes with --gpuverify-annotations. */
#ifndef SIMULEE_VECTOR_MATH_H
#define SIMULEE_VECTOR_MATH_H

#define __SIMULEE_VM static __host__ __device__ __forceinline__

/* Element-wise binary operators of vector type V of element S with N in {2, 3, 4}. */
#define __SIMULEE_VEC_OP2(V, S, OP) \
  __SIMULEE_VM V operator OP(V a, V b) { return make_##V(a.x OP b.x, a.y OP b.y); } \
  __SIMULEE_VM V operator OP(V a, S b) { return make_##V(a.x OP b, a.y OP b); } \
  __SIMULEE_VM V operator OP(S a, V b) { return make_##V(a OP b.x, a OP b.y); } \
  __SIMULEE_VM void operator OP##=(V &a, V b) { a.x OP##= b.x; a.y OP##= b.y; } \
  __SIMULEE_VM void operator OP##=(V &a, S b) { a.x OP##= b; a.y OP##= b; }
#define __SIMULEE_VEC_OP3(V, S, OP) \
  __SIMULEE_VM V operator OP(V a, V b) { return make_##V(a.x OP b.x, a.y OP b.y, a.z OP b.z); } \
  __SIMULEE_VM V operator OP(V a, S b) { return make_##V(a.x OP b, a.y OP b, a.z OP b); } \
  __SIMULEE_VM V operator OP(S a, V b) { return make_##V(a OP b.x, a OP b.y, a OP b.z); } \
  __SIMULEE_VM void operator OP##=(V &a, V b) { a.x OP##= b.x; a.y OP##= b.y; a.z OP##= b.z; } \
  __SIMULEE_VM void operator OP##=(V &a, S b) { a.x OP##= b; a.y OP##= b; a.z OP##= b; }
#define __SIMULEE_VEC_OP4(V, S, OP) \
  __SIMULEE_VM V operator OP(V a, V b) { return make_##V(a.x OP b.x, a.y OP b.y, a.z OP b.z, a.w OP b.w); } \
  __SIMULEE_VM V operator OP(V a, S b) { return make_##V(a.x OP b, a.y OP b, a.z OP b, a.w OP b); } \
  __SIMULEE_VM V operator OP(S a, V b) { return make_##V(a OP b.x, a OP b.y, a OP b.z, a OP b.w); } \
  __SIMULEE_VM void operator OP##=(V &a, V b) { a.x OP##= b.x; a.y OP##= b.y; a.z OP##= b.z; a.w OP##= b.w; } \
  __SIMULEE_VM void operator OP##=(V &a, S b) { a.x OP##= b; a.y OP##= b; a.z OP##= b; a.w OP##= b; }

/* Every operator, the conversions between sizes and the reductions of one vector family. */
#define __SIMULEE_VEC_FAMILY(T, S) \
  __SIMULEE_VEC_OP2(T##2, S, +) __SIMULEE_VEC_OP2(T##2, S, -) __SIMULEE_VEC_OP2(T##2, S, *) \
  __SIMULEE_VEC_OP2(T##2, S, /) __SIMULEE_VEC_OP3(T##3, S, +) __SIMULEE_VEC_OP3(T##3, S, -) \
  __SIMULEE_VEC_OP3(T##3, S, *) __SIMULEE_VEC_OP3(T##3, S, /) __SIMULEE_VEC_OP4(T##4, S, +) \
  __SIMULEE_VEC_OP4(T##4, S, -) __SIMULEE_VEC_OP4(T##4, S, *) __SIMULEE_VEC_OP4(T##4, S, /) \
  __SIMULEE_VM T##2 make_##T##2(S s) { return make_##T##2(s, s); } \
  __SIMULEE_VM T##3 make_##T##3(S s) { return make_##T##3(s, s, s); } \
  __SIMULEE_VM T##4 make_##T##4(S s) { return make_##T##4(s, s, s, s); } \
  __SIMULEE_VM T##2 make_##T##2(T##3 a) { return make_##T##2(a.x, a.y); } \
  __SIMULEE_VM T##2 make_##T##2(T##4 a) { return make_##T##2(a.x, a.y); } \
  __SIMULEE_VM T##3 make_##T##3(T##2 a) { return make_##T##3(a.x, a.y, 0); } \
  __SIMULEE_VM T##3 make_##T##3(T##2 a, S z) { return make_##T##3(a.x, a.y, z); } \
  __SIMULEE_VM T##3 make_##T##3(T##4 a) { return make_##T##3(a.x, a.y, a.z); } \
  __SIMULEE_VM T##4 make_##T##4(T##3 a) { return make_##T##4(a.x, a.y, a.z, 0); } \
  __SIMULEE_VM T##4 make_##T##4(T##3 a, S w) { return make_##T##4(a.x, a.y, a.z, w); } \
  __SIMULEE_VM S dot(T##2 a, T##2 b) { return a.x * b.x + a.y * b.y; } \
  __SIMULEE_VM S dot(T##3 a, T##3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; } \
  __SIMULEE_VM S dot(T##4 a, T##4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

__SIMULEE_VEC_FAMILY(float, float)
__SIMULEE_VEC_FAMILY(int, int)
__SIMULEE_VEC_FAMILY(uint, unsigned int)

__SIMULEE_VM float2 operator-(float2 a) { return make_float2(-a.x, -a.y); }
__SIMULEE_VM float3 operator-(float3 a) { return make_float3(-a.x, -a.y, -a.z); }
__SIMULEE_VM float4 operator-(float4 a) { return make_float4(-a.x, -a.y, -a.z, -a.w); }
__SIMULEE_VM int2 operator-(int2 a) { return make_int2(-a.x, -a.y); }
__SIMULEE_VM int3 operator-(int3 a) { return make_int3(-a.x, -a.y, -a.z); }
__SIMULEE_VM int4 operator-(int4 a) { return make_int4(-a.x, -a.y, -a.z, -a.w); }
__SIMULEE_VM float3 make_float3(int3 a) { return make_float3((float)a.x, (float)a.y, (float)a.z); }
__SIMULEE_VM float4 make_float4(int4 a) { return make_float4((float)a.x, (float)a.y, (float)a.z, (float)a.w); }
__SIMULEE_VM float4 make_float4(uchar4 a) { return make_float4(a.x, a.y, a.z, a.w); }
__SIMULEE_VM uchar4 make_uchar4(float4 a) {
  return make_uchar4((unsigned char)a.x, (unsigned char)a.y, (unsigned char)a.z, (unsigned char)a.w);
}
__SIMULEE_VM uchar4 operator+(uchar4 a, uchar4 b) {
  return make_uchar4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__SIMULEE_VM uchar4 operator*(uchar4 a, unsigned char s) { return make_uchar4(a.x * s, a.y * s, a.z * s, a.w * s); }

/* Functions of float vectors, element by element where they are of one element. */
#define __SIMULEE_VEC_UNARY(NAME, F) \
  __SIMULEE_VM float2 NAME(float2 a) { return make_float2(F(a.x), F(a.y)); } \
  __SIMULEE_VM float3 NAME(float3 a) { return make_float3(F(a.x), F(a.y), F(a.z)); } \
  __SIMULEE_VM float4 NAME(float4 a) { return make_float4(F(a.x), F(a.y), F(a.z), F(a.w)); }
#define __SIMULEE_VEC_BINARY(NAME, F) \
  __SIMULEE_VM float2 NAME(float2 a, float2 b) { return make_float2(F(a.x, b.x), F(a.y, b.y)); } \
  __SIMULEE_VM float3 NAME(float3 a, float3 b) { return make_float3(F(a.x, b.x), F(a.y, b.y), F(a.z, b.z)); } \
  __SIMULEE_VM float4 NAME(float4 a, float4 b) { \
    return make_float4(F(a.x, b.x), F(a.y, b.y), F(a.z, b.z), F(a.w, b.w)); \
  }

__SIMULEE_VM float __simulee_frac(float v) { return v - floorf(v); }
__SIMULEE_VM float __simulee_saturate(float v) { return fminf(fmaxf(v, 0.0f), 1.0f); }
__SIMULEE_VEC_UNARY(floorf, floorf)
__SIMULEE_VEC_UNARY(fabs, fabsf)
__SIMULEE_VEC_UNARY(fracf, __simulee_frac)
__SIMULEE_VEC_BINARY(fminf, fminf)
__SIMULEE_VEC_BINARY(fmaxf, fmaxf)
__SIMULEE_VM float fracf(float v) { return __simulee_frac(v); }
__SIMULEE_VM float saturate(float v) { return __simulee_saturate(v); }
__SIMULEE_VEC_UNARY(saturate, __simulee_saturate)

__SIMULEE_VM float lerp(float a, float b, float t) { return a + t * (b - a); }
__SIMULEE_VM float2 lerp(float2 a, float2 b, float t) { return a + t * (b - a); }
__SIMULEE_VM float3 lerp(float3 a, float3 b, float t) { return a + t * (b - a); }
__SIMULEE_VM float4 lerp(float4 a, float4 b, float t) { return a + t * (b - a); }
__SIMULEE_VM float clamp(float v, float lo, float hi) { return fmaxf(lo, fminf(v, hi)); }
__SIMULEE_VM int clamp(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
__SIMULEE_VM unsigned int clamp(unsigned int v, unsigned int lo, unsigned int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}
__SIMULEE_VM float2 clamp(float2 v, float lo, float hi) { return make_float2(clamp(v.x, lo, hi), clamp(v.y, lo, hi)); }
__SIMULEE_VM float3 clamp(float3 v, float lo, float hi) {
  return make_float3(clamp(v.x, lo, hi), clamp(v.y, lo, hi), clamp(v.z, lo, hi));
}
__SIMULEE_VM float4 clamp(float4 v, float lo, float hi) {
  return make_float4(clamp(v.x, lo, hi), clamp(v.y, lo, hi), clamp(v.z, lo, hi), clamp(v.w, lo, hi));
}
__SIMULEE_VM float length(float2 v) { return sqrtf(dot(v, v)); }
__SIMULEE_VM float length(float3 v) { return sqrtf(dot(v, v)); }
__SIMULEE_VM float length(float4 v) { return sqrtf(dot(v, v)); }
__SIMULEE_VM float2 normalize(float2 v) { return v * rsqrtf(dot(v, v)); }
__SIMULEE_VM float3 normalize(float3 v) { return v * rsqrtf(dot(v, v)); }
__SIMULEE_VM float4 normalize(float4 v) { return v * rsqrtf(dot(v, v)); }
__SIMULEE_VM float3 cross(float3 a, float3 b) {
  return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
__SIMULEE_VM float3 reflect(float3 i, float3 n) { return i - 2.0f * n * dot(n, i); }
__SIMULEE_VM float smoothstep(float a, float b, float x) {
  float y = clamp((x - a) / (b - a), 0.0f, 1.0f);
  return y * y * (3.0f - 2.0f * y);
}

#undef __SIMULEE_VEC_OP2
#undef __SIMULEE_VEC_OP3
#undef __SIMULEE_VEC_OP4
#undef __SIMULEE_VEC_FAMILY
#undef __SIMULEE_VEC_UNARY
#undef __SIMULEE_VEC_BINARY
#undef __SIMULEE_VM

#endif
