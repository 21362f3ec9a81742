#include "kernels/lu/operations.hpp"

#include <algorithm>

#include "common/errors.hpp"

namespace gpubench::lu {

const VariantTable<Variant>& variant_table() {
  static const VariantTable<Variant> table{
      "LU",
      {{Variant::naive, "naive"}, {Variant::optimised, "optimised"}, {Variant::blocked, "blocked"}, {Variant::vendor, "vendor"}}};
  return table;
}

OperationsRegistry& operations_registry() {
  static OperationsRegistry registry;
  return registry;
}

namespace {

// Marks for a profiled pass: what ran since the previous mark goes to the named row.
struct Marks {
  Operations& ops;
  StepTimes* times;
  void operator()(const char* row) const {
    if (times) ops.mark(row ? &(*times)[row] : nullptr);
  }
};

// Columns [j, j + w) over rows [j, n): the left half, its swaps, solve and update applied to the
// right half, the right half, and its swaps applied back to the left half.
void panel(Operations& ops, std::int64_t n, std::int64_t j, std::int64_t w, std::int64_t base) {
  if (w <= base) {
    ops.getf2(j, w);
    return;
  }
  const std::int64_t left = std::max<std::int64_t>(base, (w / 2 + base - 1) / base * base);
  panel(ops, n, j, left, base);
  ops.laswp(j, j + left, j + left, j + w);
  ops.trsm(j, left, j + left, j + w);
  ops.gemm(j + left, n, j + left, j + w, j, j + left);
  panel(ops, n, j + left, w - left, base);
  ops.laswp(j + left, j + w, j, j + left);
}

}  // namespace

std::string Leaf::describe(const std::string& how, const std::string& none, const std::string& memory) const {
  std::string s;
  if (in_one_launch > 0)
    s = std::to_string(in_one_launch) + " of " + std::to_string(in_one_launch + by_columns) + " leaves in one " + how;
  if (by_columns > 0) {
    if (!s.empty()) s += "; the others ";
    s += "a launch per column";
    s += groups == 0 ? ": " + none
                     : " (their rows exceed the " + std::to_string(bytes) + " bytes of " + memory + ")";
  }
  return s;
}

void blocked(Operations& ops, std::int64_t n, const BlockedConfig& c, StepTimes* times) {
  const Marks mark{ops, times};
  const std::int64_t nb = std::max<std::int64_t>(1, c.nb), base = std::max<std::int64_t>(1, c.base);
  const bool ahead = c.lookahead && !times;
  if (times) mark(nullptr);
  // Panel j's update of columns [from, to): its swaps, the solve of its rows, the GEMM below.
  const auto update = [&](std::int64_t j, std::int64_t jb, std::int64_t from, std::int64_t to) {
    if (from >= to) return;
    ops.laswp(j, j + jb, from, to);
    mark("laswp");
    ops.trsm(j, jb, from, to);
    mark("trsm");
    if (j + jb < n) ops.gemm(j + jb, n, from, to, j, j + jb);
    mark("gemm");
  };
  if (!ahead) {
    for (std::int64_t j = 0; j < n; j += nb) {
      const std::int64_t jb = std::min(nb, n - j);
      panel(ops, n, j, jb, base);
      mark("panel");
      update(j, jb, j + jb, n);
      if (j > 0) ops.laswp(j, j + jb, 0, j);
      mark("laswp");
    }
    return;
  }
  // Look-ahead: panel j + nb is factored on queue 1 as soon as its columns are updated, while
  // queue 0 updates the rest; queue 0 waits for it before the next step.
  panel(ops, n, 0, std::min(nb, n), base);
  for (std::int64_t j = 0; j < n; j += nb) {
    const std::int64_t jb = std::min(nb, n - j), next = j + jb, next_w = std::min(nb, n - next);
    if (next < n) {
      update(j, jb, next, next + next_w);
      ops.signal(0);
      ops.queue(1);
      ops.wait(0);
      panel(ops, n, next, next_w, base);
      ops.signal(1);
      ops.queue(0);
      update(j, jb, next + next_w, n);
    }
    if (j > 0) ops.laswp(j, j + jb, 0, j);
    if (next < n) ops.wait(1);
  }
}

}  // namespace gpubench::lu
