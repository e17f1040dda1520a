// A program that draws only when asked (--draw), with GLEW and GLUT, which a machine
// without a display lacks: simulee exec builds it with the drawing calls doing nothing.
#include <cstdio>
#include <cstring>
#include <GL/glew.h>
#include <GL/glut.h>

__global__ void fill(float *v) { v[threadIdx.x] = threadIdx.x; }

GLuint buffer;

void display() {
  glClear(GL_COLOR_BUFFER_BIT);
  glutSwapBuffers();
}

int main(int argc, char **argv) {
  float *d, h[32];
  cudaMalloc(&d, sizeof h);
  fill<<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  if (argc > 1 && !strcmp(argv[1], "--draw")) {
    glutInit(&argc, argv);
    display();
  }
  printf("h[31] = %g\n", h[31]);
  return 0;
}
