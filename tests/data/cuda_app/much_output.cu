// Writes 40 MiB to stdout (640 Ki lines of 64 bytes, numbered), then 1 line to stderr.
#include <cstdio>

int main() {
  for (int i = 0; i < 655360; i++) printf("line %08d .................................................\n", i);
  fprintf(stderr, "done\n");
  return 0;
}
