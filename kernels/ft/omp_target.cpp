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

namespace gpubench::ft {

namespace {

constexpr std::int64_t block = 16;  // lines per block, NAS's fftblock

// The host's share: the field and the factors, computed there for the upload.
std::uint64_t omp_target_host_bytes(const FtClass& c, Variant) {
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

class OmpTargetOperations final : public Operations {
 public:
  explicit OmpTargetOperations(const DeviceInfo& device) : device_(device), number_(omp_target::device_number(device)) {}

  nlohmann::json gap_causes() const override {
    nlohmann::json causes = nlohmann::json::array();
    if (device_.type != "gpu") return causes;
    causes.push_back(gap_cause("gpubench", "only NAS's algorithm (its cffts line loops) is written for OpenMP offload: "
                                           "no fast variant (CUDA's and OpenCL's runs kernels/ft/device.h's batched FFTs)"));
    if (const std::string g = omp_target::compiler_gap(device_); !g.empty()) causes.push_back(gap_cause("compiler", g));
    return causes;
  }

  void prepare(const FtClass& c, Variant v, const RunChoices&) override {
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

  RunResult run(Variant) override {
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
      r.sums.push_back(checksum());
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

  // NAS's checksum of u1: 1024 points, divided by the points of the grid.
  Complex checksum() {
    const double* u = field(*u1_);
    const std::int64_t nx = c_->nx, ny = c_->ny, nz = c_->nz;
    const int dev = number_;
    double re = 0, im = 0;
    // 1024 points: one team (a reduction across teams costs more than the points).
#pragma omp target teams distribute parallel for simd device(dev) num_teams(1) is_device_ptr(u) reduction(+ : re, im)
    for (std::int64_t j = 1; j <= 1024; ++j) {
      const std::int64_t q = j % nx, r = (3 * j) % ny, s = (5 * j) % nz;
      const std::int64_t at = 2 * ((s * ny + r) * nx + q);
      re += u[at];
      im += u[at + 1];
    }
    return Complex(re, im) / static_cast<double>(c_->total());
  }

  DeviceInfo device_;
  int number_;
  const FtClass* c_ = nullptr;
  std::unique_ptr<omp_target::Buffer> u0_, u1_, scratch_, factors_, roots_[3];
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
    gpubench::ft::BackendTraits{{}, {gpubench::ft::Variant::nas}, nullptr, gpubench::ft::omp_target_host_bytes,
                                "OpenMP target offload has no FFT library of its own"});
