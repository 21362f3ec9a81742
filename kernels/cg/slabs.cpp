#include "kernels/cg/slabs.hpp"

#include <algorithm>

namespace gpubench::cg {

std::optional<SlabPlan> plan_slabs(const CsrMatrix& a, std::size_t group_size, std::size_t local_bytes,
                                   std::size_t groups, std::size_t real_size, std::size_t cache_bytes) {
  if (a.rows < 1 || a.cols != a.rows || groups == 0 || group_size == 0) return std::nullopt;
  const double per_row = static_cast<double>(a.nnz()) / a.rows;
  if (spmv_lanes(per_row, 1024) == 1) return std::nullopt;
  SlabPlan p;
  p.groups = groups;
  const auto rows = static_cast<std::size_t>(a.rows), cols = static_cast<std::size_t>(a.cols);
  p.rows_per_group = (rows + groups - 1) / groups;
  p.sums_bytes = (p.rows_per_group * real_size + 15) / 16 * 16;
  p.offsets_bytes = ((p.rows_per_group + 1) * sizeof(std::int32_t) + 15) / 16 * 16;
  // The rows' state takes at most a quarter of the local memory: the slices get the rest.
  if (4 * (p.sums_bytes + p.offsets_bytes) > local_bytes) return std::nullopt;
  p.staged = cache_bytes == 0;
  const std::size_t max_width = std::min<std::size_t>(
      (p.staged ? local_bytes - p.sums_bytes - p.offsets_bytes : cache_bytes) / real_size, std::size_t{1} << 16);
  if (max_width == 0) return std::nullopt;
  p.slabs = (cols + max_width - 1) / max_width;
  p.width = (cols + p.slabs - 1) / p.slabs;
  p.slice_bytes = p.staged ? (p.width * real_size + 15) / 16 * 16 : 0;
  if (groups * cols * real_size > static_cast<std::size_t>(a.nnz()) * 16) return std::nullopt;
  // Lanes per row: the most (a power of two, at most a warp) that leave each two of the row's
  // entries in a slab or more. Measured on the H200 at NAS CG class C's fused SpMV: 20 entries per
  // row and slab (CUDA, 12 slabs in 113 KiB) ran best with 8 lanes (0.188 ms; 4: 0.236, 16:
  // 0.217), 8.3 (NVIDIA's OpenCL, 29 slabs in 48 KiB) with 4 (0.242 ms; 8: 0.261, 16: 0.359), and 24
  // (NVIDIA's OpenCL, 10 slabs of 128 KiB gathered through L1) with 8 (0.199 ms; 4: 0.232, 16: 0.215;
  // reports/data/h200-2026-11-29-issue56-cache/log-call3.txt).
  const double per_slab = per_row / static_cast<double>(p.slabs);
  p.lanes = 1;
  while (p.lanes < 32 && 2.0 * p.lanes * 2 <= per_slab && group_size % (2 * p.lanes) == 0) p.lanes *= 2;
  return p;
}

unsigned lanes_of(const SlabPlan& plan, unsigned requested, std::size_t group_size) {
  const unsigned lanes = requested > 0 ? requested : plan.lanes;
  return static_cast<unsigned>(std::clamp<std::size_t>(lanes, 1, std::max<std::size_t>(group_size, 1)));
}

SlabMatrix slab_matrix(const CsrMatrix& a, const SlabPlan& plan) {
  const auto rows = static_cast<std::size_t>(a.rows);
  SlabMatrix m;
  m.row_ptr.assign(plan.slabs * (rows + 1), 0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::int32_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      ++m.row_ptr[static_cast<std::size_t>(a.col_idx[k]) / plan.width * (rows + 1) + r + 1];
  std::int32_t running = 0;
  for (std::size_t s = 0; s < plan.slabs; ++s) {
    std::int32_t* p = m.row_ptr.data() + s * (rows + 1);
    p[0] = running;
    for (std::size_t r = 0; r < rows; ++r) p[r + 1] = running += p[r + 1];
  }
  std::vector<std::int32_t> next(m.row_ptr);  // where each (slab, row)'s next entry goes
  m.offsets.resize(static_cast<std::size_t>(a.nnz()));
  m.values.resize(static_cast<std::size_t>(a.nnz()));
  for (std::size_t r = 0; r < rows; ++r)
    for (std::int32_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const auto c = static_cast<std::size_t>(a.col_idx[k]);
      const std::size_t s = c / plan.width;
      const auto at = static_cast<std::size_t>(next[s * (rows + 1) + r]++);
      m.offsets[at] = static_cast<std::uint16_t>(c - s * plan.width);
      m.values[at] = a.values[k];
    }
  return m;
}

}  // namespace gpubench::cg
