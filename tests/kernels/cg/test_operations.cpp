// Every CG operations implementation in this build, in both precisions, against a host double
// computation on random data and a random sparse SPD matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "backends/registry.hpp"
#include "common/errors.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/problems.hpp"
#include "kernels/cg/slabs.hpp"

namespace gpubench::cg {
namespace {

// Not a multiple of any work-group size the tests use, so every kernel has a partial last group.
constexpr int test_rows = 3001;
constexpr int slots = 8;

// Symmetric, strictly diagonally dominant with a positive diagonal (so SPD), rows of 1 to ~50
// entries: a few random columns anywhere plus a short band, values of both signs.
CsrMatrix random_spd_matrix(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_int_distribution<int> column(0, n - 1);
  std::uniform_int_distribution<int> spread(0, 20);
  std::vector<std::map<int, double>> rows(static_cast<std::size_t>(n));
  auto add = [&](int i, int j, double v) {
    rows[static_cast<std::size_t>(i)][j] += v;
    rows[static_cast<std::size_t>(j)][i] += v;
  };
  for (int i = 0; i < n; ++i) {
    const int scattered = spread(rng) < 3 ? 0 : spread(rng);  // some rows get none
    for (int k = 0; k < scattered; ++k) {
      const int j = column(rng);
      if (j != i) add(i, j, value(rng));
    }
    if (i + 1 < n && spread(rng) < 10) add(i, i + 1, value(rng));
  }
  CsrMatrix a;
  a.rows = a.cols = n;
  a.row_ptr.push_back(0);
  for (int i = 0; i < n; ++i) {
    auto& row = rows[static_cast<std::size_t>(i)];
    double off_diagonal = 0;
    for (const auto& [j, v] : row) off_diagonal += std::abs(v);
    row[i] = off_diagonal + 1.0 + std::abs(value(rng));
    for (const auto& [j, v] : row) {
      a.col_idx.push_back(j);
      a.values.push_back(v);
    }
    a.row_ptr.push_back(static_cast<std::int32_t>(a.col_idx.size()));
  }
  return a;
}

const CsrMatrix& test_matrix() {
  static const CsrMatrix a = random_spd_matrix(test_rows, 12345);
  return a;
}

std::vector<double> random_vector(unsigned seed, double low = -1.0, double high = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(low, high);
  std::vector<double> v(test_rows);
  for (double& x : v) x = value(rng);
  return v;
}

std::vector<double> host_spmv(const CsrMatrix& a, const std::vector<double>& x) {
  std::vector<double> y(static_cast<std::size_t>(a.rows));
  for (std::size_t i = 0; i < y.size(); ++i)
    for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      y[i] +=
          a.values[static_cast<std::size_t>(k)] * x[static_cast<std::size_t>(a.col_idx[static_cast<std::size_t>(k)])];
  return y;
}

// max |got - want| / max |want|.
::testing::AssertionResult close(const std::vector<double>& got, const std::vector<double>& want, double tolerance) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "sizes " << got.size() << " and " << want.size();
  double error = 0;
  double scale = 0;
  std::size_t worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, std::abs(want[i]));
    if (std::abs(got[i] - want[i]) > error) {
      error = std::abs(got[i] - want[i]);
      worst = i;
    }
  }
  if (error <= tolerance * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "relative error " << error / scale << " > " << tolerance << " (entry "
                                       << worst << ": " << got[worst] << " vs " << want[worst] << ")";
}

// A sum is right within `tolerance` of the sum of its terms' magnitudes.
::testing::AssertionResult close_sum(double got, double want, double magnitude, double tolerance) {
  if (std::abs(got - want) <= tolerance * magnitude) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << got << " vs " << want << ": error " << std::abs(got - want) / magnitude
                                       << " of the terms' magnitude > " << tolerance;
}

struct Case {
  std::string backend;
  Precision precision;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.backend << " " << to_string(c.precision); }

std::vector<Case> cases() {
  std::vector<Case> result;
  for (const Backend& b : backends())
    if (find_operations(b.name) != nullptr)
      for (Precision p : {Precision::f32, Precision::f64}) result.push_back({b.name, p});
  return result;
}

class CgOperations : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const Case& c = GetParam();
    if (find_backend(c.backend).devices().empty()) GTEST_SKIP() << "backend " << c.backend << " has no device here";
    device_ = find_device(c.backend, -1);
    if (c.precision == Precision::f64 && !device_.fp64) GTEST_SKIP() << device_.label() << " has no fp64 support";
    tolerance_ = c.precision == Precision::f32 ? 1e-5 : 1e-12;
    ops_ = &shared(c);
    ops_->allocate_vectors(slots);
    ops_->stop_timer();
    ops_->set_profiling(false);
    ops_->take_profile();
  }

  // One Operations per backend and precision for the whole suite: building kernels is slow.
  static Operations& shared(const Case& c) {
    auto& made = instances()[{c.backend, c.precision}];
    if (!made) made = make(c, find_device(c.backend, -1), Params{});
    return *made;
  }
  static void TearDownTestSuite() { instances().clear(); }

  static std::unique_ptr<Operations> make(const Case& c, const DeviceInfo& device, const Params& launch) {
    return (*find_operations(c.backend))(device, test_matrix(), c.precision, launch);
  }

  std::vector<double> put(Slot v, const std::vector<double>& values) {
    ops_->upload(v, values);
    return rounded(values);
  }
  std::vector<double> get(Slot v) {
    std::vector<double> values(test_rows);
    ops_->download(v, values);
    return values;
  }
  // The values as the device holds them in this precision.
  std::vector<double> rounded(std::vector<double> values) const {
    if (GetParam().precision == Precision::f32)
      for (double& x : values) x = static_cast<double>(static_cast<float>(x));
    return values;
  }
  double rounded_value(double x) const {
    return GetParam().precision == Precision::f32 ? static_cast<double>(static_cast<float>(x)) : x;
  }

  DeviceInfo device_;
  double tolerance_ = 0;
  Operations* ops_ = nullptr;

 private:
  static std::map<std::pair<std::string, Precision>, std::unique_ptr<Operations>>& instances() {
    static std::map<std::pair<std::string, Precision>, std::unique_ptr<Operations>> m;
    return m;
  }
};

TEST_P(CgOperations, RowsAndZeroFilledVectors) {
  ASSERT_EQ(ops_->rows(), test_rows);
  for (Slot v = 0; v < slots; ++v) EXPECT_EQ(get(v), std::vector<double>(test_rows, 0.0)) << "slot " << v;
}

TEST_P(CgOperations, UploadDownloadRoundTrip) {
  const auto x = random_vector(1, -1e3, 1e3);
  const auto y = random_vector(2);
  put(3, x);
  put(5, y);
  EXPECT_EQ(get(3), rounded(x));  // exactly: one conversion each way
  EXPECT_EQ(get(5), rounded(y));
}

TEST_P(CgOperations, Spmv) {
  const auto x = put(0, random_vector(3));
  ops_->spmv(0, 1);
  EXPECT_TRUE(close(get(1), host_spmv(test_matrix(), x), tolerance_));
  // Again with other data in other slots: nothing stale.
  const auto z = put(6, random_vector(4, 0.5, 2.0));
  ops_->spmv(6, 2);
  EXPECT_TRUE(close(get(2), host_spmv(test_matrix(), z), tolerance_));
}

// A band's SpMV in parts (distributed.hpp): each range's rows are A in, the others untouched.
TEST_P(CgOperations, SpmvOfRowRanges) {
  if (!runs_bands(GetParam().backend)) {
    EXPECT_THROW(ops_->spmv_rows(0, 1, 0, test_rows), Error) << "a backend that runs no band has no row ranges";
    return;
  }
  const auto x = put(0, random_vector(3));
  const auto want = host_spmv(test_matrix(), x);
  for (const auto& [first, count] : std::vector<std::pair<int, int>>{{0, test_rows}, {5, 17}, {test_rows - 3, 3},
                                                                      {0, 1000}, {1000, test_rows - 1000}, {7, 0}}) {
    SCOPED_TRACE("rows " + std::to_string(first) + " + " + std::to_string(count));
    const auto before = put(1, random_vector(4, 10.0, 20.0));
    ops_->spmv_rows(0, 1, first, count);
    std::vector<double> expected = before;
    std::copy(want.begin() + first, want.begin() + first + count, expected.begin() + first);
    EXPECT_TRUE(close(get(1), expected, tolerance_));
  }
  EXPECT_THROW(ops_->spmv_rows(0, 1, test_rows - 3, 4), Error);  // past the last row: a bug, said
  EXPECT_THROW(ops_->spmv_rows(0, 1, -1, 2), Error);
}

TEST_P(CgOperations, Dot) {
  const auto a = put(0, random_vector(5));
  const auto b = put(1, random_vector(6));
  double ab = 0, aa = 0, magnitude = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    magnitude += std::abs(a[i] * b[i]);
  }
  EXPECT_TRUE(close_sum(ops_->dot(0, 1), ab, magnitude, tolerance_));
  EXPECT_TRUE(close_sum(ops_->dot(1, 0), ab, magnitude, tolerance_));
  EXPECT_TRUE(close_sum(ops_->dot(0, 0), aa, aa, tolerance_));  // a == b
  EXPECT_EQ(ops_->dot(2, 3), 0.0);
}

TEST_P(CgOperations, Dot2) {
  const auto r = put(2, random_vector(7));
  const auto w = put(4, random_vector(8));
  double rr = 0, wr = 0, magnitude = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    rr += r[i] * r[i];
    wr += w[i] * r[i];
    magnitude += std::abs(w[i] * r[i]);
  }
  const auto [got_rr, got_wr] = ops_->dot2(2, 4);
  EXPECT_TRUE(close_sum(got_rr, rr, rr, tolerance_));
  EXPECT_TRUE(close_sum(got_wr, wr, magnitude, tolerance_));
  EXPECT_EQ(get(2), r);  // inputs untouched
  EXPECT_EQ(get(4), w);
}

// The fused forms' SpMV: w = A r with r.r and w.r from the same pass, whole and (bands) by row
// ranges whose shares add up until the reduction is finished.
TEST_P(CgOperations, SpmvDot2) {
  const auto r = put(0, random_vector(41));
  const auto w = host_spmv(test_matrix(), r);
  double rr = 0, wr = 0, magnitude = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    rr += r[i] * r[i];
    wr += w[i] * r[i];
    magnitude += std::abs(w[i] * r[i]);
  }
  put(1, random_vector(42, 10.0, 20.0));
  const auto [got_rr, got_wr] = ops_->spmv_dot2(0, 1);
  EXPECT_TRUE(close(get(1), w, tolerance_));
  EXPECT_TRUE(close_sum(got_rr, rr, rr, tolerance_));
  EXPECT_TRUE(close_sum(got_wr, wr, magnitude, tolerance_));
  EXPECT_EQ(get(0), r);  // its input untouched
  if (!runs_bands(GetParam().backend)) return;
  // A band's SpMV in three parts (the most a reduction takes), then a whole one: each reduction
  // sums its own parts only.
  put(1, random_vector(43, 10.0, 20.0));
  ops_->start_spmv_dot2_rows(0, 1, 1000, 1500);
  ops_->start_spmv_dot2_rows(0, 1, 0, 1000);
  ops_->start_spmv_dot2_rows(0, 1, 2500, test_rows - 2500);
  const auto [parts_rr, parts_wr] = ops_->finish_reduction();
  EXPECT_TRUE(close(get(1), w, tolerance_));
  EXPECT_TRUE(close_sum(parts_rr, rr, rr, tolerance_));
  EXPECT_TRUE(close_sum(parts_wr, wr, magnitude, tolerance_));
  ops_->start_spmv_dot2_rows(0, 1, 7, 0);  // no rows: nothing to add
  EXPECT_EQ(ops_->finish_reduction(), (std::array<double, 2>{0.0, 0.0}));
  EXPECT_TRUE(close_sum(ops_->spmv_dot2(0, 1)[1], wr, magnitude, tolerance_));
  EXPECT_THROW(ops_->start_spmv_dot2_rows(0, 1, test_rows - 3, 4), Error);  // past the last row
}

// A matrix of long rows over many columns (80000, 16 entries per row at random columns): where
// the slab SpMV suits it (kernels/cg/slabs.hpp; on PoCL in two slabs of at most 65536 columns),
// SpMV and the fused SpMV with its sums agree with the host's CSR product.
TEST_P(CgOperations, LongRowsOverManyColumns) {
  const int n = 80000, per_row = 16;
  CsrMatrix a;
  a.rows = a.cols = n;
  a.row_ptr.push_back(0);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> column(0, n - 1);
  std::uniform_real_distribution<double> value(-1, 1);
  for (int i = 0; i < n; ++i) {
    std::vector<int> cols{i};
    while (static_cast<int>(cols.size()) < per_row) cols.push_back(column(rng));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (int c : cols) {
      a.col_idx.push_back(c);
      a.values.push_back(c == i ? 20.0 : value(rng));
    }
    a.row_ptr.push_back(static_cast<std::int32_t>(a.col_idx.size()));
  }
  const SlabPlan plan{4, n / 4, 65536, 2, 1, 0, 0, 0};
  const SlabMatrix slabs = slab_matrix(a, plan);  // the layout itself: every entry where it belongs
  for (std::size_t s = 0; s < 2; ++s)
    for (int i = 0; i < n; i += 997)
      for (std::int32_t k = slabs.row_ptr[s * (n + 1) + i]; k < slabs.row_ptr[s * (n + 1) + i + 1]; ++k) {
        const auto c = static_cast<std::int32_t>(s * 65536 + slabs.offsets[static_cast<std::size_t>(k)]);
        const auto* begin = a.col_idx.data() + a.row_ptr[i];
        const auto* end = a.col_idx.data() + a.row_ptr[i + 1];
        const auto* at = std::find(begin, end, c);
        ASSERT_NE(at, end) << "row " << i << " slab " << s;
        EXPECT_EQ(slabs.values[static_cast<std::size_t>(k)], a.values[static_cast<std::size_t>(at - a.col_idx.data())]);
      }
  auto ops = (*find_operations(GetParam().backend))(device_, a, GetParam().precision, Params{});
  ops->allocate_vectors(2);
  std::vector<double> r(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) r[static_cast<std::size_t>(i)] = 1.0 + 0.5 * std::sin(0.001 * i);
  ops->upload(0, r);
  r = rounded(r);
  std::vector<double> w(static_cast<std::size_t>(n), 0.0);
  double rr = 0, wr = 0, magnitude = 0;
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    for (std::int32_t e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e)
      w[k] += rounded_value(a.values[static_cast<std::size_t>(e)]) * r[static_cast<std::size_t>(a.col_idx[e])];
    rr += r[k] * r[k];
    wr += w[k] * r[k];
    magnitude += std::abs(w[k] * r[k]);
  }
  const double tolerance = GetParam().precision == Precision::f32 ? 1e-4 : tolerance_;
  // The tunables: the slab SpMV where planned (with the plan's lanes per row, or each count the
  // sweep tries, folded by shuffles or in local memory; x staged in local memory or gathered
  // through the cache in slabs of 32 or 256 KiB: in f64 20 slabs or 3), or CSR.
  const std::vector<std::array<int, 3>> launches{{1, 0, 0}, {1, 1, 0},   {1, 2, 0},  {1, 8, 0}, {1, 32, 0},
                                                 {1, 0, 32}, {1, 4, 32}, {1, 8, 256}, {0, 0, 0}};
  for (const auto& [slab_spmv, lanes, kib] : launches) {
    SCOPED_TRACE("slabs=" + std::to_string(slab_spmv) + " slab_lanes=" + std::to_string(lanes) +
                 " slab_cache_kib=" + std::to_string(kib));
    const Params launch{{"slabs", slab_spmv}, {"slab_lanes", lanes}, {"slab_cache_kib", kib}};
    ops->set_launch("spmv", launch);
    ops->set_launch("spmv_dot2", launch);
    ops->fill_zero(1);
    ops->spmv(0, 1);
    std::vector<double> got(static_cast<std::size_t>(n));
    ops->download(1, got);
    EXPECT_TRUE(close(got, w, tolerance));
    ops->fill_zero(1);
    const auto [got_rr, got_wr] = ops->spmv_dot2(0, 1);
    EXPECT_TRUE(close_sum(got_rr, rr, rr, tolerance));
    EXPECT_TRUE(close_sum(got_wr, wr, magnitude, tolerance));
    ops->download(1, got);
    EXPECT_TRUE(close(got, w, tolerance));
  }
}

// The slab plan's lanes per row: the most (at most a warp, dividing the work-group) that leave
// each two of a row's entries in a slab or more; a launch may ask for others (slab_lanes), within
// the work-group.
TEST(SlabPlan, LanesLeaveEachTwoEntriesOfARowInASlabOrMore) {
  const auto matrix = [](int n, int per_row) {
    CsrMatrix a;
    a.rows = a.cols = n;
    a.col_idx.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(per_row), 0);
    return a;
  };
  // NAS CG class C's shape: 150000 columns, ~240 entries per row; x in f64.
  const CsrMatrix npb = matrix(150000, 240);
  const auto cuda = plan_slabs(npb, 1024, 115200, 264, 8);  // the H200's 228 KiB per SM, two blocks
  ASSERT_TRUE(cuda);
  EXPECT_EQ(cuda->slabs, 12u);
  EXPECT_EQ(cuda->lanes, 8u);  // 20 entries per row and slab
  const auto opencl = plan_slabs(npb, 512, 48 * 1024 - 512, 264, 8);  // NVIDIA's OpenCL: 48 KiB
  ASSERT_TRUE(opencl);
  EXPECT_EQ(opencl->slabs, 29u);
  EXPECT_EQ(opencl->lanes, 4u);  // 8.3
  const auto narrow = plan_slabs(npb, 2, 48 * 1024 - 512, 264, 8);
  ASSERT_TRUE(narrow);
  EXPECT_EQ(narrow->lanes, 2u);  // no more than the work-group
  EXPECT_EQ(lanes_of(*opencl, 0, 512), 4u);
  EXPECT_EQ(lanes_of(*opencl, 16, 512), 16u);
  EXPECT_EQ(lanes_of(*opencl, 32, 8), 8u);
  // Short rows (a stencil's): no slabs.
  EXPECT_FALSE(plan_slabs(matrix(150000, 5), 512, 48 * 1024, 264, 8));
}

// Slabs gathered through the cache: as wide as the cache budget (at most 2^16 columns: the 16-bit
// offsets), nothing of x in local memory, the lanes for the wider slabs' entries per row.
TEST(SlabPlan, CachedSlabsTakeTheirWidthFromTheCacheBudget) {
  CsrMatrix npb;
  npb.rows = npb.cols = 150000;
  npb.col_idx.assign(150000u * 240u, 0);
  const auto cached = plan_slabs(npb, 512, 48 * 1024 - 512, 264, 8, 128 * 1024);  // NVIDIA's OpenCL
  ASSERT_TRUE(cached);
  EXPECT_FALSE(cached->staged);
  EXPECT_EQ(cached->slabs, 10u);  // 16384 columns each at most: 15000
  EXPECT_EQ(cached->width, 15000u);
  EXPECT_EQ(cached->slice_bytes, 0u);
  EXPECT_EQ(cached->lanes, 8u);  // 24 entries per row and slab
  EXPECT_EQ(cached->sums_bytes, plan_slabs(npb, 512, 48 * 1024 - 512, 264, 8)->sums_bytes);
  const auto wide = plan_slabs(npb, 512, 48 * 1024 - 512, 264, 8, 1024 * 1024);
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->slabs, 3u);  // 65536 columns at most
  const auto f32 = plan_slabs(npb, 512, 48 * 1024 - 512, 264, 4, 32 * 1024);
  ASSERT_TRUE(f32);
  EXPECT_EQ(f32->slabs, 19u);  // 8192 floats each at most
  // The rows' state still needs its quarter of the local memory.
  EXPECT_FALSE(plan_slabs(npb, 512, 4 * 1024, 264, 8, 128 * 1024));
}

// A backend's layouts: each made once, on first use; a declined one remembered; the ones no
// launch wants dropped.
TEST(SlabLayouts, MakeOnceAndKeepWhatTheLaunchesWant) {
  SlabLayouts<int> layouts;
  int made = 0;
  const auto make = [&](unsigned kib) -> std::optional<int> {
    ++made;
    if (kib == 256) return std::nullopt;
    return static_cast<int>(kib) + 1;
  };
  ASSERT_NE(layouts.get(0, make), nullptr);
  EXPECT_EQ(*layouts.get(0, make), 1);
  EXPECT_EQ(*layouts.get(128, make), 129);
  EXPECT_EQ(layouts.get(256, make), nullptr);
  EXPECT_EQ(layouts.get(256, make), nullptr);
  EXPECT_EQ(made, 3);
  EXPECT_EQ(*layouts.find(128), 129);
  EXPECT_EQ(layouts.find(256), nullptr);
  EXPECT_EQ(layouts.find(64), nullptr);  // never made
  layouts.keep({128, 128});
  EXPECT_EQ(layouts.find(0), nullptr);
  EXPECT_EQ(*layouts.find(128), 129);
  EXPECT_EQ(*layouts.get(0, make), 1);
  EXPECT_EQ(made, 4);  // made again
}

// Many work-groups' partials, summed on the device (more than four per work-item of the sum):
// small work-groups over a larger matrix.
TEST_P(CgOperations, SpmvDot2OfManyWorkGroups) {
  const int n = 300000;  // over 4 x 1024 work-groups of 32 x row_runs rows
  CsrMatrix a;
  a.rows = a.cols = n;
  a.row_ptr.push_back(0);
  for (int i = 0; i < n; ++i) {  // tridiagonal [-1 3 -1]
    for (int j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j) {
      a.col_idx.push_back(j);
      a.values.push_back(i == j ? 3.0 : -1.0);
    }
    a.row_ptr.push_back(static_cast<std::int32_t>(a.col_idx.size()));
  }
  auto ops = (*find_operations(GetParam().backend))(device_, a, GetParam().precision, Params{});
  ops->allocate_vectors(2);
  std::vector<double> r(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) r[static_cast<std::size_t>(i)] = 1.0 + 0.25 * std::sin(0.01 * i);
  ops->upload(0, r);
  r = rounded(r);
  double rr = 0, wr = 0, magnitude = 0;
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double wi = 3 * r[k] - (i > 0 ? r[k - 1] : 0) - (i + 1 < n ? r[k + 1] : 0);
    rr += r[k] * r[k];
    wr += wi * r[k];
    magnitude += std::abs(wi * r[k]);
  }
  // 300000 terms: a library that sums them in f32 in one sequence (ViennaCL on the host) is off by
  // about sqrt(n) eps of their magnitude, over the 1e-5 the shorter tests allow.
  const double tolerance = GetParam().precision == Precision::f32 ? 1e-4 : tolerance_;
  for (const int runs : {1, 2, 16}) {
    ops->set_launch("spmv_dot2", {{"work_group_size", 32}, {"row_runs", runs}});
    const auto [got_rr, got_wr] = ops->spmv_dot2(0, 1);
    EXPECT_TRUE(close_sum(got_rr, rr, rr, tolerance)) << runs << " runs";
    EXPECT_TRUE(close_sum(got_wr, wr, magnitude, tolerance)) << runs << " runs";
  }
}

// OpenCL and CUDA keep the fused forms' scalars in device memory; the host backends on the host.
TEST_P(CgOperations, ScalarsLiveOnTheDeviceOnGpuApis) {
  const bool gpu_api = GetParam().backend == "opencl" || GetParam().backend == "cuda";
  EXPECT_EQ(ops_->device_scalars(), gpu_api);
}

// The fused forms' scalars advanced where the backend keeps them (on CUDA and OpenCL by a kernel)
// give the state the host's recurrence gives from the same sums, for every rule: their
// coefficients to the precision's rounding, the breakdown flags exactly.
TEST_P(CgOperations, SpmvDot2AdvanceMatchesTheHostRecurrence) {
  const CsrMatrix a = make_problem("poisson2d:30").a;
  auto ops = (*find_operations(GetParam().backend))(device_, a, GetParam().precision, Params{});
  ops->allocate_vectors(2);
  const auto n = static_cast<std::size_t>(a.rows);
  std::vector<double> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = 1.0 + 0.5 * std::cos(0.3 * static_cast<double>(i));
  ops->upload(0, r);
  const auto sums = ops->spmv_dot2(0, 1);
  Operations::Scalars before{};
  before[CG_RR] = 0.9 * sums[0], before[CG_A] = 0.8, before[CG_B] = 0.05, before[CG_GAMMA_PREV] = 0.9 * sums[0] / sums[1];
  before[CG_RR_PREV] = 1.1 * sums[0], before[CG_RHO_PREV] = 1.2;
  const double f = GetParam().precision == Precision::f32 ? 1e-4 : 1e-11;
  for (const int rule : {CG_RULE_THREE_TERM, CG_RULE_CG, CG_RULE_CG_RESTART}) {
    for (const double first : {0.0, 1.0}) {
      Operations::Scalars state = before;
      state[CG_FIRST] = first;
      ops->set_scalars(state);
      ops->spmv_dot2_advance(0, 1, rule);
      const Operations::Scalars got = ops->get_scalars();
      Operations::Scalars want = state;
      cg_advance(want.data(), rule, sums[0], sums[1]);
      for (int k = 0; k < CG_SCALARS; ++k)
        EXPECT_NEAR(got[k], want[k], f * std::max(1.0, std::abs(want[k]))) << "rule " << rule << ", entry " << k;
      EXPECT_EQ(got[CG_STATUS], CG_GOING) << "rule " << rule;
    }
  }
  // A zero r is an exact solution; a breakdown (form2's denominator not finite: the last gamma
  // zero) is flagged, and the coefficients freeze x and r.
  ops->fill_zero(0);
  Operations::Scalars state = before;
  ops->set_scalars(state);
  ops->spmv_dot2_advance(0, 1, CG_RULE_THREE_TERM);
  Operations::Scalars got = ops->get_scalars();
  EXPECT_EQ(got[CG_STATUS], CG_EXACT);
  EXPECT_EQ(got[CG_RR], 0);
  EXPECT_EQ(got[CG_A], 1);  // rho = 1, gamma = 0: x and r stay
  EXPECT_EQ(got[CG_B], 0);
  ops->upload(0, r);
  state = before;
  state[CG_RR] = 0;
  ops->set_scalars(state);
  ops->spmv_dot2_advance(0, 1, CG_RULE_CG);
  got = ops->get_scalars();
  EXPECT_EQ(got[CG_STATUS], CG_BREAKDOWN_DEN);
  EXPECT_EQ(got[CG_A], 0);  // alpha = 0, beta = 0: x and r stay
  EXPECT_EQ(got[CG_B], 0);
  ops->spmv_dot2_advance(0, 1, CG_RULE_CG);  // frozen: stays so
  EXPECT_EQ(ops->get_scalars()[CG_STATUS], CG_BREAKDOWN_DEN);
}

TEST_P(CgOperations, Axpy) {
  const auto x = put(0, random_vector(9));
  auto y = put(1, random_vector(10));
  const double alpha = -0.7321;
  ops_->axpy(alpha, 0, 1);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] += alpha * x[i];
  EXPECT_TRUE(close(get(1), y, tolerance_));
  EXPECT_EQ(get(0), x);
}

TEST_P(CgOperations, Xpay) {
  const auto x = put(0, random_vector(11));
  auto y = put(1, random_vector(12));
  const double beta = 1.3717;
  ops_->xpay(0, beta, 1);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = x[i] + beta * y[i];
  EXPECT_TRUE(close(get(1), y, tolerance_));
}

TEST_P(CgOperations, Scale) {
  const auto x = put(0, random_vector(13));
  put(1, random_vector(14));
  const double alpha = 2.918;
  ops_->scale(alpha, 0, 1);
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = alpha * x[i];
  EXPECT_TRUE(close(get(1), y, tolerance_));
}

TEST_P(CgOperations, ThreeTermUpdate) {
  const auto x = put(0, random_vector(15));
  auto x_prev = put(1, random_vector(16));
  const auto r = put(2, random_vector(17));
  auto r_prev = put(3, random_vector(18));
  const auto w = put(4, random_vector(19));
  const double rho = 1.234, gamma = 0.567;
  ops_->three_term_update(rho, gamma, 0, 1, 2, 3, 4);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x_prev[i] = rho * (x[i] + gamma * r[i]) + (1 - rho) * x_prev[i];
    r_prev[i] = rho * (r[i] - gamma * w[i]) + (1 - rho) * r_prev[i];
  }
  EXPECT_TRUE(close(get(1), x_prev, tolerance_));
  EXPECT_TRUE(close(get(3), r_prev, tolerance_));
  EXPECT_EQ(get(0), x);
  EXPECT_EQ(get(2), r);
  EXPECT_EQ(get(4), w);
}

TEST_P(CgOperations, CgUpdate) {
  auto r = put(0, random_vector(20));
  const auto w = put(1, random_vector(21));
  auto p = put(2, random_vector(22));
  auto s = put(3, random_vector(23));
  auto x = put(4, random_vector(24));
  const double alpha = 0.4321, beta = -0.8765;
  ops_->cg_update(alpha, beta, 0, 1, 2, 3, 4);
  for (std::size_t i = 0; i < r.size(); ++i) {
    p[i] = r[i] + beta * p[i];
    s[i] = w[i] + beta * s[i];
    x[i] = x[i] + alpha * p[i];
    r[i] = r[i] - alpha * s[i];
  }
  EXPECT_TRUE(close(get(2), p, tolerance_));
  EXPECT_TRUE(close(get(3), s, tolerance_));
  EXPECT_TRUE(close(get(4), x, tolerance_));
  EXPECT_TRUE(close(get(0), r, tolerance_));
  EXPECT_EQ(get(1), w);
}

TEST_P(CgOperations, CopyAndFillZero) {
  const auto x = put(5, random_vector(25));
  put(6, random_vector(26));
  ops_->copy(5, 6);
  EXPECT_EQ(get(6), x);
  EXPECT_EQ(get(5), x);
  ops_->fill_zero(5);
  EXPECT_EQ(get(5), std::vector<double>(test_rows, 0.0));
  EXPECT_EQ(get(6), x);
}

TEST_P(CgOperations, LaunchConfigsGiveTheSameResults) {
  const auto a = random_vector(27);
  const auto b = random_vector(28);
  ops_->upload(0, a);
  ops_->upload(1, b);
  const double reference = ops_->dot(0, 1);
  ops_->spmv(0, 2);
  const auto reference_spmv = get(2);
  double magnitude = 0;
  for (std::size_t i = 0; i < a.size(); ++i) magnitude += std::abs(a[i] * b[i]);

  // Every size and grid, a size that is not a power of two (for the reductions), a large one, and
  // one beyond any device's maximum (clamped to it).
  const Params configs[] = {grid::params(64, 1),  grid::params(128, 4), grid::params(256, 16),  grid::params(64, 16),
                           grid::params(256, 1), grid::params(96, 3),  grid::params(1024, 2), grid::params(1 << 20, 1)};
  for (const Params& launch : configs) {
    SCOPED_TRACE(format_params(launch));
    auto ops = make(GetParam(), device_, launch);
    ops->allocate_vectors(3);
    ops->upload(0, a);
    ops->upload(1, b);
    EXPECT_TRUE(close_sum(ops->dot(0, 1), reference, magnitude, tolerance_));
    EXPECT_TRUE(close_sum(ops->dot2(0, 1)[1], reference, magnitude, tolerance_));
    ops->spmv(0, 2);
    std::vector<double> y(test_rows);
    ops->download(2, y);
    EXPECT_TRUE(close(y, reference_spmv, tolerance_));
    ops->fill_zero(2);
    const double aa = ops->spmv_dot2(0, 2)[0];
    double want_aa = 0;
    for (double v : rounded(a)) want_aa += v * v;
    EXPECT_TRUE(close_sum(aa, want_aa, want_aa, tolerance_));
    ops->download(2, y);
    EXPECT_TRUE(close(y, reference_spmv, tolerance_));
  }
}

TEST_P(CgOperations, TimerSpansTheKernels) {
  put(0, random_vector(29));
  put(1, random_vector(30));
  ops_->start_timer();
  EXPECT_EQ(ops_->stop_timer(), 0.0);  // nothing launched

  ops_->start_timer();
  ops_->spmv(0, 2);
  ops_->dot(2, 0);
  ops_->axpy(0.5, 2, 1);
  const double seconds = ops_->stop_timer();
  EXPECT_GT(seconds, 0.0);
  EXPECT_LT(seconds, 60.0);
}

TEST_P(CgOperations, ProfileCountsEveryLaunchPerKernel) {
  put(0, random_vector(31));
  put(1, random_vector(32));
  ops_->spmv(0, 2);  // before profiling: not counted
  ops_->set_profiling(true);
  for (int i = 0; i < 3; ++i) ops_->spmv(0, 2);
  ops_->dot(0, 1);
  ops_->dot(2, 2);
  ops_->dot2(0, 1);
  ops_->spmv_dot2(0, 6);
  ops_->axpy(0.1, 0, 1);
  ops_->xpay(0, 0.2, 1);
  ops_->scale(0.3, 0, 3);
  ops_->three_term_update(1.1, 0.2, 0, 1, 2, 3, 4);
  ops_->cg_update(0.1, 0.2, 0, 1, 2, 3, 4);
  ops_->copy(0, 5);
  ops_->fill_zero(6);
  ops_->set_profiling(false);
  ops_->axpy(0.1, 0, 1);  // after: not counted

  std::map<std::string, long> expected = {
      {"spmv", 3},      {"dot", 2},  {"dot2", 1}, {"axpy", 1}, {"xpay", 1}, {"scale", 1}, {"three_term_update", 1},
      {"cg_update", 1}, {"copy", 1}, {"fill", 1}};
  // The fused SpMV: its kernel and the device's sum of its partials, where the backend has them
  // (not after the slab SpMV, slabs.hpp, whose few work-groups' pairs are the reduction's part);
  // else (a library's calls) an SpMV and a dot2.
  const std::string& backend = GetParam().backend;
  if (backend == "cuda" || backend == "opencl") {
    expected["spmv_dot2"] = 1;
    expected["sum_partials"] = 1;
  } else if (backend == "openmp" || backend.starts_with("omp_target")) {
    expected["spmv_dot2"] = 1;
  } else {
    ++expected["spmv"];
    ++expected["dot2"];
  }
  std::map<std::string, long> calls;
  double total = 0;
  for (const KernelProfile& k : ops_->take_profile()) {
    EXPECT_EQ(calls.count(k.kernel), 0u) << k.kernel << " listed twice";
    calls[k.kernel] = k.calls;
    EXPECT_GE(k.seconds, 0.0) << k.kernel;
    total += k.seconds;
  }
  if (calls.count("sum_partials") == 0 && (backend == "cuda" || backend == "opencl")) expected.erase("sum_partials");
  EXPECT_EQ(calls, expected);
  EXPECT_GT(total, 0.0);
  EXPECT_TRUE(ops_->take_profile().empty());  // taking clears
}

TEST_P(CgOperations, FactoryRefusesWhatTheDeviceCannotHold) {
  // A copy of the device with little memory, and an index that does not exist: the factory must
  // refuse from the description alone, before it opens or allocates anything.
  DeviceInfo small = device_;
  small.index = 9999;
  small.global_mem_bytes = 1000;
  const std::uint64_t needed = device_bytes_needed(test_matrix(), GetParam().precision, max_cg_vectors);
  try {
    make(GetParam(), small, Params{});
    FAIL() << "no DeviceError for a device with 1000 bytes";
  } catch (const DeviceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("GB"), std::string::npos) << message;
    EXPECT_NE(message.find(small.name), std::string::npos) << message;
    char needed_gb[32];
    std::snprintf(needed_gb, sizeof needed_gb, "%.3g GB", static_cast<double>(needed) / 1e9);
    EXPECT_NE(message.find(needed_gb), std::string::npos) << message << " (wanted " << needed_gb << ")";
  }

  DeviceInfo small_buffers = device_;
  small_buffers.index = 9999;
  small_buffers.max_alloc_bytes = 4096;
  try {
    make(GetParam(), small_buffers, Params{});
    FAIL() << "no DeviceError for a device with 4 kB buffers";
  } catch (const DeviceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("4.1e-06 GB"), std::string::npos) << message;
    EXPECT_NE(message.find("per buffer"), std::string::npos) << message;
  }

  if (GetParam().precision == Precision::f64) {
    DeviceInfo no_fp64 = device_;
    no_fp64.index = 9999;
    no_fp64.fp64 = false;
    try {
      make(GetParam(), no_fp64, Params{});
      FAIL() << "no DeviceError for f64 on a device without fp64";
    } catch (const DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("has no fp64 support: use --precision f32"), std::string::npos) << e.what();
    }
  }
}

TEST_P(CgOperations, FactoryRefusesInvalidLaunchConfigs) {
  EXPECT_THROW(make(GetParam(), device_, grid::params(0, 8)), UsageError);
  EXPECT_THROW(make(GetParam(), device_, grid::params(256, 0)), UsageError);
}

TEST_P(CgOperations, PerKernelLaunchesGiveTheSameResults) {
  // Each kernel on its own launch parameters, changed on a live Operations (as a sweep does).
  const auto a = random_vector(31);
  const auto b = random_vector(32);
  ops_->upload(0, a);
  ops_->upload(1, b);
  const double reference = ops_->dot(0, 1);
  const auto reference_r = ops_->dot2(0, 1);
  ops_->spmv(0, 2);
  const auto reference_spmv = get(2);
  ops_->copy(1, 3);
  ops_->axpy(0.5, 0, 3);
  const auto reference_axpy = get(3);
  double magnitude = 0;
  for (std::size_t i = 0; i < a.size(); ++i) magnitude += std::abs(a[i] * b[i]);

  auto ops = make(GetParam(), device_, Params{});
  ops->allocate_vectors(4);
  ops->upload(0, a);
  ops->upload(1, b);
  const Params configs[] = {grid::params(32, 1), grid::params(64, 3), grid::params(128, 64), grid::params(256, 2),
                           grid::params(32, 40)};
  for (const Params& dot_launch : configs) {
    const Params other = grid::params(grid::group_size_of(dot_launch) * 2, grid::groups_per_cu_of(dot_launch) + 1);
    SCOPED_TRACE("dot " + format_params(dot_launch));
    ops->set_launch("dot", dot_launch);
    ops->set_launch("dot2", other);
    ops->set_launch("spmv", other);
    ops->set_launch("axpy", dot_launch);
    EXPECT_TRUE(close_sum(ops->dot(0, 1), reference, magnitude, tolerance_));
    const auto r = ops->dot2(0, 1);
    EXPECT_TRUE(close_sum(r[0], reference_r[0], reference_r[0], tolerance_));
    EXPECT_TRUE(close_sum(r[1], reference, magnitude, tolerance_));
    ops->spmv(0, 2);
    std::vector<double> y(test_rows);
    ops->download(2, y);
    EXPECT_TRUE(close(y, reference_spmv, tolerance_));
    ops->copy(1, 3);
    ops->axpy(0.5, 0, 3);
    ops->download(3, y);
    EXPECT_TRUE(close(y, reference_axpy, tolerance_));
  }
}

TEST_P(CgOperations, SetLaunchRefusesWhatCannotRun) {
  EXPECT_THROW(ops_->set_launch("dot", grid::params(0, 8)), UsageError);
  EXPECT_THROW(ops_->set_launch("dot", grid::params(64, 0)), UsageError);
  try {
    ops_->set_launch("copy", Params{});  // not a tunable kernel: a bug in the caller
    FAIL() << "no error";
  } catch (const UsageError&) {
    FAIL() << "a UsageError";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::internal);
  }
  if (takes_launch_parameters(GetParam().backend)) {
    // A work-group larger than the device launches: refused, naming the kernel.
    const int too_large = static_cast<int>(std::min<std::size_t>(device_.max_work_group_size * 2, 1 << 30));
    try {
      ops_->set_launch("spmv", grid::params(too_large, 1));
      FAIL() << "no error";
    } catch (const DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("kernel spmv"), std::string::npos) << e.what();
    }
  }
  ops_->set_launch("dot", Params{});  // leave the shared instance as it was
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.backend + "_" + to_string(info.param.precision);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, CgOperations, ::testing::ValuesIn(cases()), case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CgOperations);

}  // namespace
}  // namespace gpubench::cg
