// LU on the omp_target backend: the blocked LU's steps (kernels/lu/operations.cpp's algorithm, one
// queue, no look-ahead) as OpenMP target regions on the column-major matrix in device memory.
// getf2 factors a panel of at most leaf_max columns in one region of one team (GCC's default of 8
// OpenMP threads, warps: 32 were slower on the H100, 3.25 s against 2.46 s of panels at 8192): its
// threads find each column's pivot by a max then a min reduction, swap, scale and update the
// panel's columns, the team's barriers between the steps (one region per panel: a region costs
// GCC's runtime about 0.4 ms, and several per column would cost more than the panel's work); laswp,
// trsm's substitution and the trailing GEMM are `target teams distribute parallel for simd`
// regions (GCC's nvptx runs an OpenMP thread per warp, a simd lane per CUDA thread), the GEMM
// over tile x tile blocks of the update, GEMM's tiled kernel's tunable "tile", tuned for GEMM.
// The pivots stay on the device until the factors are read. Every region is synchronous: the
// host's clock around them is the device time. A factorization asked of a GPU whose panel ran on
// the host fails (omp_target::check_ran_where_asked).
//
// Clang's build takes another shape for the panel, the row swaps, the trsm and the GEMM: one team
// on one SM was 1071 ms of LU 8192's 2053 on the H200, and a region costs Clang's runtime about
// 30 us (an empty one, on the H200), not GCC's 0.4 ms. So on a GPU it runs CUDA's and OpenCL's
// kernels (kernels/lu/device.h's, in kernels/lu/omp_target_device.cpp): laswp a team per 32
// columns swapping in team memory (the lane per column below was 53.5 ms of LU 8192's 456.5 on
// the H200, CUDA's 6.1; now 10.1), and everywhere the trsm as CUDA's, the block's inverse then a
// GEMM (the substitution, a lane per column, uncoalesced, was 151.4 ms there, CUDA's 3.2; now
// 7.3: reports/data/h200-2026-12-03-late-issue57). Its getf2 is,
// on a GPU, the leaf CUDA and OpenCL run (lu_leaf): the panel's columns in one
// region whose teams, as many as the probe saw resident at once, hold their rows in team memory
// and meet once per column at a barrier in global memory. A leaf whose rows pass that memory is a
// region per column where it has 2048 rows or more (column_step: the previous column's scaling and
// update, fused with the search for this column's pivot; the last team to finish, told by a
// counter in device memory, combines the teams' candidates and swaps the rows, so no team waits
// for another), else one team's region. Its GEMM is GEMM's tuned kernel
// (kernels/gemm/omp_target_tuned.h), each thread a register block of the update, or in f64 on a
// GPU GEMM's tensor kernel (kernels/gemm/omp_target_tensor.h, the FP64 tensor cores), as the
// update's kernel list offers and the tuning chooses.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/omp_target/omp_target.hpp"
#include "bench/suite.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/omp_target_tuned.h"
#ifdef GPUBENCH_OMP_TARGET_CLANG
#include "kernels/gemm/omp_target_tensor.h"
#include "kernels/lu/omp_target_device.h"
#endif
#include "kernels/lu/operations.hpp"

namespace gpubench::lu {

namespace {

template <typename T>
class OmpTargetOperations final : public Operations {
 public:
  explicit OmpTargetOperations(const DeviceInfo& device) : device_(device), number_(omp_target::device_number(device)) {}

  void upload(const std::vector<double>& a, std::int64_t n) override {
    n_ = n;
    const std::vector<T> host(a.begin(), a.end());
    const std::size_t bytes = host.size() * sizeof(T);
    original_ = std::make_unique<omp_target::Buffer>(number_, bytes);
    original_->upload(host.data(), bytes);
    a_ = std::make_unique<omp_target::Buffer>(number_, bytes);
    ipiv_ = std::make_unique<omp_target::Buffer>(number_, static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * sizeof(int));
#ifdef GPUBENCH_OMP_TARGET_CLANG
    // column_step's candidates (a value and a row per thread of each team), its counter of teams
    // done and its flags, zeroed once: the last team puts the counter back to 0.
    max_teams_ = std::max(1, device_.compute_units);
    const std::size_t slots = static_cast<std::size_t>(max_teams_) * panel_threads;
    values_ = std::make_unique<omp_target::Buffer>(number_, slots * sizeof(T));
    rows_ = std::make_unique<omp_target::Buffer>(number_, slots * sizeof(std::int64_t));
    const std::vector<int> zero(static_cast<std::size_t>(max_teams_) + 2, 0);
    flags_ = std::make_unique<omp_target::Buffer>(number_, zero.size() * sizeof(int));
    flags_->upload(zero.data(), flags_->bytes());
    probe_leaf();
    if (leaf_.groups > 0 && !pvalue_) {  // (their sizes are the leaf's, not the matrix's)
      constexpr std::size_t g = omp_lu::group, cols = leaf_max;
      pvalue_ = std::make_unique<omp_target::Buffer>(number_, 2 * g * sizeof(T));
      prow_ = std::make_unique<omp_target::Buffer>(number_, 2 * g * sizeof(int));
      prows_ = std::make_unique<omp_target::Buffer>(number_, 2 * g * cols * sizeof(T));
      rowc_ = std::make_unique<omp_target::Buffer>(number_, 2 * cols * sizeof(T));
    }
#endif
    reset();
  }

  void reset() override {
    a_->copy_from(*original_);
    one_based_ = false;
    checked_ = false;
  }

  void read_factors(std::vector<double>& lu, std::vector<int>& ipiv) override {
    std::vector<T> host(static_cast<std::size_t>(n_ * n_));
    a_->download(host.data(), host.size() * sizeof(T));
    lu.assign(host.begin(), host.end());
    ipiv.assign(static_cast<std::size_t>(n_), 0);
    ipiv_->download(ipiv.data(), ipiv.size() * sizeof(int));
    if (!one_based_)
      for (auto& p : ipiv) ++p;
  }

  void start() override {
#ifdef GPUBENCH_OMP_TARGET_CLANG
    leaf_.in_one_launch = leaf_.by_columns = device_kernels_ = 0;
#endif
    one_team_ = 0;
    start_ = omp_get_wtime();
  }
  double stop() override {
    const double seconds = omp_get_wtime() - start_;
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (leaf_.in_one_launch + device_kernels_ > 0) check_device_kernels();
#endif
    return seconds;
  }

  // Which way the last run's panel leaves went.
  std::string panel() const override {
    std::string s;
#ifdef GPUBENCH_OMP_TARGET_CLANG
    const int all = leaf_.in_one_launch + leaf_.by_columns + one_team_;
    const auto part = [&](int count, const std::string& how) {
      if (count == 0) return;
      s += (s.empty() ? "" : "; ") + std::to_string(count) + " of " + std::to_string(all) + " leaves " + how;
    };
    part(leaf_.in_one_launch, "in one region of up to " + std::to_string(leaf_.groups) +
                                  " teams meeting at a barrier in global memory (resident at once as probed)");
    part(leaf_.by_columns, "by a region per column (" + by_columns_why() + ")");
    part(one_team_, "in one region of one team (fewer than " + std::to_string(column_step_rows) +
                        " rows, where the leaf does not fit: a region per column would cost more)");
#else
    if (one_team_ > 0) s = "every leaf in one region of one team";
#endif
    return s;
  }
  void mark(double* into) override {
    const double now = omp_get_wtime();
    if (into && marked_) *into += now - last_;
    last_ = now;
    marked_ = true;
  }
  void collect_marks() override { marked_ = false; }

  void configure(const BlockedConfig& c) override {
    config_ = c;
    const auto tile = c.gemm_params.find("tile");
    tile_ = tile == c.gemm_params.end() ? 32 : std::max<std::int64_t>(1, tile->second);
    tuned_ = gemm::omp_tuned::shape_of(c.gemm_params);
#ifdef GPUBENCH_OMP_TARGET_CLANG
    tensor_ = c.gemm_variant == "tensor";
    tensor_shape_ = gemm::omp_tensor::shape_of(c.gemm_params);
    // The trsm's inverse and work block (nb x nb, nb x n), the block zeroed as CUDA's is: GEMM's
    // kernels read C times beta = 0.
    const auto nb = static_cast<std::size_t>(std::clamp<std::int64_t>(c.nb, 1, std::max<std::int64_t>(n_, 1)));
    inverse_ = std::make_unique<omp_target::Buffer>(number_, nb * nb * sizeof(T));
    const std::vector<T> zero(nb * static_cast<std::size_t>(std::max<std::int64_t>(n_, 1)), T(0));
    work_ = std::make_unique<omp_target::Buffer>(number_, zero.size() * sizeof(T));
    work_->upload(zero.data(), work_->bytes());
#endif
  }

  // Clang: a region per column (column_step) where the panel has at least column_step_rows rows
  // on a GPU (on the initial device every panel, where CI tests it), the one team's region below:
  // on the H200 each of Clang's regions costs 30 us or more (an empty one:
  // reports/data/h200-2026-12-02-evening-issue57), so that LU 2048 took 186 ms with column steps
  // everywhere against 141 with one team, and LU 8192 464-1054 against 2053.
  void getf2(std::int64_t j, std::int64_t w) override {
    check_leaf(w);
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (leaf_.fits(n_ - j, w, sizeof(T))) return run_leaf(j, w);
    if (n_ - j >= (device_.type == "gpu" ? column_step_rows : 0)) {  // (on the host every panel: no launch to save)
      ++leaf_.by_columns;
      for (std::int64_t c = j; c <= j + w; ++c) column_step(j, w, c);
      if (!checked_) {
        int flags[2] = {0, 0};
        flags_->download(flags, sizeof flags);
        omp_target::check_ran_where_asked(device_, flags[1] != 0, "LU's panel region");
        checked_ = true;
      }
      return;
    }
#endif
    one_team(j, w);
  }

  // The panel [j, j + w) in one region of one team.
  void one_team(std::int64_t j, std::int64_t w) {
    ++one_team_;
    const std::int64_t n = n_;
    T* a = matrix();
    int* piv = pivots();
    const int dev = number_;
    int initial = 0;
#pragma omp target teams num_teams(1) device(dev) is_device_ptr(a, piv) map(tofrom : initial)
    {
      T best = 0;
      std::int64_t best_row = 0;
#pragma omp parallel
      for (std::int64_t c = j; c < j + w; ++c) {
        if (c == j && omp_get_thread_num() == 0) initial = omp_is_initial_device();
        // The pivot: the largest |a(r, c)|, the first row that has it.
#pragma omp single
        {
          best = 0;
          best_row = n;
        }
#pragma omp for simd reduction(max : best)
        for (std::int64_t r = c; r < n; ++r) {
          const T v = std::abs(a[r + c * n]);
          best = v > best ? v : best;  // (no std::max: no address taken in a simd loop)
        }
#pragma omp for simd reduction(min : best_row)
        for (std::int64_t r = c; r < n; ++r)
          if (std::abs(a[r + c * n]) == best && r < best_row) best_row = r;
#pragma omp single
        {
          const bool swap = best > T(0) && best_row != c;
          piv[c] = static_cast<int>(swap ? best_row : c);
          if (swap)
            for (std::int64_t k = j; k < j + w; ++k) std::swap(a[c + k * n], a[best_row + k * n]);
        }
        const T pivot = a[c + c * n];
        if (pivot != T(0)) {
#pragma omp for simd
          for (std::int64_t r = c + 1; r < n; ++r) {
            const T l = a[r + c * n] / pivot;
            a[r + c * n] = l;
            for (std::int64_t k = c + 1; k < j + w; ++k) a[r + k * n] -= l * a[c + k * n];
          }
        }
      }
    }
    if (!checked_) {
      omp_target::check_ran_where_asked(device_, initial != 0, "LU's panel region");
      checked_ = true;
    }
  }

  // Clang on a GPU: CUDA's and OpenCL's row swaps (device.h's lu_laswp, omp_target_device.h), a
  // team per 32 columns swapping 32 rows at a time in team memory; elsewhere a lane per column.
  void laswp(std::int64_t k0, std::int64_t k1, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1 || k0 >= k1) return;
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (device_.type == "gpu") {
      ++device_kernels_;
      return omp_lu::laswp(number_, matrix(), static_cast<int>(n_), pivots(), static_cast<int>(k0), static_cast<int>(k1),
                           static_cast<int>(c0), static_cast<int>(c1), status());
    }
#endif
    T* a = matrix();
    const int* piv = pivots();
    const std::int64_t n = n_;
    const int dev = number_;
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(a, piv)
    for (std::int64_t c = c0; c < c1; ++c)
      for (std::int64_t k = k0; k < k1; ++k) {
        const std::int64_t p = piv[k];
        if (p != k) {
          const T t = a[k + c * n];
          a[k + c * n] = a[p + c * n];
          a[p + c * n] = t;
        }
      }
  }

  // L X = B (L the unit lower w x w block at (j, j), B rows j .. j + w of columns c0 .. c1). Clang:
  // as kernels/lu/cuda.cu's, L^-1 (by_inverse's trtri), X = L^-1 B by GEMM's kernel into a work
  // block, and the block copied back: three regions. GCC: in halves down to 32 rows, the lower
  // half's rows updated from the upper's solution by the GEMM (its regions cost 0.4 ms each).
  void trsm(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1 || w <= 0) return;
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (w <= omp_lu::trtri_max) return by_inverse(j, w, c0, c1);
#endif
    if (w <= 32) return solve(j, w, c0, c1);
    const std::int64_t upper = w / 2;
    trsm(j, upper, c0, c1);
    gemm(j + upper, j + w, c0, c1, j, j + upper);
    trsm(j + upper, w - upper, c0, c1);
  }

  // A[r0:r1, c0:c1] -= A[r0:r1, k0:k1] A[k0:k1, c0:c1]: teams over tile x tile blocks, a block's
  // threads over its columns and their simd lanes over a column's rows (the column-major matrix's
  // contiguous direction; a collapsed simd loop runs lane by lane on GCC's nvptx).
  void gemm(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, std::int64_t k0,
            std::int64_t k1) override {
    if (r0 >= r1 || c0 >= c1 || k0 >= k1) return;
    T* a = matrix();
#ifdef GPUBENCH_OMP_TARGET_CLANG
    const std::int64_t ld = n_;
    return multiply(r1 - r0, c1 - c0, k1 - k0, T(-1), a + r0 + k0 * ld, ld, a + k0 + c0 * ld, ld, T(1),
                    a + r0 + c0 * ld, ld);
#endif
    const std::int64_t n = n_, tile = tile_;
    const std::int64_t tiles_r = (r1 - r0 + tile - 1) / tile, tiles_c = (c1 - c0 + tile - 1) / tile;
    const int dev = number_;
#pragma omp target teams distribute collapse(2) device(dev) is_device_ptr(a)
    for (std::int64_t tc = 0; tc < tiles_c; ++tc)
      for (std::int64_t tr = 0; tr < tiles_r; ++tr) {
        const std::int64_t cs = c0 + tc * tile, rs = r0 + tr * tile;
        const std::int64_t ce = std::min(cs + tile, c1), re = std::min(rs + tile, r1);
#pragma omp parallel for
        for (std::int64_t c = cs; c < ce; ++c)
#pragma omp simd
          for (std::int64_t r = rs; r < re; ++r) {
            T acc = 0;
            for (std::int64_t k = k0; k < k1; ++k) acc += a[r + k * n] * a[k + c * n];
            a[r + c * n] -= acc;
          }
      }
  }

  nlohmann::json gap_causes() const override {
    nlohmann::json causes = nlohmann::json::array();
    if (device_.type != "gpu") return causes;
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (probed_ && leaf_.groups == 0)
      causes.push_back(gap_cause("api", "the panel's leaves by a region per column (one team's region below " +
                                            std::to_string(column_step_rows) + " rows): OpenMP does not promise that a "
                                            "region's teams run at once (" + leaf_why_ + "), where CUDA's leaf meets "
                                            "at a grid barrier of a cooperative launch"));
    else if (leaf_.by_columns + one_team_ > 0)
      causes.push_back(gap_cause("compiler", std::to_string(leaf_.by_columns + one_team_) + " of the last run's " +
                                                 std::to_string(leaf_.in_one_launch + leaf_.by_columns + one_team_) +
                                                 " panel leaves without the one-region leaf: their slabs pass the " +
                                                 std::to_string(omp_lu::slab_bytes) + " bytes of team memory a team "
                                                 "holds (LLVM 19's CUDA plugin never raises a kernel's shared memory "
                                                 "past the static 48 KB), where CUDA's leaf takes up to the opt-in "
                                                 "shared memory"));
    causes.push_back(gap_cause("compiler", "every LU step a region of its own, each costing Clang 19's runtime 30 us or "
                                           "more on the H200 (an empty one)"));
#else
    causes.push_back(gap_cause("compiler", "the panel in one region of one team, on one SM: at GCC 12's 0.4 ms a "
                                           "region, a region per column would cost more"));
#endif
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (tensor_)
      causes.push_back(gap_cause("compiler", std::string("the trailing updates' GEMM: ") + gemm::omp_tensor::team_memory_gap));
    else
      causes.push_back(gap_cause("gpubench", "the trailing updates' GEMM on the FMA units (GEMM's tuned kernel; "
                                             "the tensor kernel runs f64 only)"));
#else
    causes.push_back(gap_cause("compiler", std::string("the trailing updates' GEMM: ") + gemm::omp_tuned::no_tensor_path));
#endif
    if (const std::string g = omp_target::compiler_gap(device_); !g.empty()) causes.push_back(gap_cause("compiler", g));
    return causes;
  }

  void vendor() override { throw DeviceError("OpenMP target offload has no LU library of its own"); }

  StudyRun study(Variant v, StepTimes*, double) override {
    throw DeviceError("the study's form " + to_string(v) + " is an OpenCL and CUDA form: not on omp_target");
  }

 private:
#ifdef GPUBENCH_OMP_TARGET_CLANG
  static constexpr int panel_threads = 256;
  static constexpr std::int64_t column_step_rows = 2048;

  // One region of the panel [j, j + w): for c > j, column c - 1 scaled by its pivot and the
  // panel's columns right of it updated (rows c ..); for c < j + w, column c's pivot found over
  // the same rows, row c and the pivot's row swapped across the panel, ipiv[c] set. Each thread
  // keeps its rows' best candidate (the largest |a(r, c)|, the first row that has it), each team
  // combines its threads' in a tree over device memory, and the last team to finish (the counter
  // flags[0]) combines the teams' and swaps: it starts only after every other team's rows are
  // written, so no team waits for another. flags[1]: whether the region ran on the initial device;
  // flags[2 + team]: whether the team was the last.
  void column_step(std::int64_t j, std::int64_t w, std::int64_t c) {
    T* a = matrix();
    int* piv = pivots();
    T* values = static_cast<T*>(values_->data());
    std::int64_t* rows = static_cast<std::int64_t*>(rows_->data());
    int* flags = static_cast<int*>(flags_->data());
    const std::int64_t n = n_, end = j + w, u = c - 1;
    const bool update = c > j, search = c < end;
    const int stride = panel_threads;
    const int teams = static_cast<int>(std::clamp<std::int64_t>((n - c + stride - 1) / stride, 1, max_teams_));
    const int dev = number_;
#pragma omp target teams num_teams(teams) thread_limit(stride) device(dev) is_device_ptr(a, piv, values, rows, flags)
#pragma omp parallel num_threads(stride)
    {
      const int nteams = omp_get_num_teams(), team = omp_get_team_num();
      const int nt = omp_get_num_threads(), t = omp_get_thread_num();
      if (team == 0 && t == 0) flags[1] = omp_is_initial_device();
      const T pivot = update ? a[u + u * n] : T(1);
      T best = -1;
      std::int64_t best_row = n;
      for (std::int64_t r = c + std::int64_t(team) * nt + t; r < n; r += std::int64_t(nteams) * nt) {
        if (update && pivot != T(0)) {
          const T l = a[r + u * n] / pivot;
          a[r + u * n] = l;
          for (std::int64_t k = c; k < end; ++k) a[r + k * n] -= l * a[u + k * n];
        }
        if (search) {
          const T v = std::abs(a[r + c * n]);
          if (v > best) {  // a thread's rows ascend: the first of equal ones stays
            best = v;
            best_row = r;
          }
        }
      }
      if (search) {
        T* tv = values + std::int64_t(team) * stride;
        std::int64_t* tr = rows + std::int64_t(team) * stride;
        const auto better = [](T v, std::int64_t r, T than, std::int64_t than_row) {
          return v > than || (v == than && r < than_row);
        };
        // The team's best into its slot 0 (a tree; nt need not be a power of two).
        tv[t] = best;
        tr[t] = best_row;
        for (int s = 1; s < nt; s *= 2) {
#pragma omp barrier
          if (t % (2 * s) == 0 && t + s < nt && better(tv[t + s], tr[t + s], tv[t], tr[t])) {
            tv[t] = tv[t + s];
            tr[t] = tr[t + s];
          }
        }
#pragma omp flush
#pragma omp barrier
        if (t == 0) {
          int done = 0;
#pragma omp atomic capture seq_cst
          done = flags[0]++;
          flags[2 + team] = done == nteams - 1;
        }
#pragma omp barrier
#pragma omp flush
        if (flags[2 + team]) {  // the last team: every team's best, then the swap
          T v = -1;
          std::int64_t row = n;
          for (int q = t; q < nteams; q += nt)
            if (better(values[std::int64_t(q) * stride], rows[std::int64_t(q) * stride], v, row)) {
              v = values[std::int64_t(q) * stride];
              row = rows[std::int64_t(q) * stride];
            }
#pragma omp barrier
          tv[t] = v;
          tr[t] = row;
          for (int s = 1; s < nt; s *= 2) {
#pragma omp barrier
            if (t % (2 * s) == 0 && t + s < nt && better(tv[t + s], tr[t + s], tv[t], tr[t])) {
              tv[t] = tv[t + s];
              tr[t] = tr[t + s];
            }
          }
#pragma omp barrier
          const bool swap = tv[0] > T(0) && tr[0] != c;
          const std::int64_t p = swap ? tr[0] : c;
          for (std::int64_t k = j + t; k < end; k += nt) {
            const T x = a[c + k * n];
            a[c + k * n] = a[p + k * n];
            a[p + k * n] = x;
          }
          if (t == 0) {
            piv[c] = static_cast<int>(p);
            flags[0] = 0;
            flags[2 + team] = 0;
          }
        }
      }
    }
  }

  // The leaf (kernels/lu/omp_target_leaf.h) where as many teams as the GPU has SMs (at most 256),
  // each with its team memory, met at the probe. Otherwise leaf_why_ says why not.
  void probe_leaf() {
    if (probed_) return;
    probed_ = true;
    if (device_.type != "gpu") {
      leaf_why_ = "on the host a league's teams get no more threads between them than it has cores, not " +
                  std::to_string(omp_lu::group) + " each";
      return;
    }
    const int groups = std::clamp(device_.compute_units, 1, omp_lu::group);
    word_ = std::make_unique<omp_target::Buffer>(number_, sizeof(unsigned));
    status_ = std::make_unique<omp_target::Buffer>(number_, 2 * sizeof(int));
    reset_leaf_words();
    omp_lu::meet(number_, groups, word(), status());
    const auto st = leaf_status();
    omp_target::check_ran_where_asked(device_, st[1] != 0, "LU's panel leaf (its probe)");
    if (st[0] != 0) {
      reset_leaf_words();
      leaf_why_ = st[0] == 1 ? std::to_string(groups) + " teams with the leaf's team memory were not all resident at "
                                   "once when probed"
                             : "the runtime ran the probe's teams with other than " +
                                   std::to_string(omp_lu::group) + " threads each";
      return;
    }
    leaf_.groups = groups;
    leaf_.bytes = omp_lu::slab_bytes;
  }

  // Columns [j, j + w) in one region: a team per `slab` rows.
  void run_leaf(std::int64_t j, std::int64_t w) {
    const std::int64_t rows = n_ - j, slab = leaf_.slab(rows);
    omp_lu::leaf(number_, matrix(), static_cast<int>(n_), static_cast<int>(j), static_cast<int>(w),
                   static_cast<int>(slab), static_cast<int>((rows + slab - 1) / slab), static_cast<T*>(pvalue_->data()),
                   static_cast<int*>(prow_->data()), static_cast<T*>(prows_->data()), static_cast<T*>(rowc_->data()),
                   pivots(), word(), status());
    ++leaf_.in_one_launch;
    if (!checked_) {
      omp_target::check_ran_where_asked(device_, leaf_status()[1] != 0, "LU's panel leaf");
      checked_ = true;
    }
  }

  // After a run with device.h's kernels: none of the leaf's teams gave up waiting at the barrier,
  // and every team of theirs had its threads (else the run's factors are not the factorisation: a
  // DeviceError says why, and the words start over).
  void check_device_kernels() {
    const auto st = leaf_status();
    if (st[0] == 0) return;
    reset_leaf_words();
    if (st[0] == 1)
      throw DeviceError("the LU panel's leaf (" + std::to_string(leaf_.groups) + " teams meeting at a barrier in "
                        "global memory) waited in vain: its teams were not all resident at once (another program on "
                        "the device?); the run's factors are discarded");
    throw DeviceError("LU's device kernels (the panel's leaf, the row swaps, the trsm's inverse) ran with other than " +
                      std::to_string(omp_lu::group) + " threads a team, and left their work undone; the run's factors "
                      "are discarded");
  }
  // The leaf's status (omp_target_leaf.h): [0] whether a region gave up or refused, [1] whether
  // it ran on the initial device.
  std::array<int, 2> leaf_status() const {
    std::array<int, 2> st{};
    status_->download(st.data(), sizeof st);
    return st;
  }
  void reset_leaf_words() {
    const unsigned zero_word = 0;
    const int zero_status[2] = {0, 0};
    word_->upload(&zero_word, sizeof zero_word);
    status_->upload(zero_status, sizeof zero_status);
  }
  std::string by_columns_why() const {
    if (leaf_.groups == 0) return leaf_why_;
    return "their slabs pass the " + std::to_string(leaf_.bytes) + " bytes of team memory the leaf's teams hold";
  }
  // The trsm as CUDA's: inverse_ = L(j:j+w, j:j+w)^-1 (device.h's lu_trtri on a GPU, a lane per
  // column on the host), work_ = inverse_ B by GEMM's kernel (tensor or tuned, as the updates'),
  // and work_ copied back into B's rows.
  void by_inverse(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) {
    const std::int64_t n = n_, cols = c1 - c0;
    if (!inverse_ || inverse_->bytes() < static_cast<std::size_t>(w * w) * sizeof(T) ||
        work_->bytes() < static_cast<std::size_t>(w * cols) * sizeof(T))
      throw DeviceError("LU's trsm on omp_target: a block of " + std::to_string(w) + " x " + std::to_string(cols) +
                        " passes the work memory configure() sized for nb = " + std::to_string(config_.nb));
    T* a = matrix();
    T* inv = static_cast<T*>(inverse_->data());
    T* work = static_cast<T*>(work_->data());
    const int dev = number_;
    if (device_.type == "gpu") {
      ++device_kernels_;
      omp_lu::trtri(dev, a, static_cast<int>(n), static_cast<int>(j), static_cast<int>(w), inv, status());
    } else {
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, inv)
      for (std::int64_t col = 0; col < w; ++col) {
        T* x = inv + col * w;
        for (std::int64_t r = 0; r < w; ++r) x[r] = r == col ? T(1) : T(0);
        for (std::int64_t k = col; k + 1 < w; ++k) {
          const T xk = x[k];
          const T* l = a + j + (j + k) * n;
          for (std::int64_t r = k + 1; r < w; ++r) x[r] -= l[r] * xk;
        }
      }
    }
    multiply(w, cols, w, T(1), inv, w, a + j + c0 * n, n, T(0), work, w);
    copy_back(work, j, w, c0, cols);
  }
  // C = alpha A B + beta C (m x cols, column-major) by GEMM's kernel the updates take: tensor (f64
  // on a GPU, where the tuning chose it) or tuned.
  void multiply(std::int64_t m, std::int64_t cols, std::int64_t k, T alpha, const T* a, std::int64_t lda, const T* b,
                std::int64_t ldb, T beta, T* c, std::int64_t ldc) {
    if constexpr (std::is_same_v<T, double>)
      if (tensor_)
        return gemm::omp_tensor::dispatch(number_, tensor_shape_, m, cols, k, alpha, a, lda, b, ldb, false, beta, c,
                                          ldc, nullptr);
    gemm::omp_tuned::dispatch<T>(number_, tuned_, m, cols, k, alpha, a, lda, b, ldb, false, beta, c, ldc);
  }
  // B's rows [j, j + w) of columns [c0, c0 + cols) from the w x cols block `work`.
  void copy_back(const T* work, std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t cols) {
    T* a = matrix();
    const std::int64_t n = n_;
    const int dev = number_;
#pragma omp target teams distribute parallel for collapse(2) device(dev) is_device_ptr(a, work)
    for (std::int64_t c = 0; c < cols; ++c)
      for (std::int64_t r = 0; r < w; ++r) a[j + r + (c0 + c) * n] = work[r + c * w];
  }
  unsigned* word() { return static_cast<unsigned*>(word_->data()); }
  int* status() { return static_cast<int*>(status_->data()); }

  int max_teams_ = 1;
  std::unique_ptr<omp_target::Buffer> values_, rows_, flags_;
  Leaf leaf_;  // the leaf: its teams (0: none here) and their slabs' bytes; the last run's counts
  bool probed_ = false;
  std::string leaf_why_;
  std::unique_ptr<omp_target::Buffer> pvalue_, prow_, prows_, rowc_, word_, status_;
  std::unique_ptr<omp_target::Buffer> inverse_, work_;  // the trsm's (configure() sizes them)
  int device_kernels_ = 0;  // the last run's regions of device.h's row swaps and inverse
#endif
  int one_team_ = 0;  // the last run's leaves in one region of one team

  // Forward substitution, one column of B per lane.
  void solve(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) {
    T* a = matrix();
    const std::int64_t n = n_;
    const int dev = number_;
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(a)
    for (std::int64_t c = c0; c < c1; ++c) {
      T* x = a + j + c * n;
      for (std::int64_t k = 0; k < w; ++k) {
        const T xk = x[k];
        const T* l = a + j + (j + k) * n;
        for (std::int64_t r = k + 1; r < w; ++r) x[r] -= l[r] * xk;
      }
    }
  }

  T* matrix() { return static_cast<T*>(a_->data()); }
  int* pivots() { return static_cast<int*>(ipiv_->data()); }

  DeviceInfo device_;
  int number_;
  std::int64_t n_ = 0;
  std::unique_ptr<omp_target::Buffer> original_, a_, ipiv_;
  bool one_based_ = false;
  bool checked_ = false;  // whether this factorization's first panel said where it ran
  BlockedConfig config_;
  std::int64_t tile_ = 32;
  gemm::omp_tuned::Shape tuned_;
#ifdef GPUBENCH_OMP_TARGET_CLANG
  bool tensor_ = false;  // the updates on GEMM's tensor kernel (f64 on a GPU)
  gemm::omp_tensor::Shape tensor_shape_;
#endif
  double start_ = 0, last_ = 0;
  bool marked_ = false;
};

}  // namespace

}  // namespace gpubench::lu

GPUBENCH_REGISTER_LU_OPERATIONS(
    gpubench::omp_target::backend_name,
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) -> std::unique_ptr<gpubench::lu::Operations> {
      if (p == gpubench::Precision::f32) return std::make_unique<gpubench::lu::OmpTargetOperations<float>>(d);
      return std::make_unique<gpubench::lu::OmpTargetOperations<double>>(d);
    },
    gpubench::lu::BackendTraits{"",
                                {gpubench::lu::Variant::blocked},
                                true,
#ifdef GPUBENCH_OMP_TARGET_CLANG
                                // GEMM's tensor kernel (FP64 mma.sync through inline PTX) where there are tensor cores.
                                [](const gpubench::DeviceInfo& d, gpubench::Precision p) {
                                  if (p == gpubench::Precision::f64 && d.type == "gpu")
                                    return std::vector<std::string>{"tensor", "tuned"};
                                  return std::vector<std::string>{"tuned"};
                                },
#else
                                [](const gpubench::DeviceInfo&, gpubench::Precision) { return std::vector<std::string>{"tiled"}; },
#endif
                                false,
                                "OpenMP target offload has no LU library of its own"});
