#define SIZE 64
