#pragma once
// Count the bytes of `data` into 16 bins of `bins` (on the device).
int histogram(const unsigned char *data, int n, unsigned *bins);
