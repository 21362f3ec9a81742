#include "backends/openmp/huge_pages.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

#include <sys/mman.h>

namespace gpubench::host_memory {

void* allocate(std::size_t bytes) {
  constexpr std::size_t huge_page = std::size_t{2} << 20, line = 64;
  const std::size_t align = bytes >= (std::size_t{1} << 20) ? huge_page : line;
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (align == huge_page) static_cast<void>(madvise(p, rounded, MADV_HUGEPAGE));  // advice: may be declined
#endif
  return p;
}

}  // namespace gpubench::host_memory
