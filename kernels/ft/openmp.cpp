// FT on the openmp backend. nas and serial: NAS's algorithm, the 1-D FFTs along each axis in
// blocks of 16 lines gathered into a contiguous scratch array (NAS's fftblock) and transformed
// there by a radix-2 Stockham FFT (natural order in and out, no bit reversal), blocks spread over
// the host's threads (serial: one). vendor: FFTW's in-place 3-D transforms on the host's threads,
// planned with FFTW_MEASURE before the timed region.
// The timed region is NAS's: setup (evolve factors, initial conditions, FFT tables), the forward
// FFT, then per iteration evolve, the inverse FFT and the checksum.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <vector>

#include <omp.h>

#ifdef GPUBENCH_FT_FFTW
#include <fftw3.h>
#endif

#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "kernels/ft/operations.hpp"

namespace gpubench::ft {

#ifdef GPUBENCH_FT_FFTW
const std::string fftw_library = std::string("FFTW ") + fftw_version;
#else
const std::string fftw_library;
#endif

namespace {

// Every variant keeps two fields and the twiddle factors on the host.
std::uint64_t openmp_host_bytes(const FtClass& c, Variant) {
  return static_cast<std::uint64_t>(c.total()) * (2 * sizeof(Complex) + sizeof(double));
}

constexpr int block = 16;  // lines per block, NAS's fftblock

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Adds the time since `mark` to `into` and moves `mark` to now: NAS's timers, one after another.
void lap(double& into, double& mark) {
  const double n = now();
  into += n - mark;
  mark = n;
}

// roots[p] = exp(-2 pi i p / n), p < n/2.
std::vector<Complex> roots_of(int n) {
  std::vector<Complex> w(static_cast<std::size_t>(std::max(n / 2, 1)));
  for (int p = 0; p < n / 2; ++p) {
    const double t = -2 * std::numbers::pi * p / n;
    w[static_cast<std::size_t>(p)] = Complex(std::cos(t), std::sin(t));
  }
  return w;
}

// `lines` 1-D FFTs of length n (a power of two) at once, element e of line b at x[e * lines + b];
// y is scratch of the same size. Stockham autosort: each pass reads one array and writes the
// other in natural order. sign -1: exp(-2 pi i ...), +1 its conjugate; unnormalised both ways.
void stockham(int n, int lines, Complex* x, Complex* y, const Complex* w, int sign) {
  Complex *a = x, *c = y;
  int s = 1;
  for (int len = n; len > 1; len /= 2, s *= 2) {
    const int m = len / 2;
    for (int p = 0; p < m; ++p) {
      const Complex wp = sign < 0 ? w[p * s] : std::conj(w[p * s]);
      const double wr = wp.real(), wi = wp.imag();
      for (int q = 0; q < s; ++q) {
        const Complex* a0 = a + static_cast<std::ptrdiff_t>(q + s * p) * lines;
        const Complex* a1 = a + static_cast<std::ptrdiff_t>(q + s * (p + m)) * lines;
        Complex* c0 = c + static_cast<std::ptrdiff_t>(q + s * 2 * p) * lines;
        Complex* c1 = c + static_cast<std::ptrdiff_t>(q + s * (2 * p + 1)) * lines;
        for (int b = 0; b < lines; ++b) {
          const double ar = a0[b].real(), ai = a0[b].imag(), br = a1[b].real(), bi = a1[b].imag();
          c0[b] = Complex(ar + br, ai + bi);
          const double dr = ar - br, di = ai - bi;
          c1[b] = Complex(dr * wr - di * wi, dr * wi + di * wr);
        }
      }
    }
    std::swap(a, c);
  }
  if (a != x) std::copy(a, a + static_cast<std::ptrdiff_t>(n) * lines, x);
}

class OpenmpOperations final : public Operations {
 public:
  OpenmpOperations() {
#ifdef GPUBENCH_FT_FFTW
    static const bool threads_ready = fftw_init_threads() != 0;
    if (!threads_ready) throw DeviceError("fftw_init_threads failed");
#endif
  }
  ~OpenmpOperations() override {
#ifdef GPUBENCH_FT_FFTW
    if (forward_) fftw_destroy_plan(forward_);
    if (backward_) fftw_destroy_plan(backward_);
#endif
  }
  OpenmpOperations(const OpenmpOperations&) = delete;
  OpenmpOperations& operator=(const OpenmpOperations&) = delete;
  void prepare(const FtClass& c, Variant, const RunChoices&) override {
    c_ = &c;
    const auto n = static_cast<std::size_t>(c.total());
    check_host_memory(openmp_host_bytes(c, Variant::nas), "FT class " + std::string(1, c.name));
    u0_.assign(n, Complex());
    u1_.assign(n, Complex());
    twiddle_.assign(n, 0.0);
  }

  RunResult run(Variant v) override {
    const FtClass& c = *c_;
    threads_ = v == Variant::serial ? 1 : host_threads_;
    omp_set_num_threads(threads_);  // the setup's loops (ft.cpp) too
    struct Restore {
      int threads;
      ~Restore() { omp_set_num_threads(threads); }
    } restore{host_threads_};
#ifdef GPUBENCH_FT_FFTW
    // FFTW's plans, made with FFTW_MEASURE (FFTW times candidate algorithms on the arrays, which it
    // overwrites) before the timed region, once per object: FFTW's own tuning, as a sweep is ours.
    if (v == Variant::vendor) {
      plan_for(true);
      plan_for(false);
    }
#endif
    RunResult r;
    FunctionTimes& t = r.times;
    const double start = now();
    double mark = start;
    // Setup, timed as NAS times it.
    evolve_factors(c, twiddle_.data());
    if (planted_wrong_twiddle()) twiddle_[0] *= 1 - 1e-9;
    initial_conditions(c, u1_.data());
    if (v != Variant::vendor) {
      roots_x_ = roots_of(c.nx);
      roots_y_ = roots_of(c.ny);
      roots_z_ = roots_of(c.nz);
    }
    lap(t.setup, mark);
    // Forward: u0 = FFT(u1).
    if (v == Variant::vendor) {
      vendor_transform(true);
      lap(t.fft, mark);
    } else {
      std::copy(u1_.begin(), u1_.end(), u0_.begin());
      fft3d(u0_.data(), -1, t, mark);
    }
    for (int iter = 0; iter < c.niter; ++iter) {
      evolve();
      lap(t.evolve, mark);
      if (v == Variant::vendor) {
        vendor_transform(false);
        lap(t.fft, mark);
      } else {
        fft3d(u1_.data(), +1, t, mark);
      }
      r.sums.push_back(checksum(c, u1_.data()));
      lap(t.checksum, mark);
    }
    r.seconds = now() - start;
    return r;
  }

 private:
  // The 3-D FFT in place, x then y then z (forward) or z, y, x (inverse), as NAS's fft().
  void fft3d(Complex* u, int sign, FunctionTimes& t, double& mark) {
    if (sign < 0) {
      axis(u, 0, sign);
      lap(t.fft_x, mark);
      axis(u, 1, sign);
      lap(t.fft_y, mark);
      axis(u, 2, sign);
      lap(t.fft_z, mark);
    } else {
      axis(u, 2, sign);
      lap(t.fft_z, mark);
      axis(u, 1, sign);
      lap(t.fft_y, mark);
      axis(u, 0, sign);
      lap(t.fft_x, mark);
    }
  }

  // The 1-D FFTs along axis 0 (x), 1 (y) or 2 (z): lines in blocks of 16, each block gathered
  // into [element][line] scratch, transformed, scattered back.
  void axis(Complex* u, int which, int sign) {
    const FtClass& c = *c_;
    const std::int64_t nx = c.nx, ny = c.ny, nz = c.nz;
    const int n = which == 0 ? c.nx : which == 1 ? c.ny : c.nz;
    const Complex* w = (which == 0 ? roots_x_ : which == 1 ? roots_y_ : roots_z_).data();
    // Lines: x lines indexed by (k, j), y lines by (k, i), z lines by (j, i); blocked along the
    // second index (j for x, i for y and z).
    const std::int64_t outer = which == 2 ? ny : nz, inner = which == 0 ? ny : nx;
    const std::int64_t stride = which == 0 ? 1 : which == 1 ? nx : nx * ny;
    const std::int64_t lines_per = std::min<std::int64_t>(block, inner);
    const std::int64_t blocks = (inner + lines_per - 1) / lines_per;
#pragma omp parallel num_threads(threads_)
    {
      std::vector<Complex> x(static_cast<std::size_t>(n * lines_per)), y(x.size());
#pragma omp for collapse(2) schedule(static)
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t bl = 0; bl < blocks; ++bl) {
          const std::int64_t first = bl * lines_per, count = std::min(lines_per, inner - first);
          // Element e of line `first + b` is at base(b) + e * stride.
          auto base = [&](std::int64_t b) -> std::int64_t {
            const std::int64_t line = first + b;
            if (which == 0) return (o * ny + line) * nx;  // (k = o, j = line)
            if (which == 1) return o * nx * ny + line;    // (k = o, i = line)
            return o * nx + line;                          // (j = o, i = line)
          };
          for (std::int64_t e = 0; e < n; ++e)
            for (std::int64_t b = 0; b < count; ++b) x[static_cast<std::size_t>(e * lines_per + b)] = u[base(b) + e * stride];
          stockham(n, static_cast<int>(lines_per), x.data(), y.data(), w, sign);
          for (std::int64_t e = 0; e < n; ++e)
            for (std::int64_t b = 0; b < count; ++b) u[base(b) + e * stride] = x[static_cast<std::size_t>(e * lines_per + b)];
        }
    }
  }

  // u0 = u0 * factors; u1 = u0.
  void evolve() {
    const auto n = static_cast<std::int64_t>(u0_.size());
    Complex* u0 = u0_.data();
    Complex* u1 = u1_.data();
    const double* f = twiddle_.data();
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (std::int64_t e = 0; e < n; ++e) {
      u0[e] *= f[e];
      u1[e] = u0[e];
    }
  }

  // Forward: u0 in place; inverse: u1 in place.
  void vendor_transform(bool forward) {
#ifdef GPUBENCH_FT_FFTW
    if (forward) {
      std::copy(u1_.begin(), u1_.end(), u0_.begin());
      auto* d = reinterpret_cast<fftw_complex*>(u0_.data());
      fftw_execute_dft(plan_for(true), d, d);
    } else {
      auto* d = reinterpret_cast<fftw_complex*>(u1_.data());
      fftw_execute_dft(plan_for(false), d, d);
    }
#else
    (void)forward;
    throw DeviceError("FFTW was not found when gpubench was configured: no vendor FFT on openmp");
#endif
  }

#ifdef GPUBENCH_FT_FFTW
  fftw_plan plan_for(bool forward) {
    const FtClass& c = *c_;
    fftw_plan_with_nthreads(threads_);
    fftw_plan& p = forward ? forward_ : backward_;
    if (!p) {
      auto* d = reinterpret_cast<fftw_complex*>((forward ? u0_ : u1_).data());
      p = fftw_plan_dft_3d(c.nz, c.ny, c.nx, d, d, forward ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_MEASURE);
      if (!p) throw DeviceError("FFTW could not plan the transform");
    }
    return p;
  }
  fftw_plan forward_ = nullptr, backward_ = nullptr;
#endif

  const FtClass* c_ = nullptr;
  const int host_threads_ = omp_get_max_threads();
  int threads_ = 1;
  std::vector<Complex> u0_, u1_;
  std::vector<double> twiddle_;
  std::vector<Complex> roots_x_, roots_y_, roots_z_;
};

}  // namespace

}  // namespace gpubench::ft

GPUBENCH_REGISTER_FT_OPERATIONS(
    "openmp", [](const gpubench::DeviceInfo&) -> std::unique_ptr<gpubench::ft::Operations> {
      return std::make_unique<gpubench::ft::OpenmpOperations>();
    },
    gpubench::ft::BackendTraits{
        gpubench::ft::fftw_library.empty() ? std::vector<gpubench::ft::Library>{}
                                           : std::vector<gpubench::ft::Library>{{"fftw", gpubench::ft::fftw_library, "FFTW_MEASURE, before the timed region"}},
        gpubench::ft::fftw_library.empty()
            ? std::vector<gpubench::ft::Variant>{gpubench::ft::Variant::nas, gpubench::ft::Variant::serial}
            : std::vector<gpubench::ft::Variant>{gpubench::ft::Variant::nas, gpubench::ft::Variant::serial,
                                                 gpubench::ft::Variant::vendor},
        nullptr, gpubench::ft::openmp_host_bytes, "no FFT library was found when configured (Debian libfftw3-dev)"});
