/* main in C, as old programs write it (a definition C++ would not compile). */
void run(int width, int rows);

int twice(x)
int x;
{ return 2 * x; }

int main(void) {
  run(twice(8), 64);
  return 0;
}
