float *device_buffer(int count);
void scale_all(float *values, int n);

int main() {
  float *values = device_buffer(1000);
  scale_all(values, 1000);
  return 0;
}
