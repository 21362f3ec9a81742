// Host memory in transparent huge pages where the kernel gives them (madvise, Debian's and
// Ubuntu's default setting): 2 MiB pages, so that a kernel that walks a large matrix across its
// columns (an LU's row swaps touch one element of each column, n elements apart) does not miss
// the TLB on every element, and the first touch of gigabytes does not cost seconds. The advice
// is only that: where the kernel gives 4 KiB pages, everything works, slower. Used for the host
// suites' operands, which every host variant (gpubench's own and the libraries') then shares.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <vector>

namespace gpubench::host_memory {

// `bytes` of uninitialised memory, 64-byte aligned; from 1 MiB up in whole huge pages, advised as
// such. std::bad_alloc where there is none; free it with std::free.
void* allocate(std::size_t bytes);

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(host_memory::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
};

template <typename T>
using Vector = std::vector<T, HugePageAllocator<T>>;

}  // namespace gpubench::host_memory
