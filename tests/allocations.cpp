// Every byte the program asks of operator new, counted, so that a test can check that work it
// asked not to be done was not done (test::allocated_bytes in support.hpp). The aligned forms,
// which nothing here uses, keep the library's own pair.
#include <atomic>
#include <cstdlib>
#include <new>

namespace test {
std::atomic<unsigned long long> g_allocated{0};
}

void* operator new(std::size_t n) {
  test::g_allocated += n;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  test::g_allocated += n;
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
  return ::operator new(n, t);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
