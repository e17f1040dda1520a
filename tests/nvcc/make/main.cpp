#include <cstdio>
#include <vector>

#include "histogram.h"

int main() {
    std::vector<unsigned char> data(4096);
    for (size_t i = 0; i < data.size(); ++i) data[i] = (unsigned char)(i * 7 % 251);
    unsigned bins[16];
    if (histogram(data.data(), (int)data.size(), bins) != 0) return 3;
    unsigned total = 0;
    for (unsigned bin : bins) total += bin;
    printf("counted %u of %zu bytes\n", total, data.size());
    return total == data.size() ? 0 : 4;
}
