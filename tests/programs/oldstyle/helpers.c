/* Host C as older code writes it: implicit int, a function called before any declaration. */
#include <stdlib.h>

static scale = 3;

fill(float *values, n) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++)
    values[i] = (float)(i * scale);
  return n;
}

float *make_values(int n) {
  float *values = malloc(n * sizeof(float));
  report_filled(fill(values, n));
  return values;
}
