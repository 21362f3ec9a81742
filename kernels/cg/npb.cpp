// NAS Parallel Benchmarks CG (NPB 3.x): its classes and a port of its matrix generator.
//
// The generator must reproduce NPB's matrix bit for bit, because the official zeta values are
// only reached (to 1e-10) with exactly that matrix. What makes it exact:
//  - the random stream: randlc's linear congruential generator, started at NPB's seed, with
//    the one draw the NPB main program makes before makea;
//  - the arithmetic of sparse(): each entry is the same product in the same order
//    (v[col] * (size * v[row])), the diagonal shift is added to that product before it is
//    accumulated, and duplicates are summed in the order of the outer rows that produce them;
//  - nothing is dropped: NPB 3.x keeps entries that sum to zero (NPB 2.x did not).
// The assembly itself differs from NPB's (NPB inserts into pre-sized rows with shifting;
// here each row is accumulated in a dense scratch row), since only the values and their
// summation order matter, not how they are stored on the way.
#include "kernels/cg/npb.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/errors.hpp"
#include "common/nas_random.hpp"

namespace gpubench::cg {

namespace {

constexpr std::array<NpbClass, 5> npb_classes{{
    {'S', 1400, 7, 15, 10.0, 8.5971775078648},
    {'W', 7000, 8, 15, 12.0, 10.362595087124},
    {'A', 14000, 11, 15, 20.0, 17.130235054029},
    {'B', 75000, 13, 75, 60.0, 22.712745482631},
    {'C', 150000, 15, 75, 110.0, 28.973605592845},
}};

// NPB's randlc (common/nas_random.hpp), one number at a time.
class NpbRandom {
 public:
  explicit NpbRandom(std::uint64_t seed) : state_(seed) {}

  double next() {
    state_ = nas::lcg_next(state_);
    return nas::to_unit(state_);  // exact: state_ < 2^46
  }

 private:
  std::uint64_t state_;
};

constexpr std::uint64_t npb_seed = 314159265;  // NPB's tran

// One generated sparse vector: NPB's (v, iv) after sprnvc and vecset, with 0-based indices.
struct SparseVector {
  std::vector<double> values;
  std::vector<int> indices;
};

// NPB's sprnvc: `nonzer` distinct random positions in 1..n, each with a random value. The
// value is drawn before the position, and draws of rejected positions are consumed too.
void random_sparse_vector(NpbRandom& random, int n, int nonzer, SparseVector& v) {
  int nn1 = 1;  // smallest power of two >= n (NPB's loop: at least 2)
  do {
    nn1 *= 2;
  } while (nn1 < n);

  v.values.clear();
  v.indices.clear();
  while (static_cast<int>(v.indices.size()) < nonzer) {
    const double value = random.next();
    const double location = random.next();
    const int i = static_cast<int>(nn1 * location);  // NPB's icnvrt, minus its +1
    if (i >= n) continue;
    if (std::find(v.indices.begin(), v.indices.end(), i) != v.indices.end()) continue;
    v.values.push_back(value);
    v.indices.push_back(i);
  }
}

// NPB's vecset: set position i to val, appending it if absent. Guarantees every outer vector
// contains its own row, which is where the diagonal shift goes.
void set_element(SparseVector& v, int i, double val) {
  bool found = false;
  for (std::size_t k = 0; k < v.indices.size(); ++k) {
    if (v.indices[k] == i) {
      v.values[k] = val;
      found = true;
    }
  }
  if (!found) {
    v.values.push_back(val);
    v.indices.push_back(i);
  }
}

// The n outer vectors of makea, stored flat (vector i at i * stride, count[i] entries long)
// because the assembly visits them in random order and per-vector allocations would scatter
// them over the heap.
struct OuterVectors {
  std::size_t stride = 0;
  std::vector<double> values;
  std::vector<int> indices;
  std::vector<int> count;

  std::size_t size() const { return count.size(); }
  std::size_t begin(std::size_t i) const { return i * stride; }
  std::size_t end(std::size_t i) const { return i * stride + static_cast<std::size_t>(count[i]); }
};

// Consumes the random stream in NPB's order.
OuterVectors outer_vectors(const NpbClass& c) {
  NpbRandom random(npb_seed);
  random.next();  // NPB's main program: zeta = randlc(&tran, amult), before makea

  const auto na = static_cast<std::size_t>(c.na);
  OuterVectors out;
  out.stride = static_cast<std::size_t>(c.nonzer) + 1;  // + 1 for vecset's own row
  out.values.resize(na * out.stride);
  out.indices.resize(na * out.stride);
  out.count.resize(na);

  SparseVector v;
  v.values.reserve(out.stride);
  v.indices.reserve(out.stride);
  for (std::size_t i = 0; i < na; ++i) {
    random_sparse_vector(random, c.na, c.nonzer, v);
    set_element(v, static_cast<int>(i), 0.5);
    std::copy(v.values.begin(), v.values.end(), out.values.begin() + out.begin(i));
    std::copy(v.indices.begin(), v.indices.end(), out.indices.begin() + out.begin(i));
    out.count[i] = static_cast<int>(v.indices.size());
  }
  return out;
}

// For each result row, the outer vectors that contribute to it and the scale of their
// contribution (NPB's `scale = size * aelt[i][nza]`), in ascending outer-vector order: the
// order in which NPB's sparse() accumulates them.
struct RowContributions {
  std::vector<std::size_t> start;  // na + 1
  std::vector<int> vector_index;
  std::vector<double> scale;
};

RowContributions contributions_by_row(const OuterVectors& vectors,
                                      const std::vector<double>& size) {
  const std::size_t na = vectors.size();
  RowContributions rc;
  rc.start.assign(na + 1, 0);
  for (std::size_t i = 0; i < na; ++i) {
    for (std::size_t p = vectors.begin(i); p < vectors.end(i); ++p) {
      ++rc.start[static_cast<std::size_t>(vectors.indices[p]) + 1];
    }
  }
  for (std::size_t j = 0; j < na; ++j) rc.start[j + 1] += rc.start[j];

  rc.vector_index.resize(rc.start.back());
  rc.scale.resize(rc.start.back());
  std::vector<std::size_t> next(rc.start.begin(), rc.start.end() - 1);
  for (std::size_t i = 0; i < na; ++i) {
    for (std::size_t p = vectors.begin(i); p < vectors.end(i); ++p) {
      const std::size_t slot = next[static_cast<std::size_t>(vectors.indices[p])]++;
      rc.vector_index[slot] = static_cast<int>(i);
      rc.scale[slot] = size[i] * vectors.values[p];
    }
  }
  return rc;
}

// NPB's size: 1 for the first outer vector, times rcond^(1/n) after each, so that the
// generated part has a condition number near 1/rcond. Computed by the same running product.
std::vector<double> outer_scales(int na) {
  const double ratio = std::pow(npb_rcond, 1.0 / static_cast<double>(na));
  std::vector<double> size(static_cast<std::size_t>(na));
  double s = 1.0;
  for (double& out : size) {
    out = s;
    s = s * ratio;
  }
  return size;
}

}  // namespace

const NpbClass& npb_class(const std::string& name) {
  if (name.size() == 1) {
    for (const NpbClass& c : npb_classes) {
      if (c.name == name[0]) return c;
    }
  }
  throw InputError("unknown NPB CG class '" + name + "': valid classes are S, W, A, B, C");
}

CsrMatrix npb_makea(const NpbClass& c) {
  const OuterVectors vectors = outer_vectors(c);
  const RowContributions rc = contributions_by_row(vectors, outer_scales(c.na));
  const auto na = static_cast<std::size_t>(c.na);

  // Upper bound on the nonzeros: every outer product's entries, as if none coincided.
  std::size_t products = 0;
  for (int count : vectors.count) products += static_cast<std::size_t>(count) * count;

  CsrMatrix a;
  a.rows = c.na;
  a.cols = c.na;
  a.row_ptr.reserve(na + 1);
  a.row_ptr.push_back(0);
  a.col_idx.reserve(products);
  a.values.reserve(products);

  // Dense scratch row: the sums, whether a column was touched (an entry is kept even if its
  // sum is zero, as NPB 3.x does), and the touched columns.
  std::vector<double> sum(na, 0.0);
  std::vector<char> touched(na, 0);
  std::vector<int> columns;

  for (std::size_t j = 0; j < na; ++j) {
    columns.clear();
    for (std::size_t t = rc.start[j]; t < rc.start[j + 1]; ++t) {
      const auto i = static_cast<std::size_t>(rc.vector_index[t]);
      const double scale = rc.scale[t];
      for (std::size_t q = vectors.begin(i); q < vectors.end(i); ++q) {
        const auto col = static_cast<std::size_t>(vectors.indices[q]);
        double va = vectors.values[q] * scale;
        // NPB: `if (jcol == j && j == i) va = va + rcond - shift;` (left to right, as written)
        if (col == j && j == i) va = va + npb_rcond - c.shift;
        sum[col] = sum[col] + va;
        if (!touched[col]) {
          touched[col] = 1;
          columns.push_back(static_cast<int>(col));
        }
      }
    }
    std::sort(columns.begin(), columns.end());
    for (int col : columns) {
      const auto k = static_cast<std::size_t>(col);
      a.col_idx.push_back(col);
      a.values.push_back(sum[k]);
      sum[k] = 0.0;
      touched[k] = 0;
    }
    a.row_ptr.push_back(static_cast<std::int32_t>(a.col_idx.size()));
  }
  return a;
}

double npb_operations(const NpbClass& c) {
  const double nonzer = c.nonzer;
  const double per_row = nonzer * (nonzer + 1.0);
  return 2.0 * c.niter * c.na * (3.0 + per_row + 25.0 * (5.0 + per_row) + 3.0);
}

}  // namespace gpubench::cg
