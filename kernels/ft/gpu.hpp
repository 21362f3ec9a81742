// FT's timed region on a GPU, written once (gpu.cpp) for every GPU API: each API supplies its
// steps (GpuSteps: launch this kernel on that field, mark the time, upload, read back), and
// run_on_gpu runs the variant's sequence of them, NAS's timed region, with each function's
// device time from marks placed between the functions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/ft/operations.hpp"

namespace gpubench::ft {

// The device's fields: u0 (the forward transform, evolved in place by the study's forms), u1 (the
// field of an iteration), and the study's third (v1's scratch lines, v2's rotated field, whose
// scratch lines are then the field it was rotated from).
enum class Field { u0, u1, third };

// What the first pass of a fast transform reads (device.h's ft_first): the field; NAS's initial
// conditions (forward x pass); the field times an iteration's factors (inverse z pass).
enum class FirstPass { field = 0, initial = 1, evolved = 2 };

// The device memory each variant needs, in bytes, for class `c`: its fields, tables and the
// library's workspace estimate (`library_bytes`). `what` names what it holds, for the refusal.
std::uint64_t device_bytes(const FtClass& c, Variant v, std::string* what = nullptr);

class GpuSteps {
 public:
  virtual ~GpuSteps() = default;
  virtual void finish() = 0;
  // A mark on the device's queue: the device time since the previous mark goes to *into when
  // collected (nullptr: to nothing). The first mark of a run starts the count.
  virtual void mark(double* into) = 0;
  // Waits for the device, adds each interval to its function and forgets the marks.
  virtual void collect_marks() = 0;

  // The study's setup, from the host: the field into u1, NAS's evolve factors, each axis's roots
  // (exp(-2 pi i p / n), p < n).
  virtual void upload_field(const Complex* field) = 0;
  virtual void upload_factors(const double* factors) = 0;
  virtual void upload_roots(int axis, const Complex* roots, int n) = 0;
  // fast's and the vendor's factors: niter tables of nx + ny + nz per-axis factors, that of
  // iteration t (1..niter) at (t - 1) (nx + ny + nz).
  virtual void upload_axis_factors(const double* tables, std::size_t count) = 0;

  virtual void copy(Field src, Field dst) = 0;
  // The study's: the 1-D FFTs of `axis` on field f, one line per work-item, each with its line of
  // `scratch` (v1); `contiguous`: f is v2's rotated field, its lines one after another.
  virtual void fft_line_per_item(Field f, Field scratch, int axis, int sign, bool contiguous) = 0;
  // v2: src rotated so that `axis` (1, 2) is the fastest, into dst; `back`: the inverse.
  virtual void rotate(Field src, Field dst, int axis, bool back) = 0;
  // The study's evolve: u0 *= factors; u1 = u0.
  virtual void evolve() = 0;
  // u1 = u0 times iteration t's factors (vendor).
  virtual void evolve_to(int t) = 0;
  // NAS's initial conditions into f on the device (vendor).
  virtual void generate(Field f) = 0;
  // fast: the 1-D FFTs of `axis` from src to dst in local-memory batches; `first` says what its
  // first pass reads (`t` the iteration for FirstPass::evolved).
  virtual void fft_batched(Field src, Field dst, int axis, int sign, FirstPass first, int t) = 0;
  // The vendor library's 3-D transform of f in place.
  virtual void fft_library(Field f, int sign) = 0;
  // NAS's checksum of f into sums[iteration] on the device.
  virtual void checksum(Field f, int iteration) = 0;
  virtual void read_sums(Complex* sums, int count) = 0;
};

// NAS's timed region of variant v (v1, v2, fast or vendor) for class c on `steps`, prepared for it.
RunResult run_on_gpu(GpuSteps& steps, const FtClass& c, Variant v);

// fast's per-axis tables of factors (upload_axis_factors' layout).
std::vector<double> axis_factor_tables(const FtClass& c);

}  // namespace gpubench::ft
