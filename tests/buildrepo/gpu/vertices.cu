#include <DirectXMath.h>  // Windows only: the vertex types come from here
using namespace DirectX;

struct Vertex {
  XMFLOAT3 position;
  XMFLOAT4 color;
};

__global__ void wave(Vertex *vertices, float time) {
  Vertex &v = vertices[threadIdx.x];
  v.position.y = v.position.x * time;
  v.color.w = 1.0f;
}
