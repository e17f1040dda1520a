/* The spellings Simulee's device-function headers define their functions with. */
#ifndef SIMULEE_DEFINITIONS_H
#define SIMULEE_DEFINITIONS_H

#define __SIMULEE_DEVICE static __device__ __forceinline__
#define __SIMULEE_HD static __host__ __device__ __forceinline__

#endif
