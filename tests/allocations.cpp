// Every byte the program asks of operator new, counted, so that a test can check that work it
// asked not to be done was not done (test::allocated_bytes in support.hpp). The aligned forms,
// which nothing here uses, keep the library's own pair.
#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace test {
std::atomic<unsigned long long> g_allocated{0};
// Bytes held now and the most held since reset_peak (support.hpp), by malloc's usable sizes.
std::atomic<long long> g_live{0}, g_peak{0};
}  // namespace test

namespace {

void* counted(void* p, std::size_t n) {
  if (p == nullptr) return p;
  test::g_allocated += n;
  const long long live = test::g_live += static_cast<long long>(malloc_usable_size(p));
  for (long long peak = test::g_peak;
       live > peak && !test::g_peak.compare_exchange_weak(peak, live);) {
  }
  return p;
}

void release(void* p) noexcept {
  if (p != nullptr) test::g_live -= static_cast<long long>(malloc_usable_size(p));
  std::free(p);
}

}  // namespace

void* operator new(std::size_t n) {
  if (void* p = counted(std::malloc(n ? n : 1), n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return counted(std::malloc(n ? n : 1), n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
  return ::operator new(n, t);
}
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
