// SpMV for matrices whose x fits in a work-group's local memory in a few slabs but whose rows
// gather x at random (NAS CG: 150000 columns, about 240 nonzeros per row spread over all of them):
// each gathered 8-byte x[j] costs a 32-byte cache sector, so the gathers, not the matrix stream,
// bound a CSR SpMV there. The columns are cut into slabs that fit in local memory, and the matrix
// is stored slab by slab (within a slab, CSR by row, the columns as 16-bit offsets into the slab:
// 10 bytes per nonzero in f64 instead of 12). Each work-group owns a contiguous run of rows; per
// slab it copies that slice of x and its rows' offsets into local memory, its groups of lanes sum
// their rows' entries of the slab, gathering from local memory, into per-row sums kept in local
// memory; at the end it writes its rows once, and, for the fused forms, their share of r.r and
// (A r).r (the kernels spmv_slabs in kernels/cg/nvrtc.cu and kernels/cg/opencl.cl). Or, where the
// local memory is small (NVIDIA's OpenCL: 48 KiB), the slabs are cut to a cache budget and x is
// gathered from global memory through the L1 cache rather than staged (the tunable slab_cache_kib,
// work.hpp). The host side, planned and laid out here for CUDA and OpenCL alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <vector>

#include "kernels/cg/csr.hpp"

namespace gpubench::cg {

struct SlabPlan {
  std::size_t groups = 0;          // work-groups: each a contiguous run of rows_per_group rows
  std::size_t rows_per_group = 0;
  std::size_t width = 0;           // columns per slab (the last may have fewer)
  std::size_t slabs = 0;
  unsigned lanes = 1;              // work-items per row, for the rows' average entries per slab
  // Local memory per work-group: the slice of x (0 where not staged), the rows' sums and offsets.
  std::size_t slice_bytes = 0, sums_bytes = 0, offsets_bytes = 0;
  bool staged = true;              // each slab's slice of x copied to local memory (else read through the cache)
};

// Whether the slab SpMV suits `a` on a device whose work-groups of `group_size` items (a power of
// two) have `local_bytes` of local memory each for the plan (what the kernel needs besides
// taken off), `groups` of them in flight (compute units x groups
// per unit), elements of `real_size` bytes; the plan, or nothing where a CSR kernel is the better
// choice: short rows (stencils gather neighbours that share sectors anyway), a non-square
// matrix (a band's halo), rows that do not fit, or x reloaded once per group and slab moving more
// than half the bytes of the gathers it replaces. `cache_bytes` 0: the slices staged in the local
// memory left; else slabs of that many bytes of x, gathered through the cache (at most 2^16
// columns each: the offsets are 16 bits).
std::optional<SlabPlan> plan_slabs(const CsrMatrix& a, std::size_t group_size, std::size_t local_bytes,
                                   std::size_t groups, std::size_t real_size, std::size_t cache_bytes = 0);

// The work-items per row a launch of the slab SpMV runs with: `requested` (a power of two; 0: the
// plan's), at most the work-group's `group_size` items.
unsigned lanes_of(const SlabPlan& plan, unsigned requested, std::size_t group_size);

// The matrix slab by slab: per slab, rows + 1 offsets into one offsets/values array.
struct SlabMatrix {
  std::vector<std::int32_t> row_ptr;  // slabs x (rows + 1)
  std::vector<std::uint16_t> offsets;
  std::vector<double> values;
};
SlabMatrix slab_matrix(const CsrMatrix& a, const SlabPlan& plan);

// The slab layouts a backend keeps on its device (`Layout`: its plan and its arrays), one per
// slab_cache_kib its SpMV launches ask for (0: staged), each made when first asked for; those no
// launch asks for any more are dropped, since each is as large as the matrix.
template <typename Layout>
class SlabLayouts {
 public:
  // The layout for `cache_kib`: made by `make(cache_kib)` (an optional Layout: none where the
  // plan declines) the first time; null where declined.
  template <typename Make>
  const Layout* get(unsigned cache_kib, Make&& make) {
    auto it = layouts_.find(cache_kib);
    if (it == layouts_.end()) it = layouts_.emplace(cache_kib, make(cache_kib)).first;
    return it->second ? &*it->second : nullptr;
  }
  // The layout for `cache_kib` where it was made and not declined, else null.
  const Layout* find(unsigned cache_kib) const {
    const auto it = layouts_.find(cache_kib);
    return it != layouts_.end() && it->second ? &*it->second : nullptr;
  }
  // Drops every layout but those for `wanted`.
  void keep(std::initializer_list<unsigned> wanted) {
    std::erase_if(layouts_, [&](const auto& entry) {
      for (unsigned k : wanted)
        if (entry.first == k) return false;
      return true;
    });
  }

 private:
  std::map<unsigned, std::optional<Layout>> layouts_;
};

}  // namespace gpubench::cg
