#define FACTOR 2
#define N 8
