// FT on the omp_target backend: NAS's algorithm (variant nas) with its 1-D FFTs in OpenMP target
// regions, as openmp.cpp runs it on the host's threads: the lines of an axis in blocks of 16
// (NAS's fftblock), `target teams distribute` over the blocks, each team gathering its block into
// [element][line] scratch in device memory (its lanes along the field's contiguous direction),
// transforming it with NAS's radix-2 Stockham passes (each pass a `for simd` over the block's
// butterflies, the team's barrier between passes) and scattering it back. evolve and the checksum are regions of their own (the checksum's 1024
// points in a reduction). NAS's setup (evolve factors, initial conditions, the roots) is computed
// on the host and uploaded, inside the timed region, as the study's GPU forms do. Complex values
// are pairs of doubles on the device (no complex arithmetic in the device code). Every region is
// synchronous: the host's clock around each function is its time. A run asked of a GPU whose
// regions ran on the host fails (omp_target::check_ran_where_asked).
//
// Clang's build also runs fast on a GPU: CUDA's and OpenCL's sequence (gpu.cpp's run_on_gpu) over
// FastSteps, whose transforms are CUDA's kernel (kernels/ft/device.h's ft_fast_lines, in
// omp_target_device.cpp's image), each group's lines in team memory. On the H200, FT B: 40.5 ms
// against nas's 413.7 and CUDA's fast 23.4 (reports/data/h200-2026-12-03-late-issue57).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "backends/omp_target/omp_target.hpp"
#include "bench/suite.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "common/out_of_memory.hpp"
#include "kernels/ft/operations.hpp"
#ifdef GPUBENCH_OMP_TARGET_CLANG
#include "kernels/ft/gpu.hpp"
#include "kernels/ft/omp_target_device.h"
#endif

namespace gpubench::ft {

namespace {

constexpr std::int64_t block = 16;  // lines per block, NAS's fftblock

// The host's share: the field and the factors, computed there for the upload.
std::uint64_t omp_target_host_bytes(const FtClass& c, Variant v) {
  if (v == Variant::fast) return 0;  // (its tables: a few KiB)
  return static_cast<std::uint64_t>(c.total()) * (sizeof(Complex) + sizeof(double));
}

// roots[p] = exp(-2 pi i p / n), p < n/2, as pairs.
std::vector<double> roots_of(int n) {
  std::vector<double> w(static_cast<std::size_t>(2 * std::max(n / 2, 1)));
  for (int p = 0; p < n / 2; ++p) {
    const double t = -2 * std::numbers::pi * p / n;
    w[static_cast<std::size_t>(2 * p)] = std::cos(t);
    w[static_cast<std::size_t>(2 * p + 1)] = std::sin(t);
  }
  return w;
}

double now() { return omp_get_wtime(); }
void lap(double& into, double& mark) {
  const double n = now();
  into += n - mark;
  mark = n;
}

// NAS's checksum of field u: 1024 points, divided by the points of the grid.
Complex checksum_of(int dev, const double* u, const FtClass& c) {
  const std::int64_t nx = c.nx, ny = c.ny, nz = c.nz;
  double re = 0, im = 0;
  // 1024 points: one team (a reduction across teams costs more than the points).
#pragma omp target teams distribute parallel for simd device(dev) num_teams(1) is_device_ptr(u) reduction(+ : re, im)
  for (std::int64_t j = 1; j <= 1024; ++j) {
    const std::int64_t q = j % nx, r = (3 * j) % ny, s = (5 * j) % nz;
    const std::int64_t at = 2 * ((s * ny + r) * nx + q);
    re += u[at];
    im += u[at + 1];
  }
  return Complex(re, im) / static_cast<double>(c.total());
}

#ifdef GPUBENCH_OMP_TARGET_CLANG
// fast on Clang's offload: gpu.hpp's steps for run_on_gpu (the sequence CUDA and OpenCL run),
// the transforms and the checksum CUDA's kernels (omp_target_device.h), the checksums kept on the
// device until the end, as CUDA's are (a reduction region, whose sum comes back to the host at
// each call, took 71 us a call on the H200 against CUDA's 6.4). Every region is synchronous: the
// host's clock between marks is the device time.
class FastSteps final : public GpuSteps {
 public:
  FastSteps(const DeviceInfo& device, int number, const FtClass& c, const Shapes& shapes)
      : device_(device), number_(number), c_(c), shapes_(shapes) {
    const auto n = static_cast<std::size_t>(c.total());
    u0_ = std::make_unique<omp_target::Buffer>(number_, n * sizeof(Complex));
    u1_ = std::make_unique<omp_target::Buffer>(number_, n * sizeof(Complex));
    status_ = std::make_unique<omp_target::Buffer>(number_, sizeof status_words_);
    status_->upload(status_words_, sizeof status_words_);
    sums_ = std::make_unique<omp_target::Buffer>(number_, static_cast<std::size_t>(c.niter) * sizeof(Complex));
  }

  void finish() override {}
  void mark(double* into) override {
    const double t = now();
    if (into && marked_) *into += t - last_;
    last_ = t;
    marked_ = true;
  }
  void collect_marks() override {
    marked_ = false;
    int st[4] = {};
    status_->download(st, sizeof st);
    status_->upload(status_words_, sizeof status_words_);
    omp_target::check_ran_where_asked(device_, st[1] != 0, "FT's fast run");
    if (st[0] != 0)
      throw DeviceError("FT's fast transform on " + device_.label() + " ran with " + std::to_string(st[2]) +
                        " threads in a team (team " + std::to_string(st[3]) + "), not its lines x n / radix, and "
                        "transformed nothing there; the run is discarded");
  }

  // (Allocated at the first run's setup, then only written, as CUDA's are.)
  void upload_roots(int axis, const Complex* roots, int n) override {
    put(roots_[axis], roots, static_cast<std::size_t>(n) * sizeof(Complex));
  }
  void upload_axis_factors(const double* tables, std::size_t count) override { put(axes_, tables, count * sizeof(double)); }
  // The study's and the vendor's steps: fast runs none of them.
  void upload_field(const Complex*) override { refuse("the study's field"); }
  void upload_factors(const double*) override { refuse("the study's factors"); }
  void copy(Field, Field) override { refuse("copy"); }
  void fft_line_per_item(Field, Field, int, int, bool) override { refuse("v1's transform"); }
  void rotate(Field, Field, int, bool) override { refuse("v2's rotation"); }
  void evolve() override { refuse("the study's evolve"); }
  void evolve_to(int) override { refuse("the vendor's evolve"); }
  void generate(Field) override { refuse("the vendor's initial conditions"); }
  void fft_library(Field, int) override { refuse("an FFT library"); }

  // As cuda.cu's: x lines (k, j) at g nx; y lines (k, i) at (g % nx) + (g / nx) nx ny, nx apart;
  // z lines (j, i) at g, nx ny apart.
  void fft_batched(Field src, Field dst, int axis, int sign, FirstPass first, int t) override {
    const AxisShape& s = shapes_[axis];
    const std::int64_t nx = c_.nx, ny = c_.ny;
    const int n = axis == 0 ? c_.nx : axis == 1 ? c_.ny : c_.nz;
    omp_fast::Lines g{n, s.lines, axis != 0 ? 1 : 0, 0, 0, 0, 0};
    if (axis == 0) g.count_a = static_cast<int>(c_.total() / nx), g.elem_stride = 1, g.stride_a = nx;
    if (axis == 1) g.count_a = static_cast<int>(nx), g.elem_stride = nx, g.stride_a = 1, g.stride_b = nx * ny;
    if (axis == 2) g.count_a = static_cast<int>(nx * ny), g.elem_stride = nx * ny, g.stride_a = 1;
    const omp_fast::First f{static_cast<int>(first), c_.nx, c_.ny, seed, multiplier};
    const double* axes = static_cast<const double*>(axes_->data()) +
                         (t > 0 ? static_cast<std::size_t>(t - 1) * (c_.nx + c_.ny + c_.nz) : 0);
    omp_fast::fast(number_, field(src), field(dst), static_cast<const double*>(roots_[axis]->data()), g, f, axes, sign,
                   s.radix, static_cast<int>(c_.total() / n / s.lines), static_cast<int*>(status_->data()));
  }
  void checksum(Field f, int iteration) override {
    omp_fast::checksum(number_, field(f), static_cast<double*>(sums_->data()), iteration, c_.nx, c_.ny, c_.nz,
                       static_cast<int*>(status_->data()));
  }
  void read_sums(Complex* sums, int count) override {
    sums_->download(sums, static_cast<std::size_t>(count) * sizeof(Complex));
  }

 private:
  [[noreturn]] void refuse(const std::string& what) const {
    throw DeviceError(std::string(omp_target::backend_name) + " runs FT's fast variant only: not " + what);
  }
  void put(std::unique_ptr<omp_target::Buffer>& b, const void* host, std::size_t bytes) {
    if (!b || b->bytes() != bytes) b = std::make_unique<omp_target::Buffer>(number_, bytes);
    b->upload(host, bytes);
  }
  double* field(Field f) const {
    if (f == Field::third) refuse("a third field");
    return static_cast<double*>((f == Field::u0 ? u0_ : u1_)->data());
  }

  DeviceInfo device_;
  int number_;
  const FtClass& c_;
  Shapes shapes_;
  std::unique_ptr<omp_target::Buffer> u0_, u1_, status_, sums_, axes_, roots_[3];
  static constexpr int status_words_[4] = {0, 0, 0, 0};  // (omp_target_device.h's status)
  double last_ = 0;
  bool marked_ = false;
};
#endif

class OmpTargetOperations final : public Operations {
 public:
  explicit OmpTargetOperations(const DeviceInfo& device) : device_(device), number_(omp_target::device_number(device)) {}

  nlohmann::json gap_causes() const override {
    nlohmann::json causes = nlohmann::json::array();
    if (device_.type != "gpu") return causes;
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (variant_ == Variant::nas)
      causes.push_back(gap_cause("gpubench", "NAS's algorithm (its cffts line loops through device memory); fast, "
                                             "CUDA's and OpenCL's batched FFTs in team memory, runs here too"));
    else
      causes.push_back(gap_cause("compiler", "CUDA's fast kernels (kernels/ft/device.h) at this device's own swept "
                                             "shapes (ncu on the H200, class B: the radix-16 y and z passes 301 and "
                                             "321 us against CUDA's 267 and 297, 174 registers against 160), each "
                                             "transform a target region that Clang 19's runtime launches and then "
                                             "waits for (with libomptarget's blocking wait about 200 us a region "
                                             "outside the kernel on four H200s, cffts1 525 us a call against CUDA's "
                                             "364; with CUDA's default scheduling, which this backend sets, class B "
                                             "on the H100: cffts1 443 us a call at the heuristic's radix-8 shapes "
                                             "against CUDA's 395 at its swept radix-16, reports/data/"
                                             "h100-2026-12-07-issue57; CUDA queues its launches), the "
                                             "tile in team memory reached by generic loads (its address hidden from "
                                             "LLVM 19: team_memory.h's held()), and tiles at most " +
                                                 std::to_string(omp_fast::tile_bytes) +
                                                 " bytes of team memory (LLVM 19's CUDA plugin never raises a kernel's "
                                                 "shared memory past the static 48 KB), where CUDA's take up to the "
                                                 "opt-in shared memory (reports/data/h200-2026-12-04-issue57, "
                                                 "h200-2026-12-04-late-issue57)"));
#else
    causes.push_back(gap_cause("gpubench", "only NAS's algorithm (its cffts line loops) is written for GCC's OpenMP "
                                           "offload: no fast variant (CUDA's, OpenCL's and Clang's run "
                                           "kernels/ft/device.h's batched FFTs)"));
#endif
    if (const std::string g = omp_target::compiler_gap(device_); !g.empty()) causes.push_back(gap_cause("compiler", g));
    return causes;
  }

  void prepare(const FtClass& c, Variant v, const RunChoices& choices) override {
    variant_ = v;
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (v == Variant::fast) {
      c_ = &c;
      u0_.reset(), u1_.reset(), scratch_.reset(), factors_.reset(), fast_.reset();  // a sweep's next shape: freed first
      const std::uint64_t need = static_cast<std::uint64_t>(c.total()) * 2 * sizeof(Complex);
      if (device_.global_mem_bytes > 0 && need > device_.global_mem_bytes)
        throw OutOfMemoryError(device_.label(), "FT class " + std::string(1, c.name) + " needs " + std::to_string(need) +
                                                    " bytes there (two fields)");
      fast_ = std::make_unique<FastSteps>(device_, number_, c, choices.shapes);
      return;
    }
#else
    (void)choices;
#endif
    if (v != Variant::nas) throw DeviceError(std::string(omp_target::backend_name) + " runs FT's NAS algorithm (nas), not " + to_string(v));
    c_ = &c;
    check_host_memory(omp_target_host_bytes(c, v), "FT class " + std::string(1, c.name));
    const auto n = static_cast<std::size_t>(c.total());
    const std::uint64_t need = n * (4 * sizeof(Complex) + sizeof(double));
    if (device_.global_mem_bytes > 0 && need > device_.global_mem_bytes)
      throw OutOfMemoryError(device_.label(), "FT class " + std::string(1, c.name) + " needs " + std::to_string(need) +
                                                  " bytes there (two fields, the blocks' scratch, the factors)");
    u0_ = std::make_unique<omp_target::Buffer>(number_, n * sizeof(Complex));
    u1_ = std::make_unique<omp_target::Buffer>(number_, n * sizeof(Complex));
    scratch_ = std::make_unique<omp_target::Buffer>(number_, 2 * n * sizeof(Complex));
    factors_ = std::make_unique<omp_target::Buffer>(number_, n * sizeof(double));
    for (int axis = 0; axis < 3; ++axis) {
      const int len = axis == 0 ? c.nx : axis == 1 ? c.ny : c.nz;
      roots_[axis] = std::make_unique<omp_target::Buffer>(number_, static_cast<std::size_t>(std::max(len / 2, 1)) * sizeof(Complex));
    }
    field_.assign(n, Complex());
    twiddle_.assign(n, 0.0);
  }

  RunResult run(Variant v) override {
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (v == Variant::fast) return run_on_gpu(*fast_, *c_, v);
#else
    (void)v;
#endif
    const FtClass& c = *c_;
    RunResult r;
    FunctionTimes& t = r.times;
    initial_ = 0;
    const double start = now();
    double mark = start;
    // Setup, timed as NAS times it: on the host, then to the device.
    evolve_factors(c, twiddle_.data());
    if (planted_wrong_twiddle()) twiddle_[0] *= 1 - 1e-9;
    initial_conditions(c, field_.data());
    u1_->upload(field_.data(), u1_->bytes());
    factors_->upload(twiddle_.data(), factors_->bytes());
    for (int axis = 0; axis < 3; ++axis) {
      const std::vector<double> w = roots_of(axis == 0 ? c.nx : axis == 1 ? c.ny : c.nz);
      roots_[axis]->upload(w.data(), w.size() * sizeof(double));
    }
    lap(t.setup, mark);
    // Forward: u0 = FFT(u1).
    u0_->copy_from(*u1_);
    fft3d(field(*u0_), -1, t, mark);
    for (int iter = 0; iter < c.niter; ++iter) {
      evolve();
      lap(t.evolve, mark);
      fft3d(field(*u1_), +1, t, mark);
      r.sums.push_back(checksum_of(number_, field(*u1_), c));
      lap(t.checksum, mark);
    }
    r.seconds = now() - start;
    omp_target::check_ran_where_asked(device_, initial_ != 0, "FT's nas run");
    return r;
  }

 private:
  static double* field(omp_target::Buffer& b) { return static_cast<double*>(b.data()); }

  void fft3d(double* u, int sign, FunctionTimes& t, double& mark) {
    const int order[3] = {sign < 0 ? 0 : 2, 1, sign < 0 ? 2 : 0};
    for (const int which : order) {
      axis(u, which, sign);
      lap(which == 0 ? t.fft_x : which == 1 ? t.fft_y : t.fft_z, mark);
    }
  }

  // The 1-D FFTs along axis 0 (x), 1 (y) or 2 (z), as openmp.cpp's: x lines indexed by (k, j),
  // y lines by (k, i), z lines by (j, i), blocked along the second index.
  void axis(double* u, int which, int sign) {
    const FtClass& c = *c_;
    const std::int64_t nx = c.nx, ny = c.ny, nz = c.nz;
    const std::int64_t n = which == 0 ? nx : which == 1 ? ny : nz;
    const double* w = static_cast<const double*>(roots_[which]->data());
    double* scratch = field(*scratch_);
    const std::int64_t outer = which == 2 ? ny : nz, inner = which == 0 ? ny : nx;
    const std::int64_t stride = which == 0 ? 1 : which == 1 ? nx : nx * ny;
    const std::int64_t lines = std::min<std::int64_t>(block, inner);
    const std::int64_t blocks = (inner + lines - 1) / lines;
    const double flip = sign < 0 ? 1.0 : -1.0;  // the roots, conjugated for the inverse
    // The gather's and scatter's lanes go along the field's contiguous direction: a line's elements
    // along x, the block's lines along y and z (consecutive i).
    const bool along = which == 0;
    const int dev = number_;
    int initial = 0;
#pragma omp target teams distribute collapse(2) device(dev) is_device_ptr(u, w, scratch) map(tofrom : initial)
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t bl = 0; bl < blocks; ++bl) {
        if (o == 0 && bl == 0) initial = omp_is_initial_device();
        const std::int64_t first = bl * lines, count = std::min(lines, inner - first);
        // This block's scratch: x then y, n x lines pairs each.
        double* x = scratch + 4 * (o * blocks + bl) * n * lines;
        double* y = x + 2 * n * lines;
        // Element e of line first + b is at (base + b * step) + e * stride.
        const std::int64_t base = which == 0 ? (o * ny + first) * nx : which == 1 ? o * nx * ny + first : o * nx + first;
        const std::int64_t step = which == 0 ? nx : 1;
#pragma omp parallel
        {
#pragma omp for simd
          for (std::int64_t idx = 0; idx < n * count; ++idx) {
            const std::int64_t e = along ? idx % n : idx / count, b = along ? idx / n : idx % count;
            const std::int64_t at = 2 * (base + b * step + e * stride);
            x[2 * (e * lines + b)] = u[at];
            x[2 * (e * lines + b) + 1] = u[at + 1];
          }
          // Stockham autosort, natural order in and out: pass (len, s) reads a, writes c.
          double* a = x;
          double* cc = y;
          std::int64_t s = 1;
          for (std::int64_t len = n; len > 1; len /= 2, s *= 2) {
            const std::int64_t m = len / 2;
#pragma omp for simd
            for (std::int64_t idx = 0; idx < m * s * lines; ++idx) {
              const std::int64_t b = idx % lines, jq = idx / lines, p = jq / s, q = jq % s;
              const double wr = w[2 * p * s], wi = flip * w[2 * p * s + 1];
              const std::int64_t a0 = 2 * ((q + s * p) * lines + b), a1 = 2 * ((q + s * (p + m)) * lines + b);
              const std::int64_t c0 = 2 * ((q + s * 2 * p) * lines + b), c1 = 2 * ((q + s * (2 * p + 1)) * lines + b);
              const double ar = a[a0], ai = a[a0 + 1], br = a[a1], bi = a[a1 + 1];
              cc[c0] = ar + br;
              cc[c0 + 1] = ai + bi;
              const double dr = ar - br, di = ai - bi;
              cc[c1] = dr * wr - di * wi;
              cc[c1 + 1] = dr * wi + di * wr;
            }
            double* swap = a;
            a = cc;
            cc = swap;
          }
#pragma omp for simd
          for (std::int64_t idx = 0; idx < n * count; ++idx) {
            const std::int64_t e = along ? idx % n : idx / count, b = along ? idx / n : idx % count;
            const std::int64_t at = 2 * (base + b * step + e * stride);
            u[at] = a[2 * (e * lines + b)];
            u[at + 1] = a[2 * (e * lines + b) + 1];
          }
        }
      }
    initial_ |= initial;
  }

  // u0 = u0 * factors; u1 = u0. The products go through registers, not back through u0: Clang 19,
  // vectorising this `simd` loop on the host, loaded u0's imaginary part for u1 before the same
  // iteration's store of its product (u1 kept the unscaled part: FT class S failed verification).
  void evolve() {
    double* u0 = field(*u0_);
    double* u1 = field(*u1_);
    const double* f = static_cast<const double*>(factors_->data());
    const std::int64_t n = c_->total();
    const int dev = number_;
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(u0, u1, f)
    for (std::int64_t e = 0; e < n; ++e) {
      const double re = u0[2 * e] * f[e], im = u0[2 * e + 1] * f[e];
      u0[2 * e] = re;
      u0[2 * e + 1] = im;
      u1[2 * e] = re;
      u1[2 * e + 1] = im;
    }
  }

  DeviceInfo device_;
  int number_;
  const FtClass* c_ = nullptr;
  std::unique_ptr<omp_target::Buffer> u0_, u1_, scratch_, factors_, roots_[3];
  Variant variant_ = Variant::nas;
#ifdef GPUBENCH_OMP_TARGET_CLANG
  std::unique_ptr<FastSteps> fast_;  // fast's fields and tables (prepare)
#endif
  std::vector<Complex> field_;
  std::vector<double> twiddle_;
  int initial_ = 0;
};

}  // namespace

}  // namespace gpubench::ft

GPUBENCH_REGISTER_FT_OPERATIONS(
    gpubench::omp_target::backend_name,
    [](const gpubench::DeviceInfo& d) -> std::unique_ptr<gpubench::ft::Operations> {
      return std::make_unique<gpubench::ft::OmpTargetOperations>(d);
    },
#ifdef GPUBENCH_OMP_TARGET_CLANG
    gpubench::ft::BackendTraits{{},
                                {gpubench::ft::Variant::nas, gpubench::ft::Variant::fast},
                                [](const gpubench::DeviceInfo&) { return gpubench::ft::omp_fast::tile_bytes; },
                                gpubench::ft::omp_target_host_bytes,
                                "OpenMP target offload has no FFT library of its own",
                                [](const gpubench::DeviceInfo& d, gpubench::ft::Variant v) -> std::string {
                                  if (v != gpubench::ft::Variant::fast || d.type == "gpu") return {};
                                  return "fast's teams need lines x n / radix threads each, and on the initial device "
                                         "(the host) a league's teams get no more threads between them than it has cores";
                                }});
#else
    gpubench::ft::BackendTraits{{}, {gpubench::ft::Variant::nas}, nullptr, gpubench::ft::omp_target_host_bytes,
                                "OpenMP target offload has no FFT library of its own"});
#endif
