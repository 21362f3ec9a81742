// Tests of the row partition for CG on several devices (kernels/cg/partition.hpp): bands cover the
// rows in order with balanced nonzeros, each band's SpMV over its own entries and the exchanged
// halo equals the whole matrix's rows, and the halo holds exactly the columns a band reaches
// outside itself, on a Poisson grid, a real Matrix Market file and NAS CG's matrix.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "kernels/cg/npb.hpp"
#include "kernels/cg/partition.hpp"
#include "kernels/cg/problems.hpp"
#include "kernels/cg/reference.hpp"
#include "tests/test_paths.hpp"

namespace gpubench::cg {
namespace {

using ::testing::HasSubstr;

std::vector<double> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

// Every property a partition must have, checked against the whole matrix.
void expect_valid(const CsrMatrix& a, const Partition& p, int parts) {
  ASSERT_EQ(p.bands.size(), static_cast<std::size_t>(parts));
  ASSERT_EQ(p.rows, a.rows);
  std::int32_t next = 0;
  std::int32_t longest_row = 0;
  for (std::int32_t r = 0; r < a.rows; ++r)
    longest_row = std::max(longest_row, a.row_ptr[static_cast<std::size_t>(r) + 1] - a.row_ptr[static_cast<std::size_t>(r)]);
  const std::vector<double> x = random_vector(static_cast<std::size_t>(a.rows), 7);
  std::vector<double> y(x.size());
  host_spmv(a, x, y);
  std::int64_t halo_total = 0;
  for (int k = 0; k < parts; ++k) {
    const Band& b = p.bands[static_cast<std::size_t>(k)];
    SCOPED_TRACE("band " + std::to_string(k));
    // contiguous, in order, at least one row
    EXPECT_EQ(b.first_row, next);
    EXPECT_GE(b.rows(), 1);
    next = b.first_row + b.rows();
    // balanced: within one row's nonzeros of an equal share (except where a band is held to one row)
    const double share = static_cast<double>(a.nnz()) / parts;
    if (b.rows() > 1) {
      EXPECT_LE(std::abs(static_cast<double>(b.a.nnz()) - share), 2.0 * longest_row + 1);
    }
    // the halo: exactly the columns outside the band that its rows reach, ascending per owner
    std::set<std::int32_t> reached;
    for (std::int32_t i = a.row_ptr[static_cast<std::size_t>(b.first_row)]; i < a.row_ptr[static_cast<std::size_t>(next)]; ++i) {
      const std::int32_t c = a.col_idx[static_cast<std::size_t>(i)];
      if (c < b.first_row || c >= next) reached.insert(c);
    }
    EXPECT_EQ(std::set<std::int32_t>(b.halo.begin(), b.halo.end()), reached);
    EXPECT_EQ(b.a.cols, b.rows() + b.halo_size());
    halo_total += b.halo_size();
    // each receive matches the sending band's send, entry for entry
    std::int32_t offset = 0;
    for (const HaloLink& r : b.receives) {
      EXPECT_NE(r.band, k);
      EXPECT_EQ(r.offset, offset);
      offset += static_cast<std::int32_t>(r.entries.size());
      EXPECT_TRUE(std::is_sorted(r.entries.begin(), r.entries.end()));
      const Band& from = p.bands[static_cast<std::size_t>(r.band)];
      const auto send = std::find_if(from.sends.begin(), from.sends.end(), [&](const HaloLink& s) { return s.band == k; });
      ASSERT_NE(send, from.sends.end());
      ASSERT_EQ(send->entries.size(), r.entries.size());
      for (std::size_t i = 0; i < r.entries.size(); ++i) EXPECT_EQ(send->entries[i] + from.first_row, r.entries[i]);
    }
    EXPECT_EQ(offset, b.halo_size());
    // local CSR well formed: columns sorted and within [0, cols)
    for (std::int32_t r = 0; r < b.rows(); ++r) {
      const auto begin = b.a.col_idx.begin() + b.a.row_ptr[static_cast<std::size_t>(r)];
      const auto end = b.a.col_idx.begin() + b.a.row_ptr[static_cast<std::size_t>(r) + 1];
      EXPECT_TRUE(std::is_sorted(begin, end));
      EXPECT_TRUE(std::all_of(begin, end, [&](std::int32_t c) { return c >= 0 && c < b.a.cols; }));
    }
    // the interior: rows that read no halo entry, the longest such run
    std::vector<bool> reads_halo(static_cast<std::size_t>(b.rows()));
    for (std::int32_t r = 0; r < b.rows(); ++r)
      for (std::int32_t i = b.a.row_ptr[static_cast<std::size_t>(r)]; i < b.a.row_ptr[static_cast<std::size_t>(r) + 1]; ++i)
        if (b.a.col_idx[static_cast<std::size_t>(i)] >= b.rows()) reads_halo[static_cast<std::size_t>(r)] = true;
    ASSERT_GE(b.interior_first, 0);
    ASSERT_LE(b.interior_first + b.interior_rows, b.rows());
    for (std::int32_t r = b.interior_first; r < b.interior_first + b.interior_rows; ++r)
      EXPECT_FALSE(reads_halo[static_cast<std::size_t>(r)]) << "interior row " << r;
    for (std::int32_t r = 0, run = 0; r < b.rows(); ++r) {
      run = reads_halo[static_cast<std::size_t>(r)] ? 0 : run + 1;
      EXPECT_LE(run, b.interior_rows) << "a longer run ends at row " << r;
    }
    if (b.halo.empty()) {
      EXPECT_EQ(b.interior_first, 0);
      EXPECT_EQ(b.interior_rows, b.rows());
    }
    // the band's SpMV on [own entries, exchanged halo] is the whole SpMV's rows, to rounding (a
    // row's products are summed in another order where its halo columns move behind its own)
    std::vector<double> local(band_slice(p, k, x).begin(), band_slice(p, k, x).end());
    const std::vector<double> halo = gather_halo(p, k, x);
    local.insert(local.end(), halo.begin(), halo.end());
    std::vector<double> out(static_cast<std::size_t>(b.rows()));
    host_spmv(b.a, local, out);
    for (std::int32_t r = 0; r < b.rows(); ++r)
      EXPECT_NEAR(out[static_cast<std::size_t>(r)], y[static_cast<std::size_t>(b.first_row + r)],
                  1e-13 * (1 + std::abs(y[static_cast<std::size_t>(b.first_row + r)])));
  }
  EXPECT_EQ(next, a.rows);
  EXPECT_EQ(p.halo_entries(), halo_total);
}

TEST(Partition, PoissonGridBandsExchangeOneGridLineEachWay) {
  const CsrMatrix a = poisson2d(16);  // 256 rows, 5-point stencil
  for (int parts : {1, 2, 3, 5, 16}) {
    SCOPED_TRACE(std::to_string(parts) + " bands");
    expect_valid(a, partition_rows(a, parts), parts);
  }
  const Partition two = partition_rows(a, 2);
  EXPECT_EQ(two.bands[0].rows(), 128);  // the grid's middle: equal nonzeros
  EXPECT_EQ(two.bands[0].halo_size(), 16);  // one grid line from the other band, not the vector
  EXPECT_EQ(two.bands[1].halo_size(), 16);
  // all but the grid line beside the other band reads no halo
  EXPECT_EQ(two.bands[0].interior_first, 0);
  EXPECT_EQ(two.bands[0].interior_rows, 128 - 16);
  EXPECT_EQ(two.bands[1].interior_first, 16);
  EXPECT_EQ(two.bands[1].interior_rows, 128 - 16);
  const Partition four = partition_rows(a, 4);  // a middle band reads a grid line beyond each edge
  EXPECT_EQ(four.bands[1].interior_first, 16);
  EXPECT_EQ(four.bands[1].interior_rows, four.bands[1].rows() - 32);
  const Partition one = partition_rows(a, 1);
  EXPECT_EQ(one.halo_entries(), 0);
  EXPECT_EQ(one.bands[0].a.col_idx, a.col_idx);
}

TEST(Partition, ThreeDimensionalGrid) {
  const CsrMatrix a = poisson3d(8);
  expect_valid(a, partition_rows(a, 3), 3);
  expect_valid(a, partition_rows(a, 4), 4);
}

TEST(Partition, RealMatrixMarketFile) {
  const Problem p = make_problem("mtx:" + test::matrix_dir() + "/1138_bus.mtx");
  for (int parts : {2, 3, 7}) {
    SCOPED_TRACE(std::to_string(parts) + " bands");
    expect_valid(p.a, partition_rows(p.a, parts), parts);
  }
}

TEST(Partition, NasCgClassS) {
  const CsrMatrix a = npb_makea(npb_class("S"));  // random sparsity: halos reach every band
  for (int parts : {2, 3}) {
    SCOPED_TRACE(std::to_string(parts) + " bands");
    const Partition p = partition_rows(a, parts);
    expect_valid(a, p, parts);
    for (const Band& b : p.bands) EXPECT_EQ(b.receives.size(), static_cast<std::size_t>(parts - 1));
  }
}

TEST(Partition, ImpossibleSplitsAreNamed) {
  const CsrMatrix a = poisson2d(2);  // 4 rows
  EXPECT_THROW(partition_rows(a, 0), InputError);
  try {
    partition_rows(a, 5);
    FAIL() << "5 bands of 4 rows";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot split 4 rows into 5 bands"));
  }
  expect_valid(a, partition_rows(a, 4), 4);  // one row each
  CsrMatrix wide = a;
  wide.cols = 5;
  EXPECT_THROW(partition_rows(wide, 2), InputError);
}

}  // namespace
}  // namespace gpubench::cg
