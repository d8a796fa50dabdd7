// memset, memcpy and memmove for WebAssembly as its bulk-memory instructions, memory.fill and
// memory.copy (the engine's own loops; this file alone is built with -mbulk-memory). The page's
// module links at -Oz, which takes Emscripten's size-optimised libc, whose memset and memcpy
// store one byte per loop iteration: every zero-filled tensor (a forward's projections and
// context) and every copy went a byte at a time. Defined here, in the core, they are the ones the
// link takes (the core's archive comes before libc's).
#include <cstddef>

extern "C" {

void* memset(void* s, int c, std::size_t n) {
  __builtin_memset(s, c, n);  // memory.fill
  return s;
}

void* memcpy(void* __restrict d, const void* __restrict s, std::size_t n) {
  __builtin_memcpy(d, s, n);  // memory.copy
  return d;
}

void* memmove(void* d, const void* s, std::size_t n) {
  __builtin_memmove(d, s, n);  // memory.copy (overlapping ranges too)
  return d;
}
}
