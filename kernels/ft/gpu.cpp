#include "kernels/ft/gpu.hpp"

#include <chrono>
#include <cmath>
#include <numbers>

#include "common/errors.hpp"

namespace gpubench::ft {

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double* axis_time(FunctionTimes& t, int axis) { return axis == 0 ? &t.fft_x : axis == 1 ? &t.fft_y : &t.fft_z; }

void upload_roots(GpuSteps& steps, const FtClass& c) {
  for (int axis = 0; axis < 3; ++axis) {
    const int n = axis == 0 ? c.nx : axis == 1 ? c.ny : c.nz;
    std::vector<Complex> w(static_cast<std::size_t>(n));
    for (int p = 0; p < n; ++p) w[static_cast<std::size_t>(p)] = std::polar(1.0, -2 * std::numbers::pi * p / n);
    steps.upload_roots(axis, w.data(), n);
  }
}

// The study's transform (v1, v2) of field f: x, y, z forward, z, y, x inverse.
void study_fft(GpuSteps& steps, Variant v, Field f, int sign, FunctionTimes& t) {
  for (int step = 0; step < 3; ++step) {
    const int axis = sign < 0 ? step : 2 - step;
    if (v == Variant::v2 && axis != 0) {  // x is contiguous already
      steps.rotate(f, Field::third, axis, false);
      steps.mark(&t.rotate);
      steps.fft_line_per_item(Field::third, f, axis, sign, true);
      steps.mark(axis_time(t, axis));
      steps.rotate(Field::third, f, axis, true);
      steps.mark(&t.rotate);
    } else {
      steps.fft_line_per_item(f, Field::third, axis, sign, false);
      steps.mark(axis_time(t, axis));
    }
  }
}

}  // namespace

std::vector<double> axis_factor_tables(const FtClass& c) {
  const double ap = -4.0 * alpha * std::numbers::pi * std::numbers::pi;
  const std::size_t per = static_cast<std::size_t>(c.nx + c.ny + c.nz);
  std::vector<double> tables(per * static_cast<std::size_t>(c.niter));
  for (int t = 1; t <= c.niter; ++t) {
    double* table = tables.data() + (t - 1) * per;
    int at = 0;
    for (int n : {c.nx, c.ny, c.nz})
      for (int i = 0; i < n; ++i) {
        const int f = frequency(i, n);
        table[at++] = std::exp(ap * static_cast<double>(f) * f * t);
      }
  }
  return tables;
}

std::uint64_t device_bytes(const FtClass& c, Variant v, std::string* what) {
  const auto n = static_cast<std::uint64_t>(c.total());
  const std::uint64_t field = n * sizeof(Complex);
  std::uint64_t bytes = 2 * field;
  std::string held = "u0 and u1";
  if (v == Variant::v1 || v == Variant::v2) {
    bytes += field + n * sizeof(double);
    held = v == Variant::v1 ? "u0, u1, the scratch lines and the evolve factors"
                            : "u0, u1, the rotated field and the evolve factors";
  }
  if (what) *what = held;
  return bytes;
}

RunResult run_on_gpu(GpuSteps& steps, const FtClass& c, Variant v) {
  if (v != Variant::v1 && v != Variant::v2 && v != Variant::fast && v != Variant::vendor)
    throw DeviceError("FT variant " + to_string(v) + " does not run on a GPU backend");
  const bool study = v == Variant::v1 || v == Variant::v2;
  RunResult r;
  FunctionTimes& t = r.times;
  steps.finish();
  const double start = now();
  // Setup: the study's on the host, uploaded; fast's and the vendor's tables on the host (a few
  // KiB) and the field on the device.
  if (study) {
    std::vector<double> factors(static_cast<std::size_t>(c.total()));
    std::vector<Complex> field(static_cast<std::size_t>(c.total()));
    evolve_factors(c, factors.data());
    if (planted_wrong_twiddle()) factors[0] *= 1 - 1e-9;
    initial_conditions(c, field.data());
    upload_roots(steps, c);
    steps.upload_factors(factors.data());
    steps.upload_field(field.data());
  } else {
    std::vector<double> tables = axis_factor_tables(c);
    if (planted_wrong_twiddle())  // mode (0, 0, 0) of every iteration
      for (int i = 0; i < c.niter; ++i) tables[static_cast<std::size_t>(i) * (c.nx + c.ny + c.nz)] *= std::pow(1 - 1e-9, i + 1);
    upload_roots(steps, c);
    steps.upload_axis_factors(tables.data(), tables.size());
  }
  t.setup = now() - start;
  steps.mark(nullptr);
  if (v == Variant::vendor) {
    steps.generate(Field::u0);
    steps.mark(&t.setup);
  }
  // The forward transform into u0.
  if (study) {
    steps.copy(Field::u1, Field::u0);
    steps.mark(&t.fft_x);  // the copy is part of the transform
    study_fft(steps, v, Field::u0, -1, t);
  } else if (v == Variant::fast) {
    steps.fft_batched(Field::u0, Field::u0, 0, -1, FirstPass::initial, 0);
    steps.mark(&t.fft_x);
    steps.fft_batched(Field::u0, Field::u0, 1, -1, FirstPass::field, 0);
    steps.mark(&t.fft_y);
    steps.fft_batched(Field::u0, Field::u0, 2, -1, FirstPass::field, 0);
    steps.mark(&t.fft_z);
  } else {
    steps.fft_library(Field::u0, -1);
    steps.mark(&t.fft);
  }
  for (int iter = 1; iter <= c.niter; ++iter) {
    if (study) {
      steps.evolve();
      steps.mark(&t.evolve);
      study_fft(steps, v, Field::u1, +1, t);
    } else if (v == Variant::fast) {
      steps.fft_batched(Field::u0, Field::u1, 2, +1, FirstPass::evolved, iter);
      steps.mark(&t.fft_z);
      steps.fft_batched(Field::u1, Field::u1, 1, +1, FirstPass::field, 0);
      steps.mark(&t.fft_y);
      steps.fft_batched(Field::u1, Field::u1, 0, +1, FirstPass::field, 0);
      steps.mark(&t.fft_x);
    } else {
      steps.evolve_to(iter);
      steps.mark(&t.evolve);
      steps.fft_library(Field::u1, +1);
      steps.mark(&t.fft);
    }
    steps.checksum(Field::u1, iter - 1);
    steps.mark(&t.checksum);
  }
  r.sums.resize(static_cast<std::size_t>(c.niter));
  steps.read_sums(r.sums.data(), c.niter);  // waits: everything is done
  r.seconds = now() - start;
  steps.collect_marks();
  t.fused = v == Variant::fast;
  return r;
}

}  // namespace gpubench::ft
